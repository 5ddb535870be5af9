import { callView, type CallEvent } from './record';

const at = (s: number) => new Date(Date.UTC(2026, 10, 24, 12, 0, s)).toISOString();
const ev = (kind: CallEvent['kind'], s: number, source: CallEvent['source'] = 'webhook', extra: Partial<CallEvent> = {}): CallEvent => ({
  kind,
  at: at(s),
  source,
  ...extra,
});

describe('a call record read from what was said about the call', () => {
  it('orders the timeline by the state machine whatever the arrival order, each status once, with the provider times and duration', () => {
    const events = [
      ev('ended', 130, 'webhook', { outcome: 'COMPLETED', start: at(10), end: at(130), duration: 120 }),
      ev('accepted', 10, 'action'),
      ev('ringing', 0),
      ev('ringing', 0),
      ev('terminated', 129, 'action'),
      ev('pre_accepted', 5, 'action'),
    ];
    expect(callView(events)).toEqual({
      status: 'terminated',
      timeline: [
        { status: 'ringing', at: at(0), source: 'webhook' },
        { status: 'pre_accepted', at: at(5), source: 'action' },
        { status: 'accepted', at: at(10), source: 'action' },
        { status: 'terminated', at: at(129), source: 'action' },
      ],
      startedAt: at(10),
      endedAt: at(130),
      durationSeconds: 120,
    });
  });

  it('a call never answered is missed; a rejected one stays rejected when its terminate webhook comes', () => {
    expect(callView([ev('ringing', 0), ev('ended', 40, 'webhook', { outcome: 'FAILED', errors: [{ code: 138021 }] })])).toEqual({
      status: 'missed',
      timeline: [
        { status: 'ringing', at: at(0), source: 'webhook' },
        { status: 'missed', at: at(40), source: 'webhook' },
      ],
      endedAt: at(40),
      errors: [{ code: 138021 }],
    });
    const rejected = callView([ev('ringing', 0), ev('rejected', 3, 'action'), ev('ended', 4, 'webhook', { outcome: 'FAILED' })]);
    expect([rejected.status, rejected.timeline.length, rejected.endedAt, rejected.startedAt]).toEqual(['rejected', 2, at(3), undefined]);
  });

  it('an answered call has no duration before the provider reports it', () => {
    const v = callView([ev('ringing', 0), ev('accepted', 2, 'action'), ev('terminated', 60, 'action')]);
    expect([v.status, v.startedAt, v.endedAt, v.durationSeconds]).toEqual(['terminated', at(2), at(60), undefined]);
  });
});
