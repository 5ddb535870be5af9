import type { MessageInitShape } from '@bufbuild/protobuf';
import type { business } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import type { Logger } from '@gateway/logger';
import { fromCallError } from '@gateway/rpc';
import type { Services } from './services';
import { isUnimplemented, TurnBatch, type Waiting } from './turn-batch';

type AdmitInit = MessageInitShape<typeof business.AdmitRequestSchema>;
type EntryInit = MessageInitShape<typeof business.AuditEntrySchema>;

type Item = { admit: Waiting<AdmitInit, business.AdmitResponse> } | { entry: Waiting<EntryInit, void> };

/** The most admissions and entries one call carries (the rest go in the next call, at once). */
const MAX_BATCH = 256;

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
  private readonly batch = new TurnBatch<Item>(MAX_BATCH, (items) => this.send(items));
  /** The tenant directory answered UNIMPLEMENTED: it predates `AdmitAndAudit`, so each call goes alone. */
  private single = false;

  constructor(
    private readonly business: Services['business'],
    private readonly logger: Logger,
  ) {}

  admit(input: AdmitInit): Promise<business.AdmitResponse> {
    if (this.single) return this.business.admit(input);
    return new Promise((resolve, reject) => this.batch.push({ admit: { input, resolve, reject } }));
  }

  recordAudit(entry: EntryInit): Promise<void> {
    if (this.single) return this.business.recordAudit({ entry }).then(() => undefined);
    return new Promise((resolve, reject) => this.batch.push({ entry: { input: entry, resolve, reject } }));
  }

  private send(items: Item[]): void {
    const admits = items.flatMap((i) => ('admit' in i ? [i.admit] : []));
    const entries = items.flatMap((i) => ('entry' in i ? [i.entry] : []));
    this.business.admitAndAudit({ admits: admits.map((a) => a.input), entries: entries.map((e) => e.input) }).then(
      (res) => this.answer(admits, entries, res),
      (e: unknown) => this.failed(admits, entries, e),
    );
  }

  private answer(admits: Array<Waiting<AdmitInit, business.AdmitResponse>>, entries: Array<Waiting<EntryInit, void>>, res: business.AdmitAndAuditResponse) {
    admits.forEach((a, i) => {
      const o = res.admissions[i]?.outcome;
      if (o?.case === 'admitted') a.resolve(o.value);
      else if (o?.case === 'error') a.reject(fromCallError(o.value));
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
