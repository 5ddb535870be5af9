import { startStack, type Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';
import { tenantWithClient, type TenantClient } from './world';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/**
 * Issue 27: the message log, contacts, conversations and threads through the whole stack (simulator → edge →
 * JetStream → messaging's tables → edge API). Runs on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
describe('message log, contacts, conversations and threads', () => {
  let stack: Stack;
  let sim: SimControl;
  let a: TenantClient;
  let b: TenantClient;
  const user = '16505550101';
  const ids: { text?: string; image?: string; imageMedia?: string; sent?: string; reaction?: string } = {};

  const list = async (query: string) => {
    const res = await a.api.get<any>(`/api/messages?client_id=${a.clientId}${query}`);
    expect(res.status).toBe(200);
    return res.json;
  };

  beforeAll(async () => {
    stack = await startStack();
    sim = new SimControl(stack.sim!.url);
    await sim.autoStatuses(false);
    a = await tenantWithClient(stack, 'Acme');
    b = await tenantWithClient(stack, 'Other');
    ids.text = (await sim.inboundMessage(a.phone.phone_number_id, user, 'text', { body: 'Hello, where is my parcel?' })).wamid;
    await waitFor(async () => (await list('')).data.length === 1, { what: 'the inbound text logged' });
    const image = await sim.inboundMedia(a.phone.phone_number_id, user, 'image', { caption: 'the broken box' });
    ids.image = image.wamid;
    ids.imageMedia = image.media_id;
    await waitFor(async () => (await list('')).data.length === 2, { what: 'the inbound image logged' });
    const sent = await a.api.post('/api/messaging/send-text', { client_id: a.clientId, to: `+${user}`, text: 'It ships today' });
    expect(sent.status).toBe(200);
    ids.sent = sent.headers.get('x-message-id')!;
    await sim.sendStatuses(ids.sent, ['sent', 'delivered']);
    await waitFor(async () => (await a.api.get<any>(`/api/messages/${ids.sent}?client_id=${a.clientId}`)).json.status === 'delivered', {
      what: 'the send delivered',
    });
    ids.reaction = (await sim.inboundMessage(a.phone.phone_number_id, user, 'reaction', { message_id: ids.sent, emoji: '👍' })).wamid;
    await waitFor(async () => (await list('')).data.length === 4, { what: 'the reaction logged' });
  }, 300_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('the log holds the inbound text, image and reaction and the send with its statuses, newest first', async () => {
    const page = await list('');
    expect(page.data.map((m: any) => m.id)).toEqual([ids.reaction, ids.sent, ids.image, ids.text]);
    const [reaction, sent, image, text] = page.data;
    expect(text).toMatchObject({ direction: 'in', kind: 'text', status: 'received', from: user, text: 'Hello, where is my parcel?' });
    expect(text.content).toMatchObject({ id: ids.text, type: 'text', text: { body: 'Hello, where is my parcel?' } });
    expect(image).toMatchObject({ direction: 'in', kind: 'image', text: 'the broken box', content: { image: { id: ids.imageMedia } } });
    expect(reaction).toMatchObject({ direction: 'in', kind: 'reaction', text: '👍', context_id: ids.sent });
    expect(sent).toMatchObject({ direction: 'out', kind: 'text', status: 'delivered', to: `+${user}`, text: 'It ships today', content: null });
    expect(sent.status_history.map((h: any) => h.status)).toEqual(['accepted', 'sent', 'delivered']);
    // every message is with the one contact
    expect(new Set(page.data.map((m: any) => m.contact_id)).size).toBe(1);
    expect(text.contact_id).toEqual(expect.any(String));
    // GET /api/messages/{id} answers inbound messages too
    const one = await a.api.get<any>(`/api/messages/${ids.image}?client_id=${a.clientId}`);
    expect([one.status, one.json.direction, one.json.kind]).toEqual([200, 'in', 'image']);
  });

  it('filters: direction, status, type, contact, time and text', async () => {
    const idsOf = async (q: string) => (await list(q)).data.map((m: any) => m.id);
    expect(await idsOf('&direction=in')).toEqual([ids.reaction, ids.image, ids.text]);
    expect(await idsOf('&direction=out')).toEqual([ids.sent]);
    expect(await idsOf('&status=delivered')).toEqual([ids.sent]);
    expect(await idsOf('&status=received&type=image')).toEqual([ids.image]);
    expect(await idsOf('&type=reaction')).toEqual([ids.reaction]);
    const contact = (await list('')).data[0].contact_id;
    expect(await idsOf(`&contact_id=${contact}`)).toHaveLength(4);
    expect(await idsOf(`&contact_id=00000000-0000-4000-8000-000000000000`)).toEqual([]);
    expect(await idsOf('&q=parcel')).toEqual([ids.text]);
    expect(await idsOf('&q=PARCEL')).toEqual([ids.text]);
    expect(await idsOf('&q=nothing-like-this')).toEqual([]);
    const texts = (await list('')).data;
    const sentAt = texts.find((m: any) => m.id === ids.sent).created_at;
    expect(await idsOf(`&since=${encodeURIComponent(sentAt)}`)).toEqual([ids.reaction, ids.sent]);
    expect(await idsOf(`&until=${encodeURIComponent(sentAt)}`)).toEqual([ids.image, ids.text]);
    const bad = await a.api.get<any>(`/api/messages?client_id=${a.clientId}&direction=sideways&status=lost`);
    expect(bad.status).toBe(422);
    expect(bad.json.detail.map((d: any) => d.loc.join('.')).sort()).toEqual(['query.direction', 'query.status']);
  });

  it('cursors page through the log without repeats or gaps; a forged cursor is a 422', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: any = await list(`&limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...page.data.map((m: any) => m.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect([pages, seen]).toEqual([4, [ids.reaction, ids.sent, ids.image, ids.text]]);
    const filtered = await list('&direction=in&limit=2');
    const next = await list(`&direction=in&limit=2&cursor=${encodeURIComponent(filtered.next_cursor)}`);
    expect([...filtered.data, ...next.data].map((m: any) => m.id)).toEqual([ids.reaction, ids.image, ids.text]);
    expect(next.next_cursor).toBeNull();
    expect((await a.api.get(`/api/messages?client_id=${a.clientId}&cursor=forged`)).status).toBe(422);
  });

  it('the contact has the identity, profile name, first and last seen, and an open 24-hour window', async () => {
    const contacts = await a.api.get<any>(`/api/contacts?client_id=${a.clientId}`);
    expect(contacts.status).toBe(200);
    expect(contacts.json.data).toHaveLength(1);
    const c = contacts.json.data[0];
    // the provider names every user by a business-scoped user id too since April 2026 (provider-2026.md §2)
    expect(c).toMatchObject({ wa_id: user, user_id: expect.stringMatching(/^[A-Z]{2}\.\d+$/), profile_name: 'Test User', window_open: true, aliases: [] });
    expect(Date.parse(c.window_open_until) - Date.parse(c.last_seen_at)).toBe(24 * 3600_000);
    expect(Date.parse(c.first_seen_at)).toBeLessThanOrEqual(Date.parse(c.last_seen_at));
    const one = await a.api.get<any>(`/api/contacts/${c.id}?client_id=${a.clientId}`);
    expect(one.json).toEqual(c);
    expect((await a.api.get<any>(`/api/contacts?client_id=${a.clientId}&q=test us`)).json.data).toHaveLength(1);
    expect((await a.api.get<any>(`/api/contacts?client_id=${a.clientId}&q=0101`)).json.data).toHaveLength(1);
    expect((await a.api.get<any>(`/api/contacts?client_id=${a.clientId}&q=nobody`)).json.data).toHaveLength(0);
  });

  it('the conversation shows the last message and unread count; mark-read clears it; the thread attaches the reaction', async () => {
    const convs = await a.api.get<any>(`/api/conversations?client_id=${a.clientId}`);
    expect(convs.status).toBe(200);
    expect(convs.json.data).toHaveLength(1);
    const conv = convs.json.data[0];
    // the reaction is no message of its own in the conversation: the last one is the send, the unread ones the text and image
    expect([conv.last_message.id, conv.unread, conv.contact.window_open]).toEqual([ids.sent, 2, true]);

    const thread = await a.api.get<any>(`/api/conversations/${conv.contact.id}/messages?client_id=${a.clientId}&limit=2`);
    expect(thread.status).toBe(200);
    expect(thread.json.data.map((m: any) => m.id)).toEqual([ids.sent, ids.image]);
    expect(thread.json.data[0].reactions).toEqual([{ emoji: '👍', from: user, message_id: ids.reaction, at: expect.any(String) }]);
    expect(thread.json.data[0].status_history.map((h: any) => h.status)).toEqual(['accepted', 'sent', 'delivered']);
    const rest = await a.api.get<any>(
      `/api/conversations/${conv.contact.id}/messages?client_id=${a.clientId}&limit=2&cursor=${encodeURIComponent(thread.json.next_cursor)}`,
    );
    expect([rest.json.data.map((m: any) => m.id), rest.json.next_cursor]).toEqual([[ids.text], null]);

    const read = await a.api.post<any>(`/api/conversations/${conv.contact.id}/read?client_id=${a.clientId}`);
    expect([read.status, read.json.unread]).toEqual([200, 0]);
    expect((await a.api.get<any>(`/api/conversations?client_id=${a.clientId}`)).json.data[0].unread).toBe(0);
    const later = (await sim.inboundMessage(a.phone.phone_number_id, user, 'text', { body: 'thanks' })).wamid;
    const after = await waitFor(
      async () => {
        const c = (await a.api.get<any>(`/api/conversations?client_id=${a.clientId}`)).json.data[0];
        return c.last_message?.id === later ? c : undefined;
      },
      { what: 'the new message last in the conversation' },
    );
    expect(after.unread).toBe(1);
  });

  it('GET /api/stats counts the log per day by direction and status, and the webhook deliveries by outcome', async () => {
    const today = new Date().toISOString().slice(0, 10);
    // a failed send and a test event, so every kind of count has something
    const failed = await a.api.post('/api/messaging/send-text', { client_id: a.clientId, to: `+${user}`, text: 'this one fails' });
    await sim.sendStatuses(failed.headers.get('x-message-id')!, ['failed']);
    await waitFor(async () => (await list('&status=failed')).data.length === 1, { what: 'the failed send' });
    expect((await a.api.post(`/api/clients/${a.clientId}/webhook/test`)).status).toBeLessThan(300);
    const tally = (rows: any[], key: (r: any) => string) => {
      const out: Record<string, number> = {};
      for (const r of rows) out[key(r)] = (out[key(r)] ?? 0) + 1;
      return out;
    };
    const logged = tally((await list('&limit=100')).data, (m) => `${m.direction}/${m.status}`);
    const counted = (stats: any) =>
      Object.fromEntries(stats.messages.filter((c: any) => c.day === today).map((c: any) => [`${c.direction}/${c.status}`, c.count]));
    const stats = await waitFor(
      async () => {
        const res = await a.api.get<any>(`/api/stats?client_id=${a.clientId}`);
        expect(res.status).toBe(200);
        const deliveries = (await a.api.get<any>(`/api/clients/${a.clientId}/webhook/deliveries?limit=100`)).json.data;
        const outcomes = Object.fromEntries(res.json.deliveries.filter((c: any) => c.day === today).map((c: any) => [c.status, c.count]));
        return deliveries.length > 0 && JSON.stringify(outcomes) === JSON.stringify(tally(deliveries, (d) => d.status)) ? res.json : undefined;
      },
      { what: 'the deliveries counted', timeoutMs: 30_000 },
    );
    expect(counted(stats)).toEqual(logged);
    expect(logged).toMatchObject({ 'in/received': expect.any(Number), 'out/delivered': 1, 'out/failed': 1 });
    expect(stats).toMatchObject({ client_id: a.clientId, to: today });
    expect(Date.parse(stats.to) - Date.parse(stats.from)).toBe(13 * 86_400_000);
    // the tenant's every client (A has one), and a shorter span
    const tenant = await a.api.get<any>('/api/stats?days=1');
    expect([tenant.status, tenant.json.client_id, tenant.json.from, counted(tenant.json)]).toEqual([200, null, today, logged]);
    // another tenant: a 404 for A's client, nothing of A in its own counts; a span out of bounds is a 422
    expect((await b.api.get(`/api/stats?client_id=${a.clientId}`)).status).toBe(404);
    expect((await b.api.get<any>('/api/stats')).json.messages).toEqual([]);
    const bad = await a.api.get<any>(`/api/stats?client_id=${a.clientId}&days=0`);
    expect([bad.status, bad.json.detail[0].loc]).toEqual([422, ['query', 'days']]);
  });

  it('another tenant gets 404 for every id of this client and sees nothing of it in its own lists', async () => {
    const contactId = (await a.api.get<any>(`/api/contacts?client_id=${a.clientId}`)).json.data[0].id;
    for (const path of [
      `/api/messages?client_id=${a.clientId}`,
      `/api/messages/${ids.text}?client_id=${a.clientId}`,
      `/api/messages/${ids.text}?client_id=${b.clientId}`,
      `/api/contacts?client_id=${a.clientId}`,
      `/api/contacts/${contactId}?client_id=${a.clientId}`,
      `/api/contacts/${contactId}?client_id=${b.clientId}`,
      `/api/conversations?client_id=${a.clientId}`,
      `/api/conversations/${contactId}/messages?client_id=${a.clientId}`,
      `/api/conversations/${contactId}/messages?client_id=${b.clientId}`,
    ]) {
      const res = await b.api.get<any>(path);
      expect([path, res.status]).toEqual([path, 404]);
    }
    expect((await b.api.post(`/api/conversations/${contactId}/read?client_id=${a.clientId}`)).status).toBe(404);
    expect((await b.api.post(`/api/conversations/${contactId}/read?client_id=${b.clientId}`)).status).toBe(404);
    expect((await b.api.get<any>(`/api/messages?client_id=${b.clientId}`)).json.data).toEqual([]);
    expect((await b.api.get<any>(`/api/contacts?client_id=${b.clientId}`)).json.data).toEqual([]);
    expect((await b.api.get<any>(`/api/conversations?client_id=${b.clientId}`)).json.data).toEqual([]);
    // a cursor of tenant A's list is not one of tenant B's
    const cursor = (await list('&limit=1')).next_cursor;
    expect((await b.api.get(`/api/messages?client_id=${b.clientId}&cursor=${encodeURIComponent(cursor)}`)).status).toBe(422);
  });
});
