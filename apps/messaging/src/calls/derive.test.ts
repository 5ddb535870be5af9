import { callUpdates } from './derive';

const iso = (s: number) => new Date(s * 1000).toISOString();

describe("what the provider's webhooks say about calls (provider-2026.md §7.2–7.3)", () => {
  it('a user-initiated connect rings; a terminate carries its status, times, duration and the value errors', () => {
    const connect = { id: 'wacid.A', from: '16505551234', to: '15550783881', event: 'connect', direction: 'USER_INITIATED', timestamp: '1749197000' };
    const terminate = {
      id: 'wacid.A',
      from: '16505551234',
      to: '15550783881',
      event: 'terminate',
      direction: 'USER_INITIATED',
      timestamp: '1749197480',
      status: 'COMPLETED',
      start_time: '1749197360',
      end_time: '1749197480',
      duration: 120,
    };
    const errors = [{ code: 138021, title: 'x' }];
    expect(callUpdates({ field: 'calls', value: { calls: [connect, terminate], errors } })).toEqual([
      { callId: 'wacid.A', direction: 'user_initiated', user: '16505551234', event: { kind: 'ringing', at: iso(1749197000), source: 'webhook' } },
      {
        callId: 'wacid.A',
        direction: 'user_initiated',
        user: '16505551234',
        event: {
          kind: 'ended',
          at: iso(1749197480),
          source: 'webhook',
          outcome: 'COMPLETED',
          start: iso(1749197360),
          end: iso(1749197480),
          duration: 120,
          errors,
        },
      },
    ]);
  });

  it("a business-initiated call: the user's answer is accepted, its statuses ring, accept or reject; the user is the callee", () => {
    const answer = { id: 'wacid.B', from: '15550783881', to: '14085551234', event: 'connect', direction: 'BUSINESS_INITIATED', timestamp: '1749197000' };
    const statuses = ['RINGING', 'ACCEPTED', 'REJECTED', 'SOMETHING'].map((status) => ({
      id: 'wacid.B',
      type: 'call',
      status,
      timestamp: '1749197001',
      recipient_id: '14085551234',
    }));
    const kinds = callUpdates({ field: 'calls', value: { calls: [answer], statuses } }).map((u) => [u.event.kind, u.direction, u.user]);
    expect(kinds).toEqual([
      ['accepted', 'business_initiated', '14085551234'],
      ['ringing', 'business_initiated', '14085551234'],
      ['accepted', 'business_initiated', '14085551234'],
      ['rejected', 'business_initiated', '14085551234'],
    ]);
  });

  it('leaves out what is not about calls or has the wrong shape', () => {
    const messageStatus = { id: 'wamid.X', status: 'delivered', timestamp: '1' };
    expect(callUpdates({ field: 'messages', value: { statuses: [messageStatus] } })).toEqual([]);
    expect(callUpdates({ field: 'calls', value: { calls: [null, { id: 'x'.repeat(300), event: 'connect' }, { id: 'wacid.C', event: 'dtmf' }, 'x'] } })).toEqual(
      [],
    );
    expect(callUpdates({ field: 'calls', value: { calls: [{ id: 'wacid.D', event: 'terminate', duration: -1, timestamp: 'later' }] } })[0].event).toMatchObject(
      {
        kind: 'ended',
        source: 'webhook',
      },
    );
    expect(callUpdates({ field: 'calls', value: { calls: [{ id: 'wacid.D', event: 'terminate', duration: -1 }] } })[0].event.duration).toBeUndefined();
  });
});
