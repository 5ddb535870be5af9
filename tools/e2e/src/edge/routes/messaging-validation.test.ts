import { randomUUID } from 'node:crypto';
import type { ValidationIssue } from '@gateway/errors';
import { MESSAGE_KINDS, type MessageKind } from '@gateway/message-kinds';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';

type Issue = ValidationIssue;

describe('messaging limits are enforced at the edge, before any service or provider call', () => {
  let stack: Stack;
  let api: ApiClient;
  const clientId = randomUUID();
  const to = '+16505551234';

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], sim: false });
    ({ api } = await stack.createTenant());
  });
  afterAll(() => stack.stop());

  const buttons = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `b${i}`, title: `Button ${i}` }));
  const validButtons = { client_id: clientId, to, body: { type: 'text', text: 'Pick one' }, buttons: buttons(2) };

  async function issues(path: string, body: unknown, headers?: Record<string, string>): Promise<Issue[]> {
    const res = await api.post(path, body, headers);
    expect(res.status).toBe(422);
    const detail = (res.json as { detail: Issue[] }).detail;
    for (const d of detail) expect(Object.keys(d).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    return detail;
  }

  const kinds: readonly MessageKind[] = MESSAGE_KINDS;

  /** Every kind's invalid examples (@gateway/message-kinds), then the operations that are not sends. */
  const cases: Array<[string, string, unknown, string[], string]> = [
    ...kinds.flatMap((k) =>
      k.examples.invalid.map((e): [string, string, unknown, string[], string] => [
        `${k.path}: ${e.name}`,
        `/api/messaging/${k.path}`,
        { client_id: clientId, ...e.body },
        e.loc,
        e.type,
      ]),
    ),
    ['an empty users array', '/api/messaging/block-users', { client_id: clientId, users: [] }, ['body', 'users'], 'too_short'],
    ['an empty users array (unblock)', '/api/messaging/unblock-users', { client_id: clientId, users: [] }, ['body', 'users'], 'too_short'],
    [
      'duplicate users',
      '/api/messaging/block-users',
      { client_id: clientId, users: ['+16505551234', '+16505551234'] },
      ['body', 'users', '1'],
      'duplicate_item',
    ],
    [
      '1001 users',
      '/api/messaging/block-users',
      { client_id: clientId, users: Array.from({ length: 1001 }, (_, i) => `+1650555${String(i).padStart(4, '0')}`) },
      ['body', 'users'],
      'too_many_items',
    ],
    ['mark-read without message_id', '/api/messaging/mark-read', { client_id: clientId }, ['body', 'message_id'], 'missing'],
    [
      'indicate-typing with a numeric message_id',
      '/api/messaging/indicate-typing',
      { client_id: clientId, message_id: 5 },
      ['body', 'message_id'],
      'string_type',
    ],
    ['call accept without sdp', '/api/call/accept', { client_id: clientId, call_id: 'wacid.1' }, ['body', 'sdp'], 'missing'],
  ];

  it.each(cases)('%s → 422 at the exact loc', async (_name, path, body, loc, type) => {
    const detail = await issues(path, body);
    expect(detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  const valid = kinds.flatMap((k) => k.examples.valid.map((e) => [`${k.path}: ${e.name}`, k, e] as const));

  it.each(valid)('%s passes validation (and reaches the messaging service: this client is unknown)', async (_name, kind, example) => {
    const res = await api.post(`/api/messaging/${kind.path}`, { client_id: clientId, ...example.body });
    expect(res.json).toEqual({ detail: 'Client not found', code: 'client_not_found' });
    expect(res.status).toBe(404);
  });

  it('lists every problem of a request at once', async () => {
    const detail = await issues('/api/messaging/send-buttons', {
      client_id: 'nope',
      to,
      body: { type: 'text', text: 'Pick' },
      buttons: [
        { id: 'a', title: 'x'.repeat(21) },
        { id: 'a', title: 'B' },
        { id: 'c', title: 'C' },
        { id: 'd', title: 'D' },
      ],
    });
    expect(detail.map((d) => d.loc.join('.')).sort()).toEqual(['body.buttons', 'body.buttons.0.title', 'body.buttons.1.id', 'body.client_id'].sort());
    const location = await issues('/api/messaging/send-location', { client_id: clientId, latitude: '1', longitude: 200 });
    expect(location.map((d) => [d.loc.join('.'), d.type])).toEqual(
      expect.arrayContaining([
        ['body.to', 'missing'],
        ['body.latitude', 'number_type'],
        ['body.longitude', 'less_than_equal'],
      ]),
    );
  });

  it('reports the offending input and the limit', async () => {
    const [issue] = await issues('/api/messaging/send-buttons', { ...validButtons, buttons: [{ id: 'a', title: 'x'.repeat(21) }] });
    expect(issue).toMatchObject({ loc: ['body', 'buttons', '0', 'title'], input: 'x'.repeat(21), ctx: { limit: 20 } });
    const [dup] = await issues('/api/messaging/send-buttons', {
      ...validButtons,
      buttons: [
        { id: 'a', title: 'A' },
        { id: 'a', title: 'B' },
      ],
    });
    expect(dup).toMatchObject({ input: 'a', ctx: { field: 'id', first_index: 0 } });
  });

  it('refuses an Idempotency-Key longer than 255 characters, together with body problems', async () => {
    const detail = await issues(
      '/api/messaging/send-location',
      { client_id: clientId, to, latitude: 91, longitude: 0 },
      { 'Idempotency-Key': 'k'.repeat(256) },
    );
    expect(detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['header', 'idempotency-key'], type: 'too_long' }),
        expect.objectContaining({ loc: ['body', 'latitude'] }),
      ]),
    );
  });

  it('validates GET /api/messages/{id} query', async () => {
    const res = await api.get('/api/messages/wamid.x?client_id=nope');
    expect(res.status).toBe(422);
    expect((res.json as { detail: Issue[] }).detail[0]).toMatchObject({ loc: ['query', 'client_id'], type: 'invalid_uuid' });
  });
});
