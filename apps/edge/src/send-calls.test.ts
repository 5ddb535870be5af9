import * as grpc from '@grpc/grpc-js';
import { create } from '@bufbuild/protobuf';
import { messaging } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import { createLogger, currentRequestId, runWithContext } from '@gateway/logger';
import { createServiceClient, defineService, startGrpcServer, toGrpcServiceDefinition, type RunningGrpcServer, type ServiceImpl } from '@gateway/rpc';
import { SendCalls } from './send-calls';

const { MessagingService } = messaging;
type Impl = ServiceImpl<typeof MessagingService>;
const logger = createLogger({ name: 'send-calls-test', level: 'silent' });

/** A gate the test opens. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

/** What the messaging service was asked: each SendBatch call's items and each Send, with the request ids seen. */
interface Seen {
  batches: Array<Array<{ to: string; requestId: string }>>;
  singles: Array<{ to: string; requestId: string | undefined }>;
}

const toOf = (r: messaging.SendRequest | undefined) => (JSON.parse(r?.bodyJson ?? '{}') as { to?: string }).to ?? '';
const send = (to: string) => ({ caller: { tenantId: 't1', clientId: 'c1' }, kind: 'text', bodyJson: JSON.stringify({ to, text: 'hi' }) });

/**
 * A messaging service whose answers the test steers by recipient: "held" waits for the test's gate, "missing" is
 * refused as Send would refuse it, "broken" ends the stream with an error; anything else is sent at once.
 */
async function messagingServer(held: Promise<void>): Promise<{ server: RunningGrpcServer; seen: Seen }> {
  const seen: Seen = { batches: [], singles: [] };
  const sent = (to: string) => ({ result: { messageId: `wamid.${to}` } });
  const notHere = async () => {
    throw new AppError('internal', 'unimplemented', 'not in this test');
  };
  const overrides: Partial<Impl> = {
    send: async (r) => {
      seen.singles.push({ to: toOf(r), requestId: currentRequestId() });
      return sent(toOf(r));
    },
    sendBatch: async (r, _ctx, write) => {
      seen.batches.push(r.items.map((i) => ({ to: toOf(i.send), requestId: i.requestId })));
      await Promise.all(
        r.items.map(async (item, index) => {
          const to = toOf(item.send);
          if (to === 'held') await held;
          if (to === 'broken') throw new AppError('unavailable', 'service_unavailable', 'gone');
          if (to === 'missing')
            write({
              index,
              outcome: { case: 'error', value: { kind: 'not_found', code: 'client_not_found', message: 'Client not found', detailsJson: '{}' } },
            });
          else write({ index, outcome: { case: 'sent', value: sent(to) } });
        }),
      );
    },
  };
  const impl = { ...Object.fromEntries(MessagingService.methods.map((m) => [m.localName, notHere])), ...overrides } as Impl;
  const server = await startGrpcServer({ host: '127.0.0.1', port: 0, logger, services: [defineService(MessagingService, impl)] });
  return { server, seen };
}

/** Sends made in one turn of the event loop, each under its own request id. */
const inOneTurn = (calls: SendCalls, recipients: string[]) => recipients.map((to) => runWithContext({ requestId: `req-${to}` }, () => calls.send(send(to))));

