import type { ApiClient, Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';
import { allRecipients, campaignUntil, campaignWorld, type SimPhone } from './testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/*
 * Campaign recipients by business-scoped user id (issue 26; provider-2026.md §2): `{recipient, parameters}` in JSON
 * and a `recipient` CSV column, sent with the provider's `recipient` field (no `to`), each user once, and the
 * client's opt-outs by BSUID (the API, the `user_preferences` webhook of a user whose number is withheld) honoured.
 */
describe('campaigns: recipients by BSUID', () => {
  let stack: Stack;
  let sim: SimControl;
  let api: ApiClient;
  let clientId: string;
  let phone: SimPhone;

  beforeAll(async () => {
    ({ stack, sim, api, clientId, phone } = await campaignWorld());
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('sends to BSUIDs from JSON and CSV with the recipient field, once each, skipping the opted-out ones', async () => {
    // users whose phone number the business never sees
    const [a, b, c, d, e] = await Promise.all(Array.from({ length: 5 }, async () => (await sim.createUser(phone.phone_number_id)).user_id));
    const byPhone = '+16505557001';
    expect((await api.post(`/api/clients/${clientId}/opt-outs`, { users: [c] })).json).toEqual({ added: 1 });
    await sim.userPreferences(phone.phone_number_id, d, 'stop');
    const listed = async () => ((await api.get(`/api/clients/${clientId}/opt-outs?limit=100`)).json as any).data.map((o: any) => [o.user, o.source]);
    await waitFor(async () => (await listed()).some(([u]: string[]) => u === d), { what: "the BSUID's stop applied", timeoutMs: 20_000 });
    expect((await listed()).sort()).toEqual(
      [
        [c, 'api'],
        [d, 'user_preferences'],
      ].sort(),
    );

    const p = (name: string) => ({ first_name: name });
    const created = await api.post('/api/campaigns', {
      client_id: clientId,
      name: 'By BSUID',
      template_name: 'spring_promo',
      lang: 'en_US',
      recipients: [
        { recipient: a, parameters: p('A') },
        { recipient: b, parameters: p('B') },
        { recipient: a, parameters: p('A again') },
        { recipient: c, parameters: p('C') },
        { to: byPhone, parameters: p('P') },
      ],
    });
    expect([created.status, (created.json as any).counts.total]).toEqual([201, 4]);
    const id = (created.json as any).id;
    const csv = await fetch(`${stack.baseUrl}/api/campaigns/${id}/recipients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'text/csv' },
      body: `recipient,first_name\n${b},B\n${d},D\n${e},E\n`,
    });
    expect([csv.status, await csv.json()]).toEqual([200, { added: 2, duplicates: 1, total: 6 }]);
    // neither a phone number nor a BSUID: a 422 naming the field or the line
    const bad = await api.post(`/api/campaigns/${id}/recipients`, { recipients: [{ recipient: 'not-a-bsuid', parameters: p('X') }] });
    expect([bad.status, (bad.json as any).detail[0].loc]).toEqual([422, ['body', 'recipients', '0', 'recipient']]);
    const none = await api.post(`/api/campaigns/${id}/recipients`, { recipients: [{ parameters: p('X') }] });
    expect(none.status).toBe(422);
    const badCsv = await fetch(`${stack.baseUrl}/api/campaigns/${id}/recipients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'text/csv' },
      body: `recipient,first_name\nnobody,X\n`,
    });
    expect([badCsv.status, ((await badCsv.json()) as any).detail[0].loc]).toEqual([422, ['body', 'line', '2']]);

    expect((await api.post(`/api/campaigns/${id}/start`, {})).status).toBe(200);
    const done = await campaignUntil(api, id, (x) => x.status === 'completed', 'the campaign completed', 60_000);
    expect(done.counts).toMatchObject({ total: 6, skipped: 2, failed: 0, unknown: 0 });
    const rows = new Map((await allRecipients(api, id)).map((r) => [r.to, r]));
    for (const u of [c, d]) expect(rows.get(u)).toMatchObject({ status: 'skipped', reason: 'opted_out', message_id: null });
    for (const u of [a, b, e, byPhone.slice(1)]) expect(['delivered', 'read']).toContain(rows.get(u).status);

    // the provider got each BSUID in `recipient` (no `to`), the phone number in `to`
    const bodies = (await sim.calls(`/${phone.phone_number_id}/messages`)).map((x) => x.body as any).filter((x) => x.type === 'template');
    const users = bodies.map((x) => x.recipient ?? x.to);
    expect(users.sort()).toEqual([a, b, e, byPhone].sort());
    expect(bodies.filter((x) => x.recipient).every((x) => x.to === undefined)).toBe(true);
    expect(bodies.find((x) => x.to === byPhone)?.recipient).toBeUndefined();
  }, 120_000);
});
