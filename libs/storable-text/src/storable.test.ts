import { isStorableText, jsonDepthExceeds, jsonShapeExceeds } from './storable';

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

describe('JSON object members, counted without parsing', () => {
  const keys = (n: number) => `{${Array.from({ length: n }, (_, i) => `"k${i}":[1,2,{"a":1,"b":2}]`).join(',')}}`;
  it('finds an object with more members than allowed, at any depth, not counting its arrays', () => {
    expect(jsonShapeExceeds(keys(1000), { maxDepth: 64, maxMembers: 1000 })).toBeUndefined();
    expect(jsonShapeExceeds(keys(1001), { maxDepth: 64, maxMembers: 1000 })).toBe('members');
    expect(jsonShapeExceeds(`{"a":{"b":${keys(1001)}}}`, { maxDepth: 64, maxMembers: 1000 })).toBe('members');
    expect(jsonShapeExceeds(`[${new Array(5000).fill(1).join(',')}]`, { maxDepth: 64, maxMembers: 1000 })).toBeUndefined();
    expect(jsonShapeExceeds(JSON.stringify({ s: ','.repeat(5000) }), { maxDepth: 64, maxMembers: 10 })).toBeUndefined();
    expect(jsonShapeExceeds(`{"a":${'['.repeat(70)}`, { maxDepth: 64, maxMembers: 10 })).toBe('depth');
  });
});
