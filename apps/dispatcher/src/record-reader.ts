import type { DeliveryRepository, SeriesState } from './store/deliveries';

/**
 * The first delivery of an event reads its series' record too, batched: the reads asked for in one turn of the
 * event loop go as one `WHERE id = ANY($1)` (at most `maxBatch` ids each). JetStream can hand an event out as a
 * first delivery although it was delivered before: after a consumer leader change whose new leader had not yet
 * replicated the delivery, or when the same event is in the stream twice. Without the read such a message
 * was sent again even when its series had succeeded (a duplicate the record would have stopped).
 */
export class RecordReader {
  private pending = new Map<string, Array<{ resolve: (s: SeriesState | undefined) => void; reject: (e: unknown) => void }>>();
  private scheduled = false;

  constructor(
    private readonly repo: DeliveryRepository,
    private readonly maxBatch = 250,
  ) {}

  state(id: string): Promise<SeriesState | undefined> {
    return new Promise((resolve, reject) => {
      const waiting = this.pending.get(id);
      if (waiting) waiting.push({ resolve, reject });
      else this.pending.set(id, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.read());
      }
    });
  }

  private read(): void {
    this.scheduled = false;
    const batch = this.pending;
    this.pending = new Map();
    const ids = [...batch.keys()];
    for (let i = 0; i < ids.length; i += this.maxBatch) {
      const part = ids.slice(i, i + this.maxBatch);
      this.repo.states(part).then(
        (found) => part.forEach((id) => batch.get(id)!.forEach((w) => w.resolve(found.get(id)))),
        (e: unknown) => part.forEach((id) => batch.get(id)!.forEach((w) => w.reject(e))),
      );
    }
  }
}
