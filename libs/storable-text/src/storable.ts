/**
 * What PostgreSQL can store and what a serializer can walk: it refuses U+0000 in `text`/`jsonb` and lone
 * surrogates in `jsonb`, and deeply nested JSON overflows recursive code. Shared by the edge (refusing input)
 * and the messaging router (leaving out what it cannot use from provider bodies).
 */

/** NUL-free and well formed (no lone surrogate). */
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && (s as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * Whether the nesting of arrays and objects in a JSON text exceeds `max`, read without parsing (so 60,000
 * levels cost a scan, not a recursion), stopping as soon as it does.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  return jsonShapeExceeds(text, { maxDepth: max }) === 'depth';
}

/**
 * What a JSON text holds beyond the limits, read without parsing and stopping at the first: nesting deeper than
 * `maxDepth` (`depth`), or an object with more than `maxMembers` members (`members`: parsing one of 50,000 keys
 * costs more than everything else a request does).
 */
export function jsonShapeExceeds(text: string, limits: { maxDepth: number; maxMembers?: number }): 'depth' | 'members' | undefined {
  const maxMembers = limits.maxMembers ?? Infinity;
  let depth = 0;
  let inString = false;
  // per open container: whether it is an object, and its commas so far (members - 1)
  const isObject: boolean[] = [];
  const commas: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limits.maxDepth) return 'depth';
      isObject[depth] = c === 0x7b;
      commas[depth] = 0;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth > 0 && isObject[depth] && ++commas[depth] >= maxMembers) return 'members';
  }
  return undefined;
}
