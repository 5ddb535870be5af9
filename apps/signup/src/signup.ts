import { randomUUID } from 'node:crypto';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { signup as s, tenantDirectory as td } from '@gateway/contracts';
import { randomToken, sha256Hex } from '@gateway/crypto';
import { AppError, isAppError } from '@gateway/errors';
import type { Logger } from '@gateway/logger';
import type { ServiceClient } from '@gateway/rpc';
import { failure, onboard, type Onboarded, type OnboardingProvider } from './onboarding-steps';
import type { PinVault } from './pins';
import { pageInit, sessionInit, type PageSettings } from './presenters';
import { failureRedirect, successRedirect } from './redirects';
import type { SessionRow, SignupRepository } from './store/repository';

type Directory = Pick<ServiceClient<typeof td.TenantDirectoryService>, 'getClientById' | 'getClient' | 'setClientSignupStatus' | 'completeClientSignup'>;
type CompleteInit = MessageInitShape<typeof s.CompleteSignupResponseSchema>;

/** Failures the provider's flow reports in the browser (FailSignup). */
export const BROWSER_FAILURE_REASONS = ['provider_error', 'phone_number_missing', 'session_info_missing'] as const;

export interface SignupDeps {
  repo: SignupRepository;
  directory: Directory;
  provider: OnboardingProvider;
  pins: PinVault;
  page: PageSettings;
  sessionTtlMs: number;
  /** A completion older than this is taken as crashed and no longer blocks the client. */
  staleAfterMs: number;
  logger: Logger;
  onOutcome?: (outcome: 'completed' | 'failed', reason: string) => void;
}

const sessionNotFound = () => AppError.notFound('signup_session_not_found', 'Unknown signup session for this client');

/**
 * Signup sessions: opened by each visit of the hosted page, completed once. Step failures are outcomes
 * (the client's signup_status becomes "failed" with the reason, nothing is emitted, and opening the link
 * again starts over); the tenant directory writes signup_completed with the activation, exactly once.
 */
export class Signup {
  constructor(private readonly d: SignupDeps) {}

  /** `held`: the state token the browser already holds (cookie); its session is reused while open. */
  async start(clientId: string, held?: string): Promise<MessageInitShape<typeof s.StartSignupResponseSchema>> {
    const client = (await this.d.directory.getClientById({ clientId })).client!;
    const page = pageInit(this.d.page, client);
    if (client.signupStatus === 'completed') return { alreadyCompleted: true, state: '', page };
    const reusable = held ? await this.d.repo.findByStateHash(sha256Hex(held)) : undefined;
    if (reusable && reusable.client_id === client.id && reusable.status === 'open' && !(await this.d.repo.isExpired(reusable.id))) {
      return { alreadyCompleted: false, session: sessionInit(reusable), state: held, page };
    }
    const state = randomToken(32);
    const row = await this.d.repo.insertSession({
      id: randomUUID(),
      clientId: client.id,
      tenantId: client.tenantId,
      stateHash: sha256Hex(state),
      ttlMs: this.d.sessionTtlMs,
    });
    return { alreadyCompleted: false, session: sessionInit(row), state, page };
  }

  async complete(req: s.CompleteSignupRequest): Promise<CompleteInit> {
    const session = await this.session(req.clientId, req.state);
    const client = await this.client(session);
    // a repeated call with the same state answers what the first one decided
    if (session.status === 'completed')
      return { status: 'completed', redirectUrl: successRedirect(client), session: sessionInit(session), completedNow: false };
    if (session.status === 'failed') return this.failedOutcome(session, client);
    if (client.signupStatus === 'completed') {
      const closed = (await this.d.repo.closeAsCompleted(session.id)) ?? session;
      return { status: 'completed', redirectUrl: successRedirect(client), session: sessionInit(closed), completedNow: false };
    }
    const claimed = await this.claim(session);
    return this.run(claimed, client, req);
  }

  async fail(req: s.FailSignupRequest): Promise<MessageInitShape<typeof s.FailSignupResponseSchema>> {
    if (!(BROWSER_FAILURE_REASONS as readonly string[]).includes(req.reason)) {
      throw AppError.validation([{ loc: ['reason'], msg: `must be one of ${BROWSER_FAILURE_REASONS.join(', ')}`, type: 'enum', input: req.reason, ctx: {} }]);
    }
    const session = await this.session(req.clientId, req.state);
    const client = await this.client(session);
    if (session.status === 'completed' || client.signupStatus === 'completed')
      throw AppError.conflict('signup_already_completed', 'Signup is already completed for this client');
    if (session.status === 'completing') throw AppError.conflict('signup_in_progress', 'This signup is being completed');
    const failed = (await this.d.repo.markFailed(session.id, { reason: req.reason, detail: 'Reported by the signup page' })) ?? session;
    const reason = failed.failure_reason ?? req.reason;
    if (failed !== session) await this.markClientFailed(session, reason);
    return { session: sessionInit(failed), redirectUrl: failureRedirect(client, reason) };
  }

