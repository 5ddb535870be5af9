/**
 * A JSON parser that remembers where every value sits in the source text, so Flow JSON validation errors can
 * carry the provider's line/column ranges. Lines and columns are 1-based; `end` is the last character of
 * the value (inclusive).
 */
export interface Pos {
  line: number;
  column: number;
}

export interface Span {
  start: Pos;
  end: Pos;
}

export interface ObjectEntry {
  key: string;
  keySpan: Span;
  value: JsonNode;
}

export type JsonNode =
  | { kind: 'object'; span: Span; entries: ObjectEntry[] }
  | { kind: 'array'; span: Span; items: JsonNode[] }
  | { kind: 'string'; span: Span; value: string }
  | { kind: 'number'; span: Span; value: number }
  | { kind: 'boolean'; span: Span; value: boolean }
  | { kind: 'null'; span: Span };

export class JsonSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly pos: Pos,
  ) {
    super(`${reason} at line ${pos.line}, column ${pos.column}`);
  }
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class Cursor {
  private i = 0;
  private line = 1;
  private column = 1;

  constructor(private readonly text: string) {}

  pos(): Pos {
    return { line: this.line, column: this.column };
  }

  peek(): string | undefined {
    return this.text[this.i];
  }

  /** Consumes one character and returns the position it had. */
  take(): Pos {
    const at = this.pos();
    if (this.text[this.i] === '\n') {
      this.line += 1;
      this.column = 1;
    } else {
      this.column += 1;
    }
    this.i += 1;
    return at;
  }

  /** Consumes `n` characters on the current line; returns the position of the last one. */
  takeRun(n: number): Pos {
    let last = this.pos();
    for (let k = 0; k < n; k++) last = this.take();
    return last;
  }

  skipWhitespace(): void {
    while (this.i < this.text.length && ' \t\r\n'.includes(this.text[this.i])) this.take();
  }

  atEnd(): boolean {
    return this.i >= this.text.length;
  }

  startsWith(word: string): boolean {
    return this.text.startsWith(word, this.i);
  }

  matchNumber(): string | undefined {
    NUMBER.lastIndex = this.i;
    return NUMBER.exec(this.text)?.[0];
  }

  fail(reason: string): never {
    throw new JsonSyntaxError(reason, this.pos());
  }
}

export function parseWithPositions(text: string): JsonNode {
  const c = new Cursor(text);
  c.skipWhitespace();
  if (c.atEnd()) c.fail('Unexpected end of input');
  const node = value(c);
  c.skipWhitespace();
  if (!c.atEnd()) c.fail(`Unexpected character '${c.peek()}' after the JSON value`);
  return node;
}

function value(c: Cursor): JsonNode {
  const ch = c.peek();
  if (ch === '{') return object(c);
  if (ch === '[') return array(c);
  if (ch === '"') {
    const s = string(c);
    return { kind: 'string', span: s.span, value: s.value };
  }
  const start = c.pos();
  for (const [word, node] of [
    ['true', { kind: 'boolean', value: true }],
    ['false', { kind: 'boolean', value: false }],
    ['null', { kind: 'null' }],
  ] as const) {
    if (c.startsWith(word)) return { ...node, span: { start, end: c.takeRun(word.length) } } as JsonNode;
  }
  const num = c.matchNumber();
  if (num) return { kind: 'number', value: Number(num), span: { start, end: c.takeRun(num.length) } };
  return c.atEnd() ? c.fail('Unexpected end of input') : c.fail(`Unexpected character '${ch}'`);
}

function string(c: Cursor): { value: string; span: Span } {
  const start = c.take(); // opening quote
  let raw = '"';
  for (;;) {
    const ch = c.peek();
    if (ch === undefined) c.fail('Unterminated string');
    if (ch === '\n') c.fail('Unescaped line break in string');
    if (ch === '"') {
      const end = c.take();
      try {
        return { value: JSON.parse(`${raw}"`) as string, span: { start, end } };
      } catch {
        throw new JsonSyntaxError('Invalid escape sequence in string', start);
      }
    }
    raw += ch;
    c.take();
    if (ch === '\\') {
      const next = c.peek();
      if (next === undefined) c.fail('Unterminated string');
      raw += next;
      c.take();
    }
  }
}

function object(c: Cursor): JsonNode {
  const start = c.take();
  const entries: ObjectEntry[] = [];
  c.skipWhitespace();
  if (c.peek() === '}') return { kind: 'object', entries, span: { start, end: c.take() } };
  for (;;) {
    c.skipWhitespace();
    if (c.peek() !== '"') c.fail('Expected a property name in double quotes');
    const key = string(c);
    c.skipWhitespace();
    if (c.peek() !== ':') c.fail(`Expected ':' after property name "${key.value}"`);
    c.take();
    c.skipWhitespace();
    entries.push({ key: key.value, keySpan: key.span, value: value(c) });
    c.skipWhitespace();
    const sep = c.peek();
    if (sep === '}') return { kind: 'object', entries, span: { start, end: c.take() } };
    if (sep !== ',') c.fail(sep === undefined ? 'Unexpected end of input' : `Expected ',' or '}' but found '${sep}'`);
    c.take();
  }
}

function array(c: Cursor): JsonNode {
  const start = c.take();
  const items: JsonNode[] = [];
  c.skipWhitespace();
  if (c.peek() === ']') return { kind: 'array', items, span: { start, end: c.take() } };
  for (;;) {
    c.skipWhitespace();
    items.push(value(c));
    c.skipWhitespace();
    const sep = c.peek();
    if (sep === ']') return { kind: 'array', items, span: { start, end: c.take() } };
    if (sep !== ',') c.fail(sep === undefined ? 'Unexpected end of input' : `Expected ',' or ']' but found '${sep}'`);
    c.take();
  }
}
