import { create, type MessageInitShape } from '@bufbuild/protobuf';
import { messaging as m } from '@gateway/contracts';
import { normalizeRequestId, runWithContext, type Logger } from '@gateway/logger';
import { logHandlerFailure, toCallError } from '@gateway/rpc';
import type { Messaging } from './messaging';

type Answer = MessageInitShape<typeof m.SendBatchResponseSchema>;

const METHOD = 'MessagingService/SendBatch';

/**
 * `SendBatch`: the sends of requests that reached the edge together, each made as `Send` makes it (the same
 * idempotency, checks, provider call and record) in its own request's context, and each answered on the stream
 * the moment it is done, so a send waiting for a slow provider holds no other. A failed send is answered as the
 * error value its `Send` call would have failed with (an internal one logged here, its message not sent, as
 * the gRPC server does for a failed call); the stream ends once every send is answered.
 */
export function sendBatch(svc: Pick<Messaging, 'send'>, logger: Logger) {
  return async (r: m.SendBatchRequest, _ctx: unknown, write: (answer: Answer) => void): Promise<void> => {
    await Promise.all(
      r.items.map((item, index) =>
        runWithContext({ requestId: normalizeRequestId(item.requestId) }, () =>
          svc.send(item.send ?? create(m.SendRequestSchema)).then(
            (sent) => write({ index, outcome: { case: 'sent', value: sent } }),
            (e: unknown) => write({ index, outcome: { case: 'error', value: toCallError(logHandlerFailure(logger, METHOD, e)) } }),
          ),
        ),
      ),
    );
  };
}
