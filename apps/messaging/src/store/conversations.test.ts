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

  /** Sends of one client for the batch tests: `wamid.<tag>-<id>`, a template, at second `s`. */
  const sendOf =
    (tag: string, clientId: string) =>
    (id: string, to: string, s: number, over: Record<string, string> = {}) => ({
      id: `wamid.${tag}-${id}`,
      tenantId: 't1',
      clientId,
      to,
      kind: 'template',
      at: at(s),
      text: `template ${id}`,
      ...over,
    });

  it('a batch of sends (a campaign) links each to its contact as one by one would: new users, a known one, two to one user, a BSUID', async () => {
    await store.storeLogged([inbound('c-batch', { waId: '16505550040' }, 1)]);
    const send = sendOf('batch', 'c-batch');
    const batch = [
      send('a', '+16505550040', 10),
      send('b', '+16505550041', 11),
      send('c', '+16505550042', 12),
      send('d', '+16505550041', 13),
      send('e', 'US.2002', 14),
      send('f', '+16505550043', 15, { recipient: 'US.2003' }),
    ];
    await insertAccepted(db, batch);
    const linked = await store.linkSends(batch);
    expect(linked.size).toBe(6);
    const contacts = (await store.listContacts('t1', 'c-batch', { limit: 10 })).items;
    // the known user, two new numbers, the BSUID, and the send naming both a number and a BSUID
    expect(contacts).toHaveLength(5);
    const byWa = new Map(contacts.map((c) => [c.wa_id ?? c.user_id, c]));
    expect(linked.get('wamid.batch-a')).toBe(byWa.get('16505550040')!.id);
    expect(linked.get('wamid.batch-b')).toBe(linked.get('wamid.batch-d'));
    expect(byWa.get('16505550041')!.last_message_id).toBe('wamid.batch-d');
    expect(byWa.get('US.2002')!.last_message_id).toBe('wamid.batch-e');
    expect(byWa.get('16505550043')).toMatchObject({ user_id: 'US.2003', last_message_id: 'wamid.batch-f' });
    const log = await store.listMessages('t1', 'c-batch', { limit: 20 });
    for (const m of log.items.filter((x) => x.id.startsWith('wamid.batch-'))) {
      expect(m.contact_id).toBe(linked.get(m.id));
      expect(m.text).toBe(`template ${m.id.slice('wamid.batch-'.length)}`);
    }
    // linked again (a retry): nothing changes
    expect(await store.linkSends(batch)).toEqual(linked);
    expect((await store.listContacts('t1', 'c-batch', { limit: 10 })).items).toHaveLength(5);
  });

  it('a batch stored with its contacts at once (contactsForSends, then insertAccepted: one write of each row) links as linkSends does', async () => {
    await store.storeLogged([inbound('c-first', { waId: '16505550050' }, 1)]);
    const send = sendOf('first', 'c-first');
    const batch = [
      send('a', '+16505550050', 10),
      send('b', '+16505550051', 11),
      send('c', '+16505550052', 12),
      send('d', '+16505550051', 13),
      send('e', 'US.2012', 14),
      send('f', '+16505550053', 15, { recipient: 'US.2013' }),
    ];
    const linked = await db.tx(async (q) => {
      const contacts = await store.contactsForSends(batch, q);
      await insertAccepted(q, batch, contacts);
      return contacts;
    });
    expect(linked.size).toBe(6);
    const contacts = (await store.listContacts('t1', 'c-first', { limit: 10 })).items;
    expect(contacts).toHaveLength(5);
    const byWa = new Map(contacts.map((c) => [c.wa_id ?? c.user_id, c]));
    expect(linked.get('wamid.first-a')).toBe(byWa.get('16505550050')!.id);
    expect(byWa.get('16505550050')).toMatchObject({ last_message_id: 'wamid.first-a', last_activity_at: at(10) });
    expect(linked.get('wamid.first-b')).toBe(linked.get('wamid.first-d'));
    expect(byWa.get('16505550051')).toMatchObject({ last_message_id: 'wamid.first-d', last_activity_at: at(13) });
    expect(byWa.get('US.2012')!.last_message_id).toBe('wamid.first-e');
    expect(byWa.get('16505550053')).toMatchObject({ user_id: 'US.2013', last_message_id: 'wamid.first-f' });
    const log = await store.listMessages('t1', 'c-first', { limit: 20 });
    for (const m of log.items.filter((x) => x.id.startsWith('wamid.first-'))) {
      expect(m.contact_id).toBe(linked.get(m.id));
      expect(m.text).toBe(`template ${m.id.slice('wamid.first-'.length)}`);
    }
    // a send stored before without its contact (a failed link) gets it when stored again; nothing else changes
    const lone = send('g', '+16505550054', 16);
    await insertAccepted(db, [lone]);
    const again = await db.tx(async (q) => {
      const c = await store.contactsForSends([lone, ...batch], q);
      await insertAccepted(q, [lone, ...batch], c);
      return c;
    });
    expect(Object.fromEntries([...again].filter(([id]) => id !== lone.id))).toEqual(Object.fromEntries(linked));
    const g = (await store.listMessages('t1', 'c-first', { limit: 20 })).items.find((m) => m.id === lone.id);
    expect(g).toMatchObject({ contact_id: again.get(lone.id), text: 'template g' });
    expect((await store.listContacts('t1', 'c-first', { limit: 10 })).items).toHaveLength(6);
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

  it('lists on either store: filters, text search, cursors without repeats, the thread with its reactions', async () => {
    const who = { waId: '16505550005', userId: 'US.1005' };
    const texts = ['Where is my parcel?', 'The box arrived broken', 'thanks a lot'];
    const ins = texts.map((text, i) => inbound('c5', who, 100 + i, { text }));
    await store.storeLogged(ins);
    const send = { id: 'wamid.send-c5', tenantId: 't1', clientId: 'c5', recipient: 'US.1005', kind: 'text', at: at(110), text: 'sorry about the box' };
    await insertAccepted(db, [send]);
    await store.linkSends([send]);
    const reaction = inbound('c5', who, 111, { kind: 'reaction', text: '👍', contextId: send.id });
    await store.storeLogged([reaction]);
    const ids = async (f: Parameters<SqlConversations['listMessages']>[2]) => (await store.listMessages('t1', 'c5', f)).items.map((m) => m.id);
    expect(await ids({ limit: 10 })).toEqual([reaction.id, send.id, ins[2].id, ins[1].id, ins[0].id]);
    expect(await ids({ limit: 10, direction: 'out' })).toEqual([send.id]);
    expect(await ids({ limit: 10, kind: 'reaction' })).toEqual([reaction.id]);
    expect(await ids({ limit: 10, status: 'received', since: at(101), until: at(102) })).toEqual([ins[1].id]);
    // words on PostgreSQL (full-text, any order), a substring on PGlite: both find these
    expect(await ids({ limit: 10, q: 'box' })).toEqual([send.id, ins[1].id]);
    expect(await ids({ limit: 10, q: 'PARCEL' })).toEqual([ins[0].id]);
    expect(await ids({ limit: 10, q: 'nowhere' })).toEqual([]);
    // pages of two by cursor: every message once, in order
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.listMessages('t1', 'c5', { limit: 2, cursor });
      seen.push(...page.items.map((m) => m.id));
      cursor = page.nextCursor;
    } while (cursor);
    expect(seen).toEqual(await ids({ limit: 10 }));
    // the send by BSUID is on the contact; the thread leaves the reaction out and attaches it to the send
    const [conv] = (await store.listConversations('t1', 'c5', { limit: 10 })).items;
    expect([conv.last_message?.id, conv.unread]).toEqual([send.id, 3]);
    const thread = await store.thread('t1', 'c5', conv.contact.id, { limit: 2 });
    expect(thread.items.map((m) => m.id)).toEqual([send.id, ins[2].id]);
    expect(thread.items[0].reactions).toEqual([{ emoji: '👍', from: '16505550005', message_id: reaction.id, at: at(111) }]);
    const rest = await store.thread('t1', 'c5', conv.contact.id, { limit: 2, cursor: thread.nextCursor });
    expect(rest.items.map((m) => m.id)).toEqual([ins[1].id, ins[0].id]);
    // another tenant sees nothing
    expect((await store.listMessages('t2', 'c5', { limit: 10 })).items).toEqual([]);
    expect((await store.thread('t2', 'c5', conv.contact.id, { limit: 10 })).items).toEqual([]);
  });

  it('a contact is opted out by an entry of any identity it has or had, or of its parent BSUID: the earliest', async () => {
    const who = { waId: '16505550006', userId: 'US.1006', parentUserId: 'US.ENT.2006' };
    await store.storeLogged([inbound('c6', who, 200)]);
    await store.storeLogged([inbound('c6', { waId: '16505550066' }, 201)]);
    const [contact] = (await store.listContacts('t1', 'c6', { limit: 10 })).items.filter((c) => c.wa_id === '16505550006');
    await store.changeIdentity('c6', contact.id, { previous: { waId: '16505550006' }, newWaId: '16505550096' });
    const optedOut = async () => (await store.getContact('t1', 'c6', contact.id))!.opt_out;
    const optOut = (user: string, source: string, s: number) =>
      db.query('INSERT INTO opt_outs (client_id, user_id, source, created_at) VALUES ($1, $2, $3, $4)', ['c6', user, source, at(s)]);
    const clear = () => db.query("DELETE FROM opt_outs WHERE client_id = 'c6'");
    expect(await optedOut()).toBeNull();
    for (const [user, source] of [
      ['16505550006', 'api'], // the former number (an alias)
      ['16505550096', 'stop_keyword'], // the current number
      ['US.1006', 'user_preferences'], // the BSUID
      ['US.ENT.2006', 'provider_131050'], // the parent BSUID
    ]) {
      await optOut(user, source, 300);
      expect(await optedOut()).toEqual({ at: at(300), source });
      await clear();
    }
    // several: the earliest; another client's entry or another user's counts not
    await optOut('US.1006', 'api', 320);
    await optOut('16505550096', 'stop_keyword', 310);
    await db.query("INSERT INTO opt_outs (client_id, user_id, source) VALUES ('c1', '16505550096', 'api')");
    expect(await optedOut()).toEqual({ at: at(310), source: 'stop_keyword' });
    const listed = (await store.listContacts('t1', 'c6', { limit: 10 })).items;
    expect(listed.map((c) => [c.wa_id, c.opt_out?.source ?? null])).toEqual([
      ['16505550066', null],
      ['16505550096', 'stop_keyword'],
    ]);
    const convs = (await store.listConversations('t1', 'c6', { limit: 10 })).items;
    expect(convs.find((c) => c.contact.id === contact.id)!.contact.opt_out).toEqual({ at: at(310), source: 'stop_keyword' });
  });

  it('counts messages per UTC day by direction and status, of a client or the tenant', async () => {
    const day = (d: number, h: number) => new Date(Date.UTC(2026, 2, d, h));
    await store.storeLogged([
      inbound('c7', { waId: '16505550007' }, 0, { at: day(1, 23) }),
      inbound('c7', { waId: '16505550007' }, 0, { at: day(2, 0) }),
      inbound('c8', { waId: '16505550008' }, 0, { at: day(2, 1), tenantId: 't1' }),
    ]);
    await insertAccepted(db, [{ id: 'wamid.send-c7', tenantId: 't1', clientId: 'c7', to: '+16505550007', kind: 'text', at: day(2, 5) }]);
    expect(await store.countByDay('t1', 'c7', '2026-03-01', '2026-03-02')).toEqual([
      { day: '2026-03-01', direction: 'in', status: 'received', count: 1 },
      { day: '2026-03-02', direction: 'in', status: 'received', count: 1 },
      { day: '2026-03-02', direction: 'out', status: 'accepted', count: 1 },
    ]);
    expect(await store.countByDay('t1', undefined, '2026-03-02', '2026-03-02')).toEqual([
      { day: '2026-03-02', direction: 'in', status: 'received', count: 2 },
      { day: '2026-03-02', direction: 'out', status: 'accepted', count: 1 },
    ]);
    expect(await store.countByDay('t2', undefined, '2026-03-01', '2026-03-02')).toEqual([]);
  });
});