  private async session(clientId: string, state: string): Promise<SessionRow> {
    const row = state ? await this.d.repo.findByStateHash(sha256Hex(state)) : undefined;
    // a state of another client (another tenant's included) is unknown here: never reveal it exists
    if (!row || row.client_id !== clientId) throw sessionNotFound();
    return row;
  }

  private async client(session: SessionRow): Promise<td.Client> {
    return (await this.d.directory.getClient({ tenantId: session.tenant_id, clientId: session.client_id })).client!;
  }

  private async claim(session: SessionRow): Promise<SessionRow> {
    if (session.status === 'completing') throw AppError.conflict('signup_in_progress', 'This signup is being completed');
    if (await this.d.repo.isExpired(session.id)) throw AppError.conflict('signup_session_expired', 'This signup page has expired; open the signup link again');
    const res = await this.d.repo.claim(session.id, session.client_id, this.d.staleAfterMs);
    if ('claimed' in res) return res.claimed;
    if ('busy' in res) throw AppError.conflict('signup_in_progress', 'Another signup of this client is being completed');
    throw AppError.conflict('signup_in_progress', 'This signup is being completed or has expired; open the signup link again');
  }

  /** The claimed session through every step; whatever happens, it leaves "completing". */
  private async run(session: SessionRow, client: td.Client, req: s.CompleteSignupRequest): Promise<CompleteInit> {
    const ids = { tenantId: session.tenant_id, clientId: session.client_id };
    let completedNow: boolean;
    try {
      await this.d.directory.setClientSignupStatus({ ...ids, signupStatus: 'in_progress' });
      const onboarded = await onboard(this.d.provider, this.d.pins, {
        clientId: client.id,
        code: req.code,
        wabaId: req.businessAccountId,
        phoneNumberId: req.phoneNumberId,
      });
      completedNow = (await this.activate(ids, req, onboarded)).completedNow;
    } catch (e) {
      // completed meanwhile through another session: nothing is left to do, and nothing failed
      if (isAppError(e) && e.code === 'signup_already_completed') completedNow = false;
      else return this.failed(session, client, e);
    }
    // the client is active from here on: whatever happens to this session row, the outcome is "completed"
    const done = await this.d.repo.markCompleted(session.id);
    this.d.logger.info({ client_id: ids.clientId, session_id: session.id, completed_now: completedNow }, 'signup completed');
    this.d.onOutcome?.('completed', '');
    return { status: 'completed', redirectUrl: successRedirect(client), session: sessionInit(done), completedNow };
  }

  private async failed(session: SessionRow, client: td.Client, e: unknown): Promise<CompleteInit> {
    const f = failure(isAppError(e) && (e.kind === 'unavailable' || e.kind === 'timeout') ? 'service_unavailable' : 'internal_error', e);
    const log = { client_id: session.client_id, session_id: session.id, reason: f.reason, provider_code: f.providerCode, detail: f.detail };
    if (f.reason === 'internal_error') this.d.logger.error({ ...log, err: e }, 'signup failed unexpectedly');
    else this.d.logger.warn(log, 'signup step failed');
    const failed = (await this.d.repo.markFailed(session.id, { reason: f.reason, detail: f.detail })) ?? session;
    await this.markClientFailed(session, f.reason);
    this.d.onOutcome?.('failed', f.reason);
    return this.failedOutcome(failed, client);
  }

  /** The tenant directory activates the client and writes signup_completed in one transaction. */
  private async activate(ids: { tenantId: string; clientId: string }, req: s.CompleteSignupRequest, onboarded: Onboarded) {
    try {
      return await this.d.directory.completeClientSignup({
        ...ids,
        businessAccountId: req.businessAccountId,
        phoneNumberId: req.phoneNumberId,
        accessToken: onboarded.accessToken,
        providerBusinessId: req.providerBusinessId || undefined,
        catalogId: onboarded.catalogId,
        webhookRegistered: true,
      });
    } catch (e) {
      // the number already belongs to another client: the one activation failure the customer can act on
      throw failure(isAppError(e) && e.code === 'phone_number_in_use' ? 'phone_number_in_use' : 'activation_failed', e);
    }
  }

  private failedOutcome(session: SessionRow, client: td.Client): CompleteInit {
    const reason = session.failure_reason ?? 'unknown';
    return { status: 'failed', failureReason: reason, redirectUrl: failureRedirect(client, reason), session: sessionInit(session), completedNow: false };
  }

  /** Best effort: the session already records the failure; a directory outage must not hide the outcome. */
  private async markClientFailed(session: SessionRow, reason: string): Promise<void> {
    try {
      await this.d.directory.setClientSignupStatus({ tenantId: session.tenant_id, clientId: session.client_id, signupStatus: 'failed', failureReason: reason });
    } catch (e) {
      if (!(isAppError(e) && e.code === 'signup_already_completed'))
        this.d.logger.warn({ err: e, client_id: session.client_id }, 'could not record the failed signup on the client');
    }
  }
}
