import { createLogger } from '@gateway/logger';
import { storageBackends } from '@gateway/store/testing';
import type { Db } from '@gateway/store';
import { migrations } from './migrations';
import { MessageWriter } from './message-writer';
import { SqlConversations } from './conversations';

describe.each(storageBackends('messaging', migrations))('message writer on %s', (name, make) => {
  const backend = make();
  let db: Db;
  let conversations: SqlConversations;
  const logger = createLogger({ name: 'test', level: 'silent' });
  const send = (id: string, to: string) => ({ id, tenantId: 't1', clientId: 'c-writer', to, kind: 'template', text: `template ${id}`, at: new Date() });
  const stored = async (ids: string[]) =>
    db.query<{ id: string; contact_id: string | null; text_body: string | null }>(
      'SELECT id, contact_id, text_body FROM messages WHERE id = ANY($1::text[]) ORDER BY id',
      [ids],
    );

  beforeAll(async () => {
    db = await backend.open();
    conversations = new SqlConversations(db, name === 'postgres' ? 'postgres' : 'pglite');
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  it('stores a batch whose contacts are all known in one statement without a transaction, linked and moved as contactsForSends does', async () => {
    // what the writer asks of the database: statements outside a transaction, and transactions
    const asked = { statements: [] as string[], transactions: 0 };
    const counted = new Proxy(db, {
      get(target, prop, receiver) {
        if (prop === 'query') return (text: string, params?: unknown[]) => (asked.statements.push(text.trim().split(/\s+/)[0]!), target.query(text, params));
        if (prop === 'tx') return (fn: Parameters<Db['tx']>[0]) => (asked.transactions++, target.tx(fn));
        return Reflect.get(target, prop, receiver);
      },
    });
    const seen = new SqlConversations(counted, name === 'postgres' ? 'postgres' : 'pglite');
    const writer = new MessageWriter(
      counted,
      async () => undefined,
      logger,
      (q, batch) => seen.contactsForSends(batch, q),
      (batch) => seen.knownContactsForSends(batch),
    );
    const at = (s: number) => new Date(Date.UTC(2026, 10, 30, 9, 0, s));
    const to = (id: string, number: string, s: number) => ({ ...send(id, number), at: at(s) });
    // new users: their contacts are made in a transaction
    const first = await writer.insertMany([to('wamid.k1', '+16505550071', 1), to('wamid.k2', '+16505550072', 2)]);
    expect(asked.transactions).toBe(1);
    asked.statements.length = 0;
    // the same users again (one of them twice): no transaction; the identities read, one INSERT, the early statuses
    const again = await writer.insertMany([to('wamid.k3', '+16505550071', 5), to('wamid.k4', '+16505550072', 4), to('wamid.k5', '+16505550071', 3)]);
    expect(asked.transactions).toBe(1);
    expect(asked.statements).toEqual(['SELECT', 'WITH', 'SELECT']);
    expect([...again.values()]).toEqual([first.get('wamid.k1'), first.get('wamid.k2'), first.get('wamid.k1')]);
    expect((await stored(['wamid.k3', 'wamid.k4', 'wamid.k5'])).map((r) => [r.id, r.contact_id, r.text_body])).toEqual([
      ['wamid.k3', first.get('wamid.k1'), 'template wamid.k3'],
      ['wamid.k4', first.get('wamid.k2'), 'template wamid.k4'],
      ['wamid.k5', first.get('wamid.k1'), 'template wamid.k5'],
    ]);
    // each contact moved to its latest send of the batch, whatever the order the batch held them in
    const moved = await db.query<{ id: string; last_message_id: string; last_activity_at: Date }>(
      'SELECT id, last_message_id, last_activity_at FROM contacts WHERE id = ANY($1::text[]) ORDER BY last_message_id',
      [[first.get('wamid.k1'), first.get('wamid.k2')]],
    );
    expect(moved.map((c) => [c.id, c.last_message_id, new Date(c.last_activity_at).toISOString()])).toEqual([
      [first.get('wamid.k1'), 'wamid.k3', at(5).toISOString()],
      [first.get('wamid.k2'), 'wamid.k4', at(4).toISOString()],
    ]);
    // a new user among known ones: the whole batch goes through contactsForSends in a transaction
    await writer.insertMany([to('wamid.k6', '+16505550071', 6), to('wamid.k7', '+16505550073', 7)]);
    expect(asked.transactions).toBe(2);
    expect((await stored(['wamid.k6', 'wamid.k7'])).every((r) => r.contact_id)).toBe(true);
  });

  it('stores a batch with its contacts in one commit (each row written once); a failure to link never loses a send', async () => {
    const applied: string[][] = [];
    const writer = new MessageWriter(
      db,
      async (ids) => void applied.push(ids),
      logger,
      (q, batch) => conversations.contactsForSends(batch, q),
    );
    const contacts = await writer.insertMany([send('wamid.w1', '+16505550061'), send('wamid.w2', '+16505550062')]);
    const rows = await stored(['wamid.w1', 'wamid.w2']);
    expect(rows.map((r) => [r.id, r.contact_id, r.text_body])).toEqual([
      ['wamid.w1', contacts.get('wamid.w1'), 'template wamid.w1'],
      ['wamid.w2', contacts.get('wamid.w2'), 'template wamid.w2'],
    ]);
    expect(new Set(rows.map((r) => r.contact_id)).size).toBe(2);

    // the links fail (after writing some of them): the sends are stored without, nothing of the links is kept
    const failing = new MessageWriter(
      db,
      async () => undefined,
      logger,
      async (q, batch) => {
        await conversations.contactsForSends(batch, q);
        throw new Error('link failed');
      },
    );
    const none = await failing.insertMany([send('wamid.w3', '+16505550063'), send('wamid.w4', '+16505550064')]);
    expect([...none.values()]).toEqual([undefined, undefined]);
    expect((await stored(['wamid.w3', 'wamid.w4'])).map((r) => [r.id, r.contact_id])).toEqual([
      ['wamid.w3', null],
      ['wamid.w4', null],
    ]);
    const [{ n }] = await db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM contact_identities WHERE client_id = 'c-writer' AND value = ANY($1::text[])`,
      [['16505550063', '16505550064']],
    );
    expect(n).toBe(0);
  });
});
