import { RequestOne } from 'nats/lib/nats-base-client/request';

const ANSWERED = Symbol('answered');

interface Answerable {
  [ANSWERED]?: boolean;
  timer?: { cancel(): void };
  mux: { cancel(r: unknown): void };
  resolver(err: Error | null, msg: unknown): void;
  cancel(err?: Error): void;
}

let applied: boolean | undefined;

/**
 * The nats client (2.29) answers every request, each JetStream publish included, and then cancels it, and its
 * `cancel` rejects the request's promise, already resolved, with a new `NatsError` (Cancelled): an Error and its
 * stack trace made and thrown away per request. The bench's profiles of the ingest pipeline put 2.3 % of the
 * messaging service's busy time and 2.8 % of the edge's in that constructor alone, besides the garbage. A request
 * that has been answered is now cancelled without it: its timer stopped and its subscription entry removed, as
 * before. Every other cancel (a timeout, a closed or lost connection, a publish that failed) is the client's own.
 * Answers false (and changes nothing) when the client is not shaped as expected (another version).
 */
export function quietAnsweredRequests(): boolean {
  if (applied !== undefined) return applied;
  const proto = (RequestOne as unknown as { prototype?: Partial<Answerable> } | undefined)?.prototype;
  if (typeof proto?.resolver !== 'function' || typeof proto.cancel !== 'function') return (applied = false);
  const resolver = proto.resolver;
  const cancel = proto.cancel;
  proto.resolver = function (this: Answerable, err: Error | null, msg: unknown) {
    this[ANSWERED] = true;
    resolver.call(this, err, msg);
  };
  proto.cancel = function (this: Answerable, err?: Error) {
    if (err || !this[ANSWERED]) return cancel.call(this, err);
    this.timer?.cancel();
    this.mux.cancel(this);
  };
  return (applied = true);
}
