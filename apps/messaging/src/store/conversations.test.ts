import { storageBackends } from '@gateway/store/testing';
import type { Db } from '@gateway/store';
import { migrations } from './migrations';
import { insertAccepted } from './messages';
import { SqlConversations, type LoggedMessage } from './conversations';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 12, 0, s));

describe.each(storageBackends('messaging', migrations, { poolSize: 10 }))('conversations store on %s', (name, make) => {
  const backend = make();
  let db: Db;
  let store: SqlConversations;
  let n = 0;
  const inbound = (clientId: string, from: Record<string, string>, s: number, over: Partial<LoggedMessage> = {}): LoggedMessage => ({
    id: `wamid.conv${++n}`,
    tenantId: 't1',
    clientId,
    direction: 'in',
    kind: 'text',
    from: from.waId ?? from.userId ?? '',
    to: '15550001111',
    text: `message ${n}`,
    content: { type: 'text' },
    contextId: null,
    identity: from,
    at: at(s),
    ...over,
  });

  beforeAll(async () => {
    db = await backend.open();
    store = new SqlConversations(db, name === 'postgres' ? 'postgres' : 'pglite');
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  it("a user's first messages arriving at once make one contact; later ones with either identity find it", async () => {
    const who = { waId: '16505550001', userId: 'US.1001' };
    await Promise.all([1, 2, 3, 4].map((s) => store.storeLogged([inbound('c1', who, s)])));
    await store.storeLogged([inbound('c1', { userId: 'US.1001' }, 5)]);
    await store.storeLogged([inbound('c1', { waId: '16505550001' }, 6)]);
    const contacts = await store.listContacts('t1', 'c1', { limit: 10 });
    expect(contacts.items).toHaveLength(1);
    expect(contacts.items[0]).toMatchObject({ wa_id: '16505550001', user_id: 'US.1001' });
    const log = await store.listMessages('t1', 'c1', { limit: 10 });
    expect(new Set(log.items.map((m) => m.contact_id))).toEqual(new Set([contacts.items[0].id]));
  });

  it('a redelivered message is stored once; the conversation counts it once', async () => {
    const m = inbound('c2', { waId: '16505550002' }, 10);
    expect(await store.storeLogged([m])).toHaveLength(1);
    expect(await store.storeLogged([m])).toHaveLength(0);
    const convs = await store.listConversations('t1', 'c2', { limit: 10 });
    expect(convs.items.map((c) => [c.last_message?.id, c.unread])).toEqual([[m.id, 1]]);
  });

  it('a send joins the contact of its number; its text is kept; a later send is the last message', async () => {
    const m = inbound('c3', { waId: '16505550003' }, 20);
    await store.storeLogged([m]);
    const send = { id: 'wamid.send-c3', tenantId: 't1', clientId: 'c3', to: '+1 650-555-0003', kind: 'text', at: at(30), text: 'hello back' };
    await insertAccepted(db, [send]);
    await store.linkSends([send]);
    const [conv] = (await store.listConversations('t1', 'c3', { limit: 10 })).items;
    expect([conv.last_message?.id, conv.last_message?.text, conv.last_message?.direction, conv.unread]).toEqual(['wamid.send-c3', 'hello back', 'out', 1]);
    expect(await store.markRead('t1', 'c3', conv.contact.id, at(40))).toBe(true);
    expect((await store.listConversations('t1', 'c3', { limit: 10 })).items[0].unread).toBe(0);
    // another tenant's or client's contact is not marked
    expect(await store.markRead('t2', 'c3', conv.contact.id, at(40))).toBe(false);
    expect(await store.markRead('t1', 'c1', conv.contact.id, at(40))).toBe(false);
  });

  it('prunes in batches what is older than the cutoff and keeps the rest', async () => {
    for (let i = 0; i < 7; i++) await store.storeLogged([inbound('c4', { waId: '16505550004' }, i, { at: new Date(Date.UTC(2025, 0, 1, 0, 0, i)) })]);
    const recent = inbound('c4', { waId: '16505550044' }, 50);
    await store.storeLogged([recent]);
    const cutoff = new Date(Date.UTC(2025, 6, 1));
    const first = await store.pruneBatch(cutoff, 5);
    const second = await store.pruneBatch(cutoff, 5);
    // older rows of other tests (2026) are kept; the 7 old ones of this client go in two batches
    expect(first.messages + second.messages).toBe(7);
    expect(first.contacts + second.contacts).toBe(1);
    expect((await store.listMessages('t1', 'c4', { limit: 10 })).items.map((m) => m.id)).toEqual([recent.id]);
  });
});
