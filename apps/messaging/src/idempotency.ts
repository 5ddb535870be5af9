import { AppError, toAppError, type ErrorKind } from '@gateway/errors';
import type { Logger } from '@gateway/logger';
import type { Db } from '@gateway/store';
import { isRetryableProviderError } from '@gateway/provider-client';
import type { messaging } from '@gateway/contracts';
import { SqlIdempotencyRepository, type IdempotencyTimes, type StoredOutcome } from './store/idempotency';
import type { MessageStore } from './store/message-store';
import type { NewMessage } from './store/messages';

/** What the execution step of an operation produced: the response, and the message record to store with it. */
export interface Executed<R> {
  response: R;
  message?: NewMessage;
}

/**
 * An operation in two steps. `prepare` resolves what the call needs (client, payload); a failure there
 * calls nothing and is not recorded. `execute` calls the provider.
 */
export type Operation<R> = () => Promise<() => Promise<Executed<R>>>;

/** Errors a retry may cure: the key is released so the retry runs. Everything else is recorded and replayed. */
const TRANSIENT: ReadonlySet<ErrorKind> = new Set(['rate_limited', 'unavailable', 'timeout', 'internal']);

/**
 * Whether a failure of the provider call leaves the key free for a retry. Never when the outcome is unknown
 * (the provider may have acted: a second run could send twice); always when retrying can help (throttling,
 * maintenance, a provider hiccup, our own failure before the call).
 */
function releasesKey(err: AppError): boolean {
  if (err.code === 'provider_outcome_unknown') return false;
  return TRANSIENT.has(err.kind) || isRetryableProviderError(err);
}

export const MAX_KEY_LENGTH = 255;

/**
 * Runs operations under the tenant's `Idempotency-Key` (decisions.md "Beyond the spec"): the first request
 * with a key claims it; a repeat with the same request hash replays the stored outcome without running
 * again; another hash is a 409 `idempotency_key_reused`; a repeat while the first runs is a 409
 * `idempotency_in_progress`. The outcome is stored in the same transaction as the message record.
 * A call whose outcome is unknown (`provider_outcome_unknown`) is stored as such and replayed: the tenant
 * checks the message status before sending again under a new key (docs/provider-errors.md).
 */
export class IdempotentRunner {
  private readonly keys: SqlIdempotencyRepository;

  constructor(
    db: Db,
    private readonly times: IdempotencyTimes,
    private readonly messages: MessageStore,
    private readonly logger: Logger,
  ) {
    this.keys = new SqlIdempotencyRepository(db, times);
  }

  /** Stores the record of a send made under no idempotency key, one prepared ahead (a campaign's: `Messaging.prepareSend`). */
  recordSent(message: NonNullable<Executed<object>['message']>): Promise<void> {
    return this.store({ response: {}, message });
  }

  /** Stores the records of sends made under no idempotency key, gathered by the caller (a campaign's batch). */
  async recordSentMany(messages: Array<NonNullable<Executed<object>['message']>>): Promise<void> {
    await this.messages.insertMany(messages).catch((e: unknown) => this.logger.error({ err: e, sends: messages.length }, 'could not store accepted sends'));
  }

  purgeExpired(): Promise<number> {
    return this.keys.purgeExpired();
  }

  async run<R extends object>(caller: messaging.CallerContext | undefined, operation: string, op: Operation<R>): Promise<{ response: R; replayed: boolean }> {
    const key = caller?.idempotencyKey ?? '';
    if (!caller || !key) {
      const executed = await (await op())();
      await this.store(executed);
      return { response: executed.response, replayed: false };
    }
    if (key.length > MAX_KEY_LENGTH) {
      throw AppError.validation([
        {
          loc: ['header', 'idempotency-key'],
          msg: `must be at most ${MAX_KEY_LENGTH} characters`,
          type: 'too_long',
          input: key,
          ctx: { limit: MAX_KEY_LENGTH },
        },
      ]);
    }
    if (!/^[0-9a-f]{64}$/.test(caller.requestHash))
      throw new AppError('internal', 'request_hash_missing', 'an idempotency key needs the SHA-256 of the request');

    const claim = await this.keys.claim(caller.tenantId, key, caller.requestHash, operation);
    if (claim.state === 'mismatch') {
      throw AppError.conflict('idempotency_key_reused', 'This Idempotency-Key was already used with a different request');
    }
    if (claim.state === 'in_progress') {
      throw AppError.conflict('idempotency_in_progress', 'A request with this Idempotency-Key is still being processed; retry later');
    }
    if (claim.state === 'completed') return { response: replay<R>(claim.outcome), replayed: true };

    const release = () =>
      this.keys.release(caller.tenantId, key, claim.token).catch((e: unknown) => this.logger.error({ err: e }, 'could not release an idempotency key'));
    let execute: () => Promise<Executed<R>>;
    try {
      execute = await op();
    } catch (e) {
      await release();
      throw e;
    }
    let executed: Executed<R>;
    try {
      executed = await execute();
    } catch (e) {
      const err = toAppError(e);
      if (releasesKey(err)) await release();
      else {
        const outcome: StoredOutcome = { error: { kind: err.kind, code: err.code, message: err.message, details: err.details } };
        await this.keys
          .complete(caller.tenantId, key, claim.token, outcome)
          .catch((ce: unknown) => this.logger.error({ err: ce }, 'could not store a rejected outcome'));
      }
      throw err;
    }
    await this.store(executed, { tenantId: caller.tenantId, key, token: claim.token });
    return { response: executed.response, replayed: false };
  }

  /**
   * Stores the message record and the outcome together. The provider already accepted the message: a
   * storage failure is logged and the send still succeeds (failing it would invite a duplicate send); the
   * key then stays claimed until its lease runs out.
   */
  private async store<R>(executed: Executed<R>, claim?: { tenantId: string; key: string; token: string }): Promise<void> {
    if (!executed.message && !claim) return;
    if (executed.message && !claim) {
      // no outcome to store with it: the record joins the group commit of concurrent sends
      await this.messages.insert(executed.message).catch(() => undefined);
      return;
    }
    try {
      const outcome = { ok: executed.response as Record<string, unknown> };
      await this.messages.insertWith(executed.message, (q) =>
        new SqlIdempotencyRepository(q, this.times).complete(claim!.tenantId, claim!.key, claim!.token, outcome),
      );
    } catch (e) {
      this.logger.error({ err: e, messageId: executed.message?.id }, 'could not store the outcome of an accepted request');
    }
  }
}

function replay<R>(outcome: StoredOutcome): R {
  if ('ok' in outcome) return outcome.ok as R;
  const { kind, code, message, details } = outcome.error;
  throw new AppError(kind as ErrorKind, code, message, { details });
}
