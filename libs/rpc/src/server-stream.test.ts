import { AppError } from '@gateway/errors';
import { createLogger, currentRequestId, runWithContext } from '@gateway/logger';
import { messaging } from '@gateway/contracts';
import { createServiceClient, defineService, fromCallError, startGrpcServer, toCallError, type RunningGrpcServer, type ServiceImpl } from './index';

const { MessagingService } = messaging;
type Impl = ServiceImpl<typeof MessagingService>;
type Answer = messaging.SendBatchResponse;

/** A gate the test opens: the handler waits on it between answers. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
}

describe('server-streaming calls over real gRPC', () => {
  let server: RunningGrpcServer;
  let seenRequestId: string | undefined;
  const between = gate();
  const logger = createLogger({ name: 'rpc-stream-test', level: 'silent' });

  beforeAll(async () => {
    const notHere = async () => {
      throw new AppError('internal', 'unimplemented', 'not in this test');
    };
    const impl = {
      ...Object.fromEntries(MessagingService.methods.map((m) => [m.localName, notHere])),
      sendBatch: async (req, _ctx, write) => {
        seenRequestId = currentRequestId();
        const mode = req.items[0]?.requestId;
        write({ index: 0, outcome: { case: 'sent', value: { result: { messageId: 'wamid.first' } } } });
        if (mode === 'hold') await between.opened;
        if (mode === 'fail') throw new AppError('unavailable', 'provider_down', 'The provider is unreachable');
        if (mode === 'never') return new Promise<void>(() => undefined);
        write({ index: 1, outcome: { case: 'sent', value: { result: { messageId: 'wamid.second' } } } });
      },
    } as Impl;
    server = await startGrpcServer({ host: '127.0.0.1', port: 0, logger, services: [defineService(MessagingService, impl)] });
  });
  afterAll(() => server.shutdown(1000));

  const client = () => createServiceClient(MessagingService, `127.0.0.1:${server.port}`);
  const items = (mode: string) => ({ items: [{ requestId: mode }, { requestId: mode }] });

  it('hands each answer over as it is written, before the stream ends, and settles when it ends', async () => {
    const answers: Answer[] = [];
    const firstArrived = gate();
    const done = client().sendBatch(items('hold'), (a) => {
      answers.push(a);
      firstArrived.open();
    });
    // the first answer is there while the handler still waits: nothing is held back for the end of the stream
    await firstArrived.opened;
    expect(answers.map((a) => a.index)).toEqual([0]);
    between.open();
    await done;
    expect(answers.map((a) => (a.outcome.case === 'sent' ? a.outcome.value.result?.messageId : a.outcome.case))).toEqual(['wamid.first', 'wamid.second']);
  });

  it("carries the caller's request id in the metadata, as a unary call does", async () => {
    await runWithContext({ requestId: 'req-stream-1' }, () => client().sendBatch(items('plain'), () => undefined));
    expect(seenRequestId).toBe('req-stream-1');
  });

  it('rejects with the AppError the handler ended with, after the answers written before it', async () => {
    const answers: Answer[] = [];
    const err = await client()
      .sendBatch(items('fail'), (a) => answers.push(a))
      .catch((e: unknown) => e as AppError);
    expect(answers.map((a) => a.index)).toEqual([0]);
    expect(err).toBeInstanceOf(AppError);
    expect(err).toMatchObject({ kind: 'unavailable', code: 'provider_down', message: 'The provider is unreachable' });
  });

  it('ends a stream that outlives its deadline with a timeout, the answers before it delivered', async () => {
    const answers: Answer[] = [];
    await expect(client().sendBatch(items('never'), (a) => answers.push(a), { deadlineMs: 300 })).rejects.toMatchObject({ kind: 'timeout' });
    expect(answers.map((a) => a.index)).toEqual([0]);
  });
});

describe('errors as values (an item of a batched call)', () => {
  it('carries kind, code, message, details and Retry-After, and stands for the same AppError on the other side', () => {
    const original = new AppError('rate_limited', 'pair_rate_limited', 'Too many messages to this user', { retryAfterSeconds: 7 });
    const back = fromCallError(toCallError(original));
    expect(back).toBeInstanceOf(AppError);
    expect(back).toMatchObject({ kind: 'rate_limited', code: 'pair_rate_limited', message: 'Too many messages to this user', retryAfterSeconds: 7 });
    const invalid = fromCallError(toCallError(AppError.validation([{ loc: ['body', 'to'], msg: 'required', type: 'any.required', input: null, ctx: {} }])));
    expect(invalid.issues).toEqual([{ loc: ['body', 'to'], msg: 'required', type: 'any.required', input: null, ctx: {} }]);
  });

  it('never carries the message of an unexpected error, and bounds long strings as a status does', () => {
    expect(toCallError(new Error('secret internals'))).toMatchObject({ kind: 'internal', message: 'internal error' });
    const long = toCallError(new AppError('provider_rejected', 'provider_error', 'Refused', { details: { provider: { message: 'x'.repeat(5000) } } }));
    const details = JSON.parse(long.detailsJson) as { provider: { message: string } };
    expect(details.provider.message).toHaveLength(1001);
  });
});
