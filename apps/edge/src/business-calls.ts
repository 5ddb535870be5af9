import type { MessageInitShape } from '@bufbuild/protobuf';
import { status } from '@grpc/grpc-js';
import type { business } from '@gateway/contracts';
import { AppError, type ErrorKind } from '@gateway/errors';
import { runWithContext, type Logger } from '@gateway/logger';
import { extractTraceContext, withContext } from '@gateway/telemetry';
import type { Services } from './services';

type AdmitInit = MessageInitShape<typeof business.AdmitRequestSchema>;
type EntryInit = MessageInitShape<typeof business.AuditEntrySchema>;

interface Waiting<I, O> {
  input: I;
  resolve(o: O): void;
  reject(e: unknown): void;
}

/** The most admissions and entries one call carries (the rest go in the next call, at once). */
const MAX_BATCH = 256;

/** The error an admission answered in its place, as the edge's AppError (what a failed `Admit` call threw). */
function appErrorOf(e: business.CallError): AppError {
  let details: Record<string, unknown> = {};
  try {
    details = e.detailsJson ? (JSON.parse(e.detailsJson) as Record<string, unknown>) : {};
  } catch {
    // unreadable details: the kind and code still say what happened
  }
  return new AppError(e.kind as ErrorKind, e.code, e.message, {
    details,
    retryAfterSeconds: e.retryAfterSeconds === undefined ? undefined : Number(e.retryAfterSeconds),
  });
}

/** The context of no trace (the root one), made once: a batch is no one request's. */
let detached: ReturnType<typeof extractTraceContext> | undefined;

/** A tenant directory that does not serve `AdmitAndAudit` yet (a rolling deploy that reached the edge first). */
const isUnimplemented = (e: unknown) => (e as { cause?: { code?: number } })?.cause?.code === status.UNIMPLEMENTED;

/**
 * The edge's calls to the business service on every request it admits and audits (issue 29): the admissions
 * (middleware/quota.ts) and audit entries (middleware/audit.ts) of the requests that reach the edge together,
 * in one event-loop turn, go in one `AdmitAndAudit` call instead of one `Admit` and one `RecordAudit` each. Each
 * caller is answered as the single call answered it: an admission with its limits or the error it is refused
 * with, an entry once it is written (or the error it was not written with); nothing is decided or written at
 * the edge. The calls are made outside any request's context (a batch is no one request's: no request id in
 * its metadata, no parent span).
 */
export class BusinessCalls {
  private admits: Array<Waiting<AdmitInit, business.AdmitResponse>> = [];
  private entries: Array<Waiting<EntryInit, void>> = [];
  private scheduled = false;
  /** The tenant directory answered UNIMPLEMENTED: it predates `AdmitAndAudit`, so each call goes alone. */
  private single = false;

  constructor(
    private readonly business: Services['business'],
    private readonly logger: Logger,
  ) {}

  admit(input: AdmitInit): Promise<business.AdmitResponse> {
    if (this.single) return this.business.admit(input);
    return new Promise((resolve, reject) => {
      this.admits.push({ input, resolve, reject });
      this.schedule();
    });
  }

  recordAudit(entry: EntryInit): Promise<void> {
    if (this.single) return this.business.recordAudit({ entry }).then(() => undefined);
    return new Promise((resolve, reject) => {
      this.entries.push({ input: entry, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.admits.length + this.entries.length >= MAX_BATCH) return this.send();
    if (this.scheduled) return;
    this.scheduled = true;
    // one turn of the event loop: what the requests read in the same turn asked for joins the call
    setImmediate(this.sendLater);
  }

  private readonly sendLater = () => {
    this.scheduled = false;
    this.send();
  };

  private send(): void {
    const admits = this.admits;
    const entries = this.entries;
    if (!admits.length && !entries.length) return;
    this.admits = [];
    this.entries = [];
    runWithContext({ requestId: '' }, () =>
      withContext((detached ??= extractTraceContext(() => undefined)), () => {
        this.business.admitAndAudit({ admits: admits.map((a) => a.input), entries: entries.map((e) => e.input) }).then(
          (res) => this.answer(admits, entries, res),
          (e: unknown) => this.failed(admits, entries, e),
        );
      }),
    );
  }

  private answer(admits: Array<Waiting<AdmitInit, business.AdmitResponse>>, entries: Array<Waiting<EntryInit, void>>, res: business.AdmitAndAuditResponse) {
    admits.forEach((a, i) => {
      const o = res.admissions[i]?.outcome;
      if (o?.case === 'admitted') a.resolve(o.value);
      else if (o?.case === 'error') a.reject(appErrorOf(o.value));
      else a.reject(new AppError('internal', 'admission_missing', 'The tenant directory did not answer this admission'));
    });
    entries.forEach((e, i) => {
      const error = res.entryErrors[i];
      if (error === '') e.resolve();
      else e.reject(new AppError('unavailable', 'audit_not_recorded', error ?? 'The tenant directory did not answer this audit entry'));
    });
  }

  private failed(admits: Array<Waiting<AdmitInit, business.AdmitResponse>>, entries: Array<Waiting<EntryInit, void>>, e: unknown) {
    if (isUnimplemented(e)) {
      if (!this.single) this.logger.warn('the tenant directory does not serve AdmitAndAudit: admissions and audit entries go one call each');
      this.single = true;
      for (const a of admits) this.admit(a.input).then(a.resolve, a.reject);
      for (const x of entries) this.recordAudit(x.input).then(x.resolve, x.reject);
      return;
    }
    for (const a of admits) a.reject(e);
    for (const x of entries) x.reject(e);
  }
}
