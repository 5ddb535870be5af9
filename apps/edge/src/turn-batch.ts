import { status } from '@grpc/grpc-js';
import { runWithContext } from '@gateway/logger';
import { extractTraceContext, withContext } from '@gateway/telemetry';

/** A caller waiting for its item of a batched call to be answered. */
export interface Waiting<I, O> {
  input: I;
  resolve(o: O): void;
  reject(e: unknown): void;
}

/** The context of no trace (the root one), made once: a batch is no one request's. */
let detached: ReturnType<typeof extractTraceContext> | undefined;

/**
 * Gathers what the requests read in one turn of the edge's event loop ask of a service, and hands it to
 * `flush` once, when the turn ends (or at once when `max` items wait). `flush` runs outside any request's
 * context (no request id, no parent span): a batch is no one request's, and the turn's timer would otherwise
 * carry the context of whichever request scheduled it.
 */
export class TurnBatch<T> {
  private items: T[] = [];
  private scheduled = false;

  constructor(
    private readonly max: number,
    private readonly flush: (items: T[]) => void,
  ) {}

  push(item: T): void {
    this.items.push(item);
    if (this.items.length >= this.max) return this.take();
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.takeLater);
  }

  private readonly takeLater = () => {
    this.scheduled = false;
    this.take();
  };

  private take(): void {
    const items = this.items;
    if (!items.length) return;
    this.items = [];
    runWithContext({ requestId: '' }, () => withContext((detached ??= extractTraceContext(() => undefined)), () => this.flush(items)));
  }
}

/** A backing service that does not serve the batched method yet (a rolling deploy that reached the edge first). */
export const isUnimplemented = (e: unknown) => (e as { cause?: { code?: number } })?.cause?.code === status.UNIMPLEMENTED;
