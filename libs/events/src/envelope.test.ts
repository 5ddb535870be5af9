import { buildEvent } from './envelope';

describe('buildEvent', () => {
  it('builds the spec envelope with routing headers and subject', () => {
    const e = buildEvent({ type: 'test', tenantId: 't1', clientId: 'c1', externalId: null, payload: { test: true }, id: 'e1' });
    expect(JSON.parse(e.body)).toEqual({ type: 'test', client_id: 'c1', external_id: null, payload: { test: true } });
    expect(e.subject).toBe('events.test.t1.c1');
    expect(e.headers).toEqual({ 'X-Event-Id': 'e1', 'X-Event-Type': 'test', 'X-Tenant-Id': 't1', 'X-Client-Id': 'c1' });
  });

  it('splices a raw payload in byte for byte', () => {
    const raw = '{"object":"whatsapp_business_account",  "entry":[{"id":"1"}]}';
    const e = buildEvent({ type: 'chat', tenantId: 't', clientId: 'c', externalId: 'x', payload: { raw } });
    expect(e.body.endsWith(`"payload":${raw}}`)).toBe(true);
    expect(JSON.parse(e.body).external_id).toBe('x');
  });
});
