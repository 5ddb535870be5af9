import { NatsError } from 'nats/lib/nats-base-client/core';
import { createLogger } from '@gateway/logger';
import { startNatsServer, type TestNatsServer } from '@gateway/testing';
import { connectBus, STREAMS, type Bus } from './index';

const logger = createLogger({ name: 'answered-requests-test', level: 'silent' });

/** The client's table of requests waiting for an answer (each entry holds a timer until it is removed). */
const waiting = (bus: Bus) => (bus.nc as unknown as { protocol: { muxSubscriptions: { size(): number } } }).protocol.muxSubscriptions.size();

describe('requests that were answered (quietAnsweredRequests)', () => {
  let nats: TestNatsServer;
  let bus: Bus;
  let errors: jest.SpyInstance;
  beforeAll(async () => {
    nats = await startNatsServer();
    bus = await connectBus({ url: nats.url, name: 'answered-requests-test', logger, streams: [STREAMS.events] });
  });
  beforeEach(() => {
    errors = jest.spyOn(NatsError, 'errorForCode');
  });
  afterEach(() => errors.mockRestore());
  afterAll(async () => {
    await bus.close();
    await nats.dispose();
  });

  it('make no error each: JetStream publishes and plain requests resolve, and leave nothing waiting', async () => {
    const sub = bus.nc.subscribe('answer.me', { callback: (_e, m) => m.respond(m.data) });
    for (let i = 0; i < 20; i++) await bus.publish(`events.answered.t1.c${i}`, '{}', { msgId: `answered-${i}` });
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => bus.nc.request('answer.me', String(i), { timeout: 10_000 })));
    expect(replies.map((r) => r.string())).toEqual(Array.from({ length: 20 }, (_, i) => String(i)));
    expect(errors).not.toHaveBeenCalled();
    expect(waiting(bus)).toBe(0);
    sub.unsubscribe();
  });

  it('still reject as before when no answer comes: the timeout names itself, and nothing is left waiting', async () => {
    const sub = bus.nc.subscribe('never.answers', { callback: () => undefined });
    await expect(bus.nc.request('never.answers', 'x', { timeout: 200 })).rejects.toMatchObject({ code: 'TIMEOUT' });
    expect(waiting(bus)).toBe(0);
    sub.unsubscribe();
  });

  it('still reject an answer that is an error (no responders), and leave nothing waiting', async () => {
    await expect(bus.nc.request('nobody.subscribes', 'x', { timeout: 10_000 })).rejects.toMatchObject({ code: '503' });
    expect(waiting(bus)).toBe(0);
  });
});
