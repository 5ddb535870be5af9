import { isStorableText, jsonDepthExceeds } from './storable';

describe('text PostgreSQL can store', () => {
  it('refuses NUL and lone surrogates, accepts paired surrogates', () => {
    expect(isStorableText('a\u0000b')).toBe(false);
    expect(isStorableText('a\ud800b')).toBe(false);
    expect(isStorableText('a\udc00')).toBe(false);
    expect(isStorableText('emoji 😀 and ü')).toBe(true);
  });
});

describe('JSON nesting depth, scanned without parsing', () => {
  it('counts arrays and objects and stops past the limit', () => {
    expect(jsonDepthExceeds('{"a":[{"b":1}]}', 3)).toBe(false);
    expect(jsonDepthExceeds('{"a":[{"b":[1]}]}', 3)).toBe(true);
    expect(jsonDepthExceeds('['.repeat(60_000), 64)).toBe(true);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonDepthExceeds(JSON.stringify({ s: '[[[[{{{{' }), 1)).toBe(false);
    expect(jsonDepthExceeds(JSON.stringify({ s: 'a\\"[[[[' }), 1)).toBe(false);
  });
});
