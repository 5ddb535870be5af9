import { splitByClient, type ChangeTarget } from './split';
import { parseWebhookBody, type ParsedWebhook } from './webhook-body';

const change = (pn: string, text: string) => ({
  field: 'messages',
  value: {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: '1555', phone_number_id: pn },
    messages: [{ id: `wamid.${text}`, type: 'text', text: { body: text } }],
  },
});
const clients: Record<string, Array<{ id: string }>> = { 'pn:pnA': [{ id: 'A' }], 'pn:pnB': [{ id: 'B' }], 'waba:w1': [{ id: 'A' }, { id: 'C' }] };
const lookup = (t: ChangeTarget) => clients['phoneNumberId' in t ? `pn:${t.phoneNumberId}` : `waba:${t.businessAccountId}`] ?? [];

describe('splitting a provider body by client', () => {
  it('forwards the raw bytes, whitespace and key order included, when the whole body concerns one client', () => {
    const raw = `{ "object":"whatsapp_business_account",\n "entry":[{"id":"w1","changes":[${JSON.stringify(change('pnA', 'hi'))}]}]}`;
    const { shares, unrouted } = splitByClient(raw, (parseWebhookBody(raw) as ParsedWebhook).body, lookup);
    expect(shares).toHaveLength(1);
    expect(shares[0]).toMatchObject({ client: { id: 'A' }, whole: true });
    expect(shares[0].body).toBe(raw);
    expect(unrouted).toEqual([]);
  });

  it('gives each client only its own entries and changes, in the same shape, when a body mixes accounts', () => {
    const body = {
      object: 'whatsapp_business_account',
      entry: [
        { id: 'w1', time: 1, changes: [change('pnA', 'a1'), change('pnB', 'b1')] },
        { id: 'w2', changes: [change('pnB', 'b2'), change('pnX', 'x')] },
      ],
    };
    const raw = JSON.stringify(body);
    const { shares, unrouted } = splitByClient(raw, (parseWebhookBody(raw) as ParsedWebhook).body, lookup);
    const byId = Object.fromEntries(shares.map((s) => [s.client.id, s]));
    expect(byId.A.whole).toBe(false);
    expect(JSON.parse(byId.A.body)).toEqual({ object: 'whatsapp_business_account', entry: [{ id: 'w1', time: 1, changes: [change('pnA', 'a1')] }] });
    expect(JSON.parse(byId.B.body)).toEqual({
      object: 'whatsapp_business_account',
      entry: [
        { id: 'w1', time: 1, changes: [change('pnB', 'b1')] },
        { id: 'w2', changes: [change('pnB', 'b2')] },
      ],
    });
    expect(unrouted).toHaveLength(1);
  });

  it('sends a change without a phone number (template status) to every client of the business account', () => {
    const raw = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [{ id: 'w1', changes: [{ field: 'message_template_status_update', value: { event: 'APPROVED' } }] }],
    });
    const { shares } = splitByClient(raw, (parseWebhookBody(raw) as ParsedWebhook).body, lookup);
    expect(shares.map((s) => [s.client.id, s.whole, s.body === raw])).toEqual([
      ['A', true, true],
      ['C', true, true],
    ]);
  });

  it('refuses bodies that are not webhook envelopes', () => {
    expect(parseWebhookBody('not json')).toEqual({ unusable: 'body is not JSON' });
    expect(parseWebhookBody('{"entry":{}}')).toHaveProperty('unusable');
    expect(parseWebhookBody('[]')).toHaveProperty('unusable');
    expect(parseWebhookBody(`{"entry":[${'['.repeat(100)}${']'.repeat(100)}]}`)).toEqual({ unusable: 'body is nested deeper than 64 levels' });
  });
});
