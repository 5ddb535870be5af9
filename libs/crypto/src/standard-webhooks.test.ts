import { Webhook } from 'standardwebhooks';
import { newWebhookSecret, standardWebhookSignature } from './index';

describe('Standard Webhooks signatures', () => {
  const body = '{"type":"test","client_id":"c","external_id":null,"payload":{"test":true}}';
  const now = () => Math.floor(Date.now() / 1000);

  it('a new secret is taken as it is by the reference library, which verifies our signature', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const ts = now();
    const headers = { 'webhook-id': 'evt-1', 'webhook-timestamp': String(ts), 'webhook-signature': standardWebhookSignature([secret], 'evt-1', ts, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign('evt-1', new Date(ts * 1000), body));
  });

  it('one entry per live secret, space-separated; a receiver holding either secret verifies', () => {
    const [old, next] = [newWebhookSecret(), newWebhookSecret()];
    const ts = now();
    const sig = standardWebhookSignature([next, old], 'evt-2', ts, body);
    expect(sig.split(' ')).toHaveLength(2);
    const headers = { 'webhook-id': 'evt-2', 'webhook-timestamp': String(ts), 'webhook-signature': sig };
    expect(() => new Webhook(old).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(next).verify(body, headers)).not.toThrow();
    expect(() => new Webhook(newWebhookSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(old).verify(body.replace('true', 'false'), headers)).toThrow();
    expect(() => new Webhook(old).verify(body, { ...headers, 'webhook-timestamp': String(ts + 1) })).toThrow();
  });

  it('a secret issued in the earlier base64url form signs with its decoded bytes (its standard base64 form verifies)', () => {
    const bytes = Buffer.from('fb-ff-fe-7c'.repeat(4) + 'abcdefghijkl');
    const legacy = `whsec_${bytes.toString('base64url')}`;
    const ts = now();
    const headers = { 'webhook-id': 'evt-3', 'webhook-timestamp': String(ts), 'webhook-signature': standardWebhookSignature([legacy], 'evt-3', ts, body) };
    expect(() => new Webhook(`whsec_${bytes.toString('base64')}`).verify(body, headers)).not.toThrow();
  });
});
