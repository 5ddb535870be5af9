import type { MessageInitShape } from '@bufbuild/protobuf';
import type { messaging } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import { currentRequestId, runWithContext, type Logger } from '@gateway/logger';
import { fromCallError } from '@gateway/rpc';
import { currentTraceIds } from '@gateway/telemetry';
import type { Services } from './services';
import { isUnimplemented, TurnBatch, type Waiting } from './turn-batch';

type SendInit = MessageInitShape<typeof messaging.SendRequestSchema>;
type Item = Waiting<{ send: SendInit; requestId: string }, messaging.SendResponse>;

/** The most sends one call carries (the rest go in the next call, at once). */
const MAX_BATCH = 64;

/**
 * The edge's sends (issue 29): the sends of the requests that reach the edge together, in one event-loop turn,
 * go in one `SendBatch` call to the messaging service instead of one `Send` each (a unary gRPC call was a fifth
 * of the edge's CPU per send). Each send is made there exactly as `Send` makes it, under its own request id, and
 * its caller is answered the moment its answer arrives on the stream: as `Send` answered, or with the error
 * `Send` failed with. If the stream breaks, the sends it had not answered fail with its error, as their calls
 * would have. A send whose request is traced goes alone through `Send` (its spans are its own call's), and so
 * does a lone send; a messaging service that predates `SendBatch` gets single calls from then on.
 */
export class SendCalls {
  private readonly batch = new TurnBatch<Item>(MAX_BATCH, (items) => this.flush(items));
  /** The messaging service answered UNIMPLEMENTED: it predates `SendBatch`, so each send goes alone. */
  private single = false;

  constructor(
    private readonly messaging: Services['messaging'],
    private readonly logger: Logger,
  ) {}

  send(send: SendInit): Promise<messaging.SendResponse> {
    if (this.single || currentTraceIds()) return this.messaging.send(send);
    return new Promise((resolve, reject) => this.batch.push({ input: { send, requestId: currentRequestId() ?? '' }, resolve, reject }));
  }

  private flush(items: Item[]): void {
    if (items.length === 1) return this.alone(items[0]!);
    const answered = new Array<boolean>(items.length).fill(false);
    this.messaging
      .sendBatch({ items: items.map((i) => i.input) }, (a) => {
        const item = items[a.index];
        if (!item || answered[a.index]) return;
        answered[a.index] = true;
        if (a.outcome.case === 'sent') item.resolve(a.outcome.value);
        else if (a.outcome.case === 'error') item.reject(fromCallError(a.outcome.value));
        else item.reject(new AppError('internal', 'send_missing', 'The messaging service answered this send with nothing'));
      })
      .then(
        () => this.unanswered(items, answered, () => new AppError('internal', 'send_missing', 'The messaging service did not answer this send')),
        (e: unknown) => {
          if (!isUnimplemented(e)) return this.unanswered(items, answered, () => e);
          if (!this.single) this.logger.warn('the messaging service does not serve SendBatch: sends go one call each');
          this.single = true;
          // nothing was sent: the service refused the method before any send
          for (const i of items) this.alone(i);
        },
      );
  }

  /** One send through `Send`, under its request's id. */
  private alone(item: Item): void {
    runWithContext({ requestId: item.input.requestId }, () => this.messaging.send(item.input.send)).then(item.resolve, item.reject);
  }

  /** Fails the sends the stream did not answer (the error made only if one is left: an error's stack costs). */
  private unanswered(items: Item[], answered: boolean[], error: () => unknown): void {
    items.forEach((item, i) => {
      if (!answered[i]) item.reject(error());
    });
  }
}