describe('SendCalls: the sends of requests that arrive together, in one streamed call', () => {
  const held = gate();
  let server: RunningGrpcServer;
  let seen: Seen;
  let calls: SendCalls;
  let client: ReturnType<typeof createServiceClient<typeof MessagingService>>;

  beforeAll(async () => {
    ({ server, seen } = await messagingServer(held.opened));
    client = createServiceClient(MessagingService, `127.0.0.1:${server.port}`);
    calls = new SendCalls(client, logger);
  });
  afterAll(async () => {
    held.open();
    client.close();
    await server.shutdown(1000);
  });
  beforeEach(() => {
    seen.batches.length = 0;
    seen.singles.length = 0;
  });

  it('answers each send as its answer arrives: one slow send holds no other, a refused one fails alone', async () => {
    const [slow, fast, refused] = inOneTurn(calls, ['held', 'fast', 'missing']);
    let slowSettled = false;
    void slow!.finally(() => (slowSettled = true));
    await expect(fast).resolves.toMatchObject({ result: { messageId: 'wamid.fast' } });
    await expect(refused).rejects.toMatchObject({ kind: 'not_found', code: 'client_not_found', message: 'Client not found' });
    expect(await refused!.catch((e: unknown) => e)).toBeInstanceOf(AppError);
    // both answered while the slow one still waits at the provider
    expect(slowSettled).toBe(false);
    held.open();
    await expect(slow).resolves.toMatchObject({ result: { messageId: 'wamid.held' } });
    // one call carried all three, each with the request id of the request it is for
    expect(seen.batches).toEqual([
      [
        { to: 'held', requestId: 'req-held' },
        { to: 'fast', requestId: 'req-fast' },
        { to: 'missing', requestId: 'req-missing' },
      ],
    ]);
    expect(seen.singles).toEqual([]);
  });

  it('fails the sends a broken stream had not answered with its error, and only those', async () => {
    const [first, broken] = inOneTurn(calls, ['first', 'broken']);
    await expect(first).resolves.toMatchObject({ result: { messageId: 'wamid.first' } });
    await expect(broken).rejects.toMatchObject({ kind: 'unavailable', code: 'service_unavailable' });
  });

  it('sends a lone send through Send, under its request id', async () => {
    const [only] = inOneTurn(calls, ['alone']);
    await expect(only).resolves.toMatchObject({ result: { messageId: 'wamid.alone' } });
    expect(seen.singles).toEqual([{ to: 'alone', requestId: 'req-alone' }]);
    expect(seen.batches).toEqual([]);
  });

  it('sends the sends of separate turns in separate calls', async () => {
    const first = inOneTurn(calls, ['a1', 'a2']);
    await new Promise((r) => setImmediate(r));
    const second = inOneTurn(calls, ['b1', 'b2']);
    await Promise.all([...first, ...second]);
    expect(seen.batches.map((b) => b.map((i) => i.to))).toEqual([
      ['a1', 'a2'],
      ['b1', 'b2'],
    ]);
  });
});

describe('SendCalls against a messaging service that predates SendBatch', () => {
  it('sends each send alone through Send, from the first refusal on, under its own request id', async () => {
    const singles: Array<{ to: string; requestId: string }> = [];
    const server = new grpc.Server();
    // only Send: grpc-js answers UNIMPLEMENTED for SendBatch, as a messaging service of an older build does
    server.addService(toGrpcServiceDefinition(MessagingService), {
      send: (call: grpc.ServerUnaryCall<messaging.SendRequest, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        singles.push({ to: toOf(call.request), requestId: String(call.metadata.get('x-request-id')[0]) });
        callback(null, create(messaging.SendResponseSchema, { result: { messageId: `wamid.${toOf(call.request)}` } }));
      },
    });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
    const client = createServiceClient(MessagingService, `127.0.0.1:${port}`);
    try {
      const calls = new SendCalls(client, logger);
      const answers = await Promise.all(inOneTurn(calls, ['x1', 'x2']));
      expect(answers.map((a) => a.result?.messageId)).toEqual(['wamid.x1', 'wamid.x2']);
      await Promise.all(inOneTurn(calls, ['y1', 'y2']));
      expect(singles.sort((a, b) => a.to.localeCompare(b.to))).toEqual([
        { to: 'x1', requestId: 'req-x1' },
        { to: 'x2', requestId: 'req-x2' },
        { to: 'y1', requestId: 'req-y1' },
        { to: 'y2', requestId: 'req-y2' },
      ]);
    } finally {
      client.close();
      await new Promise<void>((r) => server.tryShutdown(() => r()));
    }
  });
});
