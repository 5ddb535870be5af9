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
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}
