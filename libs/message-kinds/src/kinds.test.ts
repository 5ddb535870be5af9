import { isAppError } from '@gateway/errors';
import { EXAMPLE_CLIENT, MESSAGE_KINDS, kindNamed, readSendRequest, sendRequest, type MessageKind } from './index';

const CLIENT_ID = '4a1f3c52-8d1e-4f7a-9a53-0c6f1b2d9e10';
const kinds: readonly MessageKind[] = MESSAGE_KINDS;
const valid = kinds.flatMap((k) => k.examples.valid.map((e) => [`${k.name}: ${e.name}`, k, e] as const));
const invalid = kinds.flatMap((k) => k.examples.invalid.map((e) => [`${k.name}: ${e.name}`, k, e] as const));

/** Every schema node under `d` (joi's describe()), with where it sits; conditions (`is`) are not values and are skipped. */
function* nodes(
  d: unknown,
  at: string,
): Generator<[string, { type?: string; keys?: unknown; flags?: { unknown?: boolean }; rules?: Array<{ name: string }> }]> {
  if (!d || typeof d !== 'object') return;
  if (Array.isArray(d)) {
    for (const [i, x] of d.entries()) yield* nodes(x, `${at}[${i}]`);
    return;
  }
  const node = d as { type?: unknown };
  if (typeof node.type === 'string') yield [at, node as never];
  for (const [k, v] of Object.entries(d)) if (k !== 'is' && k !== 'ref') yield* nodes(v, `${at}.${k}`);
}

describe('message kinds', () => {
  it('each has one name, from which its path and operation id follow', () => {
    for (const k of kinds) {
      expect(k.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(k.path).toBe(`send-${k.name.replace(/_/g, '-')}`);
      expect(k.operationId).toBe(k.path.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()));
    }
    expect(new Set(kinds.map((k) => k.name)).size).toBe(kinds.length);
    expect(kinds.map((k) => k.path)).toEqual(expect.arrayContaining(['send-text', 'send-location-request', 'send-cta-url']));
  });

  it('each has valid and invalid examples', () => {
    for (const k of kinds) {
      expect(k.examples.valid.length).toBeGreaterThan(0);
      expect(k.examples.invalid.length).toBeGreaterThan(0);
    }
  });

  it('bound every array and every object of every schema', () => {
    const unbounded: string[] = [];
    for (const k of kinds) {
      for (const [at, n] of nodes(k.schema.describe(), k.name)) {
        const max = n.rules?.some((r) => r.name === 'max') ?? false;
        if (n.type === 'array' && !max) unbounded.push(`${at}: array without max`);
        if (n.type === 'object' && !max && (n.keys === undefined || n.flags?.unknown === true)) unbounded.push(`${at}: open object without max`);
      }
    }
    expect(unbounded).toEqual([]);
  });

  it.each(valid)('%s: builds exactly its payload', (_name, kind, example) => {
    const body = kind.prepare(kind.parse({ client_id: CLIENT_ID, ...example.body }));
    expect(kind.build(body, EXAMPLE_CLIENT)).toEqual(example.payload);
    expect(kind.recordKind(body)).toBe(example.recordKind ?? kind.name);
  });

  it.each(valid)('%s: travels to the messaging service and is read back the same', (_name, kind, example) => {
    const body = kind.parse({ client_id: CLIENT_ID, ...example.body });
    const read = readSendRequest(sendRequest(kind, body));
    expect(read.kind).toBe(kind);
    expect(read.body).toEqual(body);
  });

  it.each(invalid)('%s: refused at its loc', (_name, kind, example) => {
    let error: unknown;
    try {
      kind.parse({ client_id: CLIENT_ID, ...example.body });
    } catch (e) {
      error = e;
    }
    expect(isAppError(error) && error.kind === 'validation').toBe(true);
    expect(isAppError(error) && error.issues).toContainEqual(expect.objectContaining({ loc: example.loc, type: example.type }));
  });

  it('refuses a kind it does not know with a stable code, and a body that is not JSON', () => {
    expect(() => kindNamed('no_such_kind')).toThrow(expect.objectContaining({ kind: 'unavailable', code: 'message_kind_unknown' }));
    expect(() => readSendRequest({ kind: 'text', bodyJson: '{' })).toThrow(expect.objectContaining({ kind: 'validation' }));
  });

  it('refuses a products send when neither the body nor the client names a catalog (a 422 at catalog_id)', () => {
    const products = kindNamed('products');
    const example = products.examples.valid[0];
    const body = products.parse({ client_id: CLIENT_ID, ...example.body });
    expect(() => products.build(body, {})).toThrow(
      expect.objectContaining({ kind: 'validation', details: { detail: [expect.objectContaining({ loc: ['body', 'catalog_id'], type: 'missing' })] } }),
    );
  });

  it('a flow send without a token gets one generated once, and answers it in X-Flow-Token', () => {
    const flow = kindNamed('flow');
    const body = flow.prepare(flow.parse({ client_id: CLIENT_ID, to: '+16505551234', body: 'Go', button_text: 'Open', flow_id: '1' }));
    const header = flow.answerHeaders.find((h) => h.name === 'X-Flow-Token')!;
    expect(header.value(body)).toMatch(/^ft_[0-9a-f-]{36}$/);
    expect(flow.prepare(body)).toEqual(body);
  });
});
