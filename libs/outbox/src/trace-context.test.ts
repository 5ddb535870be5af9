import { Writable } from 'node:stream';
import { context, propagation, ROOT_CONTEXT, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { connectBus, runConsumer, ACK, HEADER_REQUEST_ID, STREAMS, type Bus } from '@gateway/bus';
import { buildEvent } from '@gateway/events';
import { createLogger, runWithContext } from '@gateway/logger';
import { openDb, type Db } from '@gateway/store';
import { dbTarget, startNatsServer, waitFor, type DbTarget, type TestNatsServer } from '@gateway/testing';
import { inSpan } from '@gateway/telemetry';
import { enqueueEvent, outboxMigration, startOutboxRelay } from './index';

/*
 * The hand-carried parts of a trace, with an SDK in this process (an in-memory exporter): bus.publish writes the
 * active context in `traceparent`, runConsumer continues it, and the outbox stores it with the row so the relay,
 * running later and outside any request, still publishes into the trace that enqueued the event. Logs carry the ids.
 */

const silent = createLogger({ name: 'propagation-test', level: 'silent' });
const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  return { lines, log: createLogger({ name: 'propagation-test', destination }) };
}

describe('trace context across the bus and the outbox', () => {
  const exporter = new InMemorySpanExporter();
  let nats: TestNatsServer;
  let target: DbTarget;
  let db: Db;
  let bus: Bus;

  beforeAll(async () => {
    const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    nats = await startNatsServer();
    target = await dbTarget();
    db = await openDb({ ...target, schema: 'propagation_test', migrations: [outboxMigration(1)] });
    bus = await connectBus({ url: nats.url, name: 'propagation-test', logger: silent, streams: [STREAMS.events] });
  });
  afterAll(async () => {
    await bus?.close();
    await db?.close();
    await target?.cleanup();
    await nats?.dispose();
    trace.disable();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());

  it('a consumer handler continues the trace of the publish: request → publish → process, one trace', async () => {
    const { lines, log } = capture();
    const seen: Array<{ traceparent: string; requestId: string; activeTrace?: string }> = [];
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'propagation-direct',
      logger: silent,
      config: { filter_subject: 'events.test.t1.>' },
      handle: async (m) => {
        seen.push({
          traceparent: m.headers!.get('traceparent'),
          requestId: m.headers!.get(HEADER_REQUEST_ID),
          activeTrace: trace.getActiveSpan()?.spanContext().traceId,
        });
        log.info('handled');
        return ACK;
      },
    });
    const request = await runWithContext({ requestId: 'req-direct' }, () =>
      inSpan('request', {}, async (span) => {
        await bus.publish('events.test.t1.c1', '{}', { msgId: 'direct-1' });
        return span.spanContext();
      }),
    );
    await waitFor(() => seen.length === 1 && exporter.getFinishedSpans().some((s) => s.name === 'process EVENTS'), {
      timeoutMs: 10_000,
      what: 'the message handled',
    });
    await consumer.stop();

    const spans = exporter.getFinishedSpans();
    const publish = spans.find((s) => s.name === 'publish events.test')!;
    const processSpan = spans.find((s) => s.name === 'process EVENTS')!;
    expect(publish.spanContext().traceId).toBe(request.traceId);
    expect(parentOf(publish)).toBe(request.spanId);
    expect(processSpan.spanContext().traceId).toBe(request.traceId);
    expect(parentOf(processSpan)).toBe(publish.spanContext().spanId);
    expect(processSpan.attributes).toMatchObject({
      'messaging.system': 'nats',
      'messaging.destination.name': 'events.test.t1.c1',
      'messaging.consumer.group.name': 'propagation-direct',
      'messaging.outcome': 'ack',
    });
    // the header names the publish span; the handler runs in the process span of the same trace, with the request id
    expect(seen[0].traceparent).toBe(`00-${request.traceId}-${publish.spanContext().spanId}-01`);
    expect(seen[0]).toMatchObject({ requestId: 'req-direct', activeTrace: request.traceId });
    expect(lines.find((l) => l.msg === 'handled')).toMatchObject({
      request_id: 'req-direct',
      trace_id: request.traceId,
      span_id: processSpan.spanContext().spanId,
    });
  });

  it('an event published later by the outbox relay belongs to the trace and request of the transaction that enqueued it', async () => {
    const seen: Array<{ traceparent: string; requestId: string }> = [];
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'propagation-outbox',
      logger: silent,
      config: { filter_subject: 'events.test.t2.>' },
      handle: async (m) => {
        seen.push({ traceparent: m.headers!.get('traceparent'), requestId: m.headers!.get(HEADER_REQUEST_ID) });
        return ACK;
      },
    });
    const event = buildEvent({ type: 'test', tenantId: 't2', clientId: 'c2', externalId: null, payload: { n: 1 } });
    // the request commits the event and ends; no relay runs yet
    const request = await runWithContext({ requestId: 'req-outbox' }, () =>
      inSpan('request', {}, async (span) => {
        await db.tx((q) => enqueueEvent(q, event));
        return span.spanContext();
      }),
    );
    // later, from no request at all, a relay publishes it
    const relay = context.with(ROOT_CONTEXT, () => startOutboxRelay({ db, bus, logger: silent, intervalMs: 50 }));
    await waitFor(() => seen.length === 1, { timeoutMs: 10_000, what: 'the relayed event handled' });
    await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'process EVENTS'), { timeoutMs: 30_000, what: 'the consumer span' });
    await relay.stop();
    await consumer.stop();

    const spans = exporter.getFinishedSpans();
    const publish = spans.find((s) => s.name === 'publish events.test')!;
    const processSpan = spans.find((s) => s.name === 'process EVENTS')!;
    expect(publish.spanContext().traceId).toBe(request.traceId);
    expect(parentOf(publish)).toBe(request.spanId);
    expect(parentOf(processSpan)).toBe(publish.spanContext().spanId);
    expect(seen[0]).toEqual({ traceparent: `00-${request.traceId}-${publish.spanContext().spanId}-01`, requestId: 'req-outbox' });
  });

  it('a message published outside any trace starts none: its consumer span is a root of its own', async () => {
    const consumer = await runConsumer({
      bus,
      stream: STREAMS.events.name,
      durable: 'propagation-root',
      logger: silent,
      config: { filter_subject: 'events.test.t3.>' },
      handle: async () => ACK,
    });
    await context.with(ROOT_CONTEXT, () => bus.publish('events.test.t3.c3', '{}', { msgId: 'root-1' }));
    await waitFor(() => exporter.getFinishedSpans().some((s) => s.name === 'process EVENTS'), { timeoutMs: 10_000 });
    await consumer.stop();
    const [publish, processSpan] = ['publish events.test', 'process EVENTS'].map((n) => exporter.getFinishedSpans().find((s) => s.name === n)!);
    expect(parentOf(publish)).toBeUndefined();
    expect(parentOf(processSpan)).toBe(publish.spanContext().spanId);
  });
});
