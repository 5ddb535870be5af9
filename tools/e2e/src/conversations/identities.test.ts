import { startStack, type Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';
import { messagesBody, postRaw, tenantWithClient, type TenantClient } from './world';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/**
 * Issue 27: a contact keeps every identity the provider gives (provider-2026.md §2: phone `wa_id`, BSUID
 * `user_id`, parent BSUID, username), and `user_changed_number` / `user_changed_user_id` system messages keep
 * the history on one contact, the old identity kept as an alias. Through the whole stack, on PGlite, and on
 * PostgreSQL when TEST_DATABASE_URL is set.
 */
describe('contacts with every identity, across number and BSUID changes', () => {
  let stack: Stack;
  let a: TenantClient;
  const oldPhone = '16505550201';
  const newPhone = '16505550299';
  const bsuid = 'US.13491208655302741918';
  const newBsuid = 'US.99991208655302741918';
  const parent = 'US.ENT.11815799212886844830';
  let seq = 0;
  const text = (from: Record<string, string>, body: string) => ({
    ...from,
    id: `wamid.identity-${++seq}`,
    timestamp: String(Math.floor(Date.now() / 1000)),
    type: 'text',
    text: { body },
  });
  const logged = async () => (await a.api.get<any>(`/api/messages?client_id=${a.clientId}&direction=in`)).json.data;
  const contacts = async (q = '') => (await a.api.get<any>(`/api/contacts?client_id=${a.clientId}${q}`)).json.data;

  // a stack on a loaded 2-core machine, on PGlite too: minutes, not seconds
  beforeAll(async () => {
    stack = await startStack();
    a = await tenantWithClient(stack, 'Ids');
  }, 300_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('the first message brings phone, BSUID, parent BSUID, username and profile name', async () => {
    await postRaw(
      stack,
      messagesBody(a.phone, {
        contacts: [{ profile: { name: 'Sheena Nelson', username: '@realsheena' }, wa_id: oldPhone, user_id: bsuid, parent_user_id: parent }],
        messages: [text({ from: oldPhone, from_user_id: bsuid, from_parent_user_id: parent }, 'first')],
      }),
    );
    await waitFor(async () => (await logged()).length === 1, { what: 'the first message logged' });
    expect(await contacts()).toEqual([
      expect.objectContaining({
        wa_id: oldPhone,
        user_id: bsuid,
        parent_user_id: parent,
        username: '@realsheena',
        profile_name: 'Sheena Nelson',
        aliases: [],
        window_open: true,
      }),
    ]);
  });

  it('a username adopter without a phone is found by BSUID: the same contact', async () => {
    await postRaw(
      stack,
      messagesBody(a.phone, {
        contacts: [{ profile: { name: 'Sheena Nelson', username: '@realsheena' }, user_id: bsuid }],
        messages: [text({ from_user_id: bsuid }, 'no phone this time')],
      }),
    );
    await waitFor(async () => (await logged()).length === 2, { what: 'the second message logged' });
    const [contact] = await contacts();
    expect(new Set((await logged()).map((m: any) => m.contact_id))).toEqual(new Set([contact.id]));
    expect((await logged())[0].from).toBe(bsuid);
  });

  it('user_changed_number keeps the history on one contact; the old number stays as an alias', async () => {
    await postRaw(
      stack,
      messagesBody(a.phone, {
        messages: [
          {
            from: oldPhone,
            id: `wamid.identity-${++seq}`,
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'system',
            system: { body: `User A changed from ${oldPhone} to ${newPhone}`, wa_id: newPhone, type: 'user_changed_number' },
          },
        ],
      }),
    );
    await waitFor(async () => (await logged()).length === 3, { what: 'the system message logged' });
    // from the new number, with a new BSUID as the provider gives one on a phone change (§2)
    await postRaw(
      stack,
      messagesBody(a.phone, {
        contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: newPhone }],
        messages: [text({ from: newPhone }, 'writing from my new number')],
      }),
    );
    await waitFor(async () => (await logged()).length === 4, { what: 'the message from the new number logged' });
    const all = await contacts();
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ wa_id: newPhone, user_id: bsuid, aliases: [{ kind: 'wa_id', value: oldPhone }] });
    const thread = await a.api.get<any>(`/api/conversations/${all[0].id}/messages?client_id=${a.clientId}`);
    expect(thread.json.data.map((m: any) => m.text)).toEqual([
      'writing from my new number',
      `User A changed from ${oldPhone} to ${newPhone}`,
      'no phone this time',
      'first',
    ]);
    expect(thread.json.data[1]).toMatchObject({ kind: 'system', content: { system: { type: 'user_changed_number' } } });
    // the old number still finds the contact
    expect((await contacts(`&q=${oldPhone}`)).map((c: any) => c.id)).toEqual([all[0].id]);
  });

  it('user_changed_user_id moves the contact to the new BSUID; the old one stays as an alias', async () => {
    await postRaw(
      stack,
      messagesBody(a.phone, {
        messages: [
          {
            from: newPhone,
            from_user_id: bsuid,
            id: `wamid.identity-${++seq}`,
            timestamp: String(Math.floor(Date.now() / 1000)),
            type: 'system',
            system: { body: `User A changed from ${bsuid} to ${newBsuid}`, user_id: newBsuid, parent_user_id: parent, type: 'user_changed_user_id' },
          },
        ],
      }),
    );
    await waitFor(async () => (await logged()).length === 5, { what: 'the BSUID change logged' });
    await postRaw(
      stack,
      messagesBody(a.phone, { contacts: [{ profile: { name: 'Sheena' }, user_id: newBsuid }], messages: [text({ from_user_id: newBsuid }, 'new id')] }),
    );
    await waitFor(async () => (await logged()).length === 6, { what: 'the message of the new BSUID logged' });
    const all = await contacts();
    expect(all).toHaveLength(1);
    expect(all[0]).toMatchObject({ wa_id: newPhone, user_id: newBsuid });
    expect(all[0].aliases).toEqual(
      expect.arrayContaining([
        { kind: 'wa_id', value: oldPhone },
        { kind: 'user_id', value: bsuid },
      ]),
    );
    expect(new Set((await logged()).map((m: any) => m.contact_id))).toEqual(new Set([all[0].id]));
  });

  it('a send by BSUID `recipient` joins the contact of that BSUID, and one to a BSUID that never wrote makes the contact its first message finds', async () => {
    const sim = new SimControl(stack.sim!.url);
    const contactOf = async (id: string) => (await a.api.get<any>(`/api/messages/${id}?client_id=${a.clientId}`)).json.contact_id;
    // a username adopter (no phone shared) writes first, then the business answers by BSUID
    const adopter = await sim.createUser(a.phone.phone_number_id, { username: 'adopter' });
    const wrote = await sim.inboundFromUser(a.phone.phone_number_id, adopter.user_id, 'text', { body: 'hi, no number' });
    await waitFor(async () => !!(await contactOf(wrote.wamid)), { what: 'the adopter on a contact', timeoutMs: 30_000 });
    const contactId = await contactOf(wrote.wamid);
    const sent = await a.api.post<any>('/api/messaging/send-text', { client_id: a.clientId, recipient: adopter.user_id, text: 'by your BSUID' });
    if (sent.status !== 200) throw new Error(`send by BSUID: ${sent.status} ${sent.text}`);
    await waitFor(async () => (await contactOf(sent.headers.get('x-message-id')!)) === contactId, {
      what: 'the send by BSUID on the contact',
      timeoutMs: 30_000,
    });
    const thread = await a.api.get<any>(`/api/conversations/${contactId}/messages?client_id=${a.clientId}`);
    expect(thread.json.data.map((m: any) => [m.direction, m.text])).toEqual([
      ['out', 'by your BSUID'],
      ['in', 'hi, no number'],
    ]);
    expect(thread.json.data[0]).toMatchObject({ id: sent.headers.get('x-message-id')!, to: null, recipient: adopter.user_id });
    // a user the business writes to first, by BSUID: the send makes the contact, the user's first message finds it
    const other = await sim.createUser(a.phone.phone_number_id, { username: 'quiet' });
    const first = await a.api.post<any>('/api/messaging/send-text', { client_id: a.clientId, recipient: other.user_id, text: 'hello first' });
    if (first.status !== 200) throw new Error(`send by BSUID: ${first.status} ${first.text}`);
    await waitFor(async () => !!(await contactOf(first.headers.get('x-message-id')!)), { what: 'the contact of the BSUID send', timeoutMs: 30_000 });
    const made = (await a.api.get<any>(`/api/contacts/${await contactOf(first.headers.get('x-message-id')!)}?client_id=${a.clientId}`)).json;
    expect(made).toMatchObject({ user_id: other.user_id, wa_id: null, last_seen_at: null, window_open: false });
    const answer = await sim.inboundFromUser(a.phone.phone_number_id, other.user_id, 'text', { body: 'hi back' });
    await waitFor(async () => !!(await contactOf(answer.wamid)), { what: 'the answer logged', timeoutMs: 30_000 });
    expect(await contactOf(answer.wamid)).toBe(made.id);
  });

  it('opted out: an opt-out of any identity, former ones included, shows on the contact, its conversation and the list; an inbound STOP too', async () => {
    const [contact] = await contacts(`&q=${newBsuid}`);
    const one = async () => (await a.api.get<any>(`/api/contacts/${contact.id}?client_id=${a.clientId}`)).json;
    const inConversations = async () =>
      (await a.api.get<any>(`/api/conversations?client_id=${a.clientId}`)).json.data.find((c: any) => c.contact.id === contact.id);
    expect(await one()).toMatchObject({ opted_out: false, opted_out_at: null, opted_out_source: null });
    // by the former phone number (an alias), written as the tenant writes numbers
    expect((await a.api.post<any>(`/api/clients/${a.clientId}/opt-outs`, { users: [`+${oldPhone}`] })).json).toEqual({ added: 1 });
    const byApi = await one();
    expect(byApi).toMatchObject({ opted_out: true, opted_out_source: 'api' });
    expect(Date.parse(byApi.opted_out_at)).toBeGreaterThan(Date.now() - 120_000);
    expect((await contacts(`&q=${newBsuid}`))[0]).toMatchObject({ opted_out: true, opted_out_source: 'api' });
    expect((await inConversations()).contact).toMatchObject({ opted_out: true, opted_out_source: 'api' });
    // another contact is not opted out by it
    expect((await contacts()).filter((c: any) => c.opted_out).map((c: any) => c.id)).toEqual([contact.id]);
    expect((await a.api.request<any>('DELETE', `/api/clients/${a.clientId}/opt-outs`, { users: [oldPhone] })).json).toEqual({ removed: 1 });
    expect(await one()).toMatchObject({ opted_out: false });
    // the user writes STOP from the current number: the campaigns' stop keyword puts it on the list
    await postRaw(
      stack,
      messagesBody(a.phone, {
        contacts: [{ profile: { name: 'Sheena' }, wa_id: newPhone, user_id: newBsuid }],
        messages: [text({ from: newPhone, from_user_id: newBsuid }, 'STOP')],
      }),
    );
    await waitFor(async () => (await one()).opted_out === true, { what: 'the STOP on the contact', timeoutMs: 30_000 });
    expect(await one()).toMatchObject({ opted_out: true, opted_out_source: 'stop_keyword' });
    expect((await inConversations()).contact).toMatchObject({ opted_out: true, opted_out_source: 'stop_keyword' });
  });
});
