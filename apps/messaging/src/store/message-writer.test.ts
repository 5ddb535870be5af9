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
