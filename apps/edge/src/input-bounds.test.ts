import Joi from 'joi';
import { mountedRouters } from './app';
import { InputBounds, MAX_UNKNOWN_KEYS, unboundedParts } from './input-bounds';
import { layerSpec } from './openapi/operation';
import { offlineApp } from './openapi/generate';

describe('every schema of every route bounds what it takes', () => {
  it('has a max on every array and on every object open to keys it does not name, in every part of every route', () => {
    const { app, close } = offlineApp();
    try {
      const found: string[] = [];
      let parts = 0;
      for (const { router } of mountedRouters(app)) {
        for (const layer of router.stack) {
          const request = layerSpec(layer)?.request ?? {};
          // headers are exempt: every request carries headers no schema names, and Node bounds them (16 KiB, 2000)
          for (const [part, schema] of Object.entries({ path: request.path, query: request.query, body: request.body })) {
            if (!schema) continue;
            parts++;
            for (const problem of unboundedParts(schema)) found.push(`${layer.methods.join(',')} ${String(layer.path)} ${part}: ${problem}`);
          }
        }
      }
      expect(parts).toBeGreaterThan(60);
      expect(found).toEqual([]);
    } finally {
      close();
    }
  });

  it('finds what a schema leaves unbounded, through alternatives and conditions', () => {
    const schema = Joi.object({
      list: Joi.array().items(Joi.string()),
      nested: Joi.object({ deep: Joi.array().max(3).items(Joi.object().unknown(true)) }),
      either: Joi.alternatives().try(Joi.string(), Joi.array()),
      when: Joi.when('x', { is: 1, then: Joi.object().pattern(/./, Joi.string()), otherwise: Joi.forbidden() }),
      fine: Joi.array()
        .max(2)
        .items(Joi.object({ a: Joi.string() })),
      x: Joi.number(),
    });
    expect(unboundedParts(schema).sort()).toEqual([
      'either: an array without max',
      'list: an array without max',
      'nested.deep[]: an object open to other keys without max',
      'when: an object open to other keys without max',
    ]);
    expect(unboundedParts(Joi.object({ a: Joi.link('#x') }))).toEqual(['a: a link']);
  });
});

describe('InputBounds: the value joi is shown', () => {
  const schema = Joi.object({
    tags: Joi.array().items(Joi.string()).max(3),
    rows: Joi.array()
      .max(2)
      .items(Joi.object({ ids: Joi.array().items(Joi.number()).max(2) })),
    extra: Joi.object().unknown(true).max(2),
    choice: Joi.alternatives().try(Joi.array().items(Joi.string()).max(1), Joi.array().items(Joi.number()).max(4)),
  });

  it('keeps one item more than an array may hold, at any depth and through alternatives (the largest limit)', () => {
    const b = new InputBounds();
    const value = { tags: ['a', 'b', 'c', 'd', 'e', 'f'], rows: [{ ids: [1, 2, 3, 4] }, { ids: [1] }, { ids: [] }, {}], choice: [1, 2, 3, 4, 5, 6, 7] };
    expect(b.bound(schema, value)).toEqual({
      tags: ['a', 'b', 'c', 'd'],
      rows: [{ ids: [1, 2, 3] }, { ids: [1] }, { ids: [] }],
      choice: [1, 2, 3, 4, 5],
    });
    expect(value.tags).toHaveLength(6);
    expect(b.uncheckedUnknownKeys).toBe(0);
    // within every limit: the value itself
    const fine = { tags: ['a'], rows: [{ ids: [1, 2] }], extra: { a: 1, b: 2 } };
    expect(new InputBounds().bound(schema, fine)).toBe(fine);
  });

  it('shows joi the first unknown keys of the whole input and counts the others; an open object keeps one key too many', () => {
    const b = new InputBounds();
    const value: Record<string, unknown> = { tags: ['a'] };
    for (let i = 0; i < MAX_UNKNOWN_KEYS + 50; i++) value[`k${i}`] = i;
    value.rows = [{ ids: [1], bad: 1 }];
    value.extra = { a: 1, b: 2, c: 3, d: 4, e: 5 };
    const out = b.bound(schema, value) as Record<string, unknown>;
    expect(Object.keys(out).filter((k) => k.startsWith('k'))).toHaveLength(MAX_UNKNOWN_KEYS);
    expect(out.rows).toEqual([{ ids: [1] }]);
    expect(b.uncheckedUnknownKeys).toBe(51);
    expect(out.extra).toEqual({ a: 1, b: 2, c: 3 });
    expect(Object.keys(out).slice(0, 2)).toEqual(['tags', 'k0']);
  });

  it('keeps a __proto__ key as a plain key of the copy (JSON.parse makes them)', () => {
    const value = JSON.parse('{"__proto__": {"polluted": true}, "tags": ["a","b","c","d","e"]}') as Record<string, unknown>;
    const out = new InputBounds().bound(schema, value) as Record<string, unknown>;
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.keys(out)).toEqual(['__proto__', 'tags']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
