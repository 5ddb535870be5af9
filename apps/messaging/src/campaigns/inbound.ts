import type { Db } from '@gateway/store';
import { MESSAGING_LIMIT_REFUSAL, type PortfolioWindows } from './messaging-limit';
import type { OptOutSignal } from './opt-out-signals';
import { SqlCampaignRepository } from './store';

/** The provider's marketing opt-out error (the user stopped marketing messages). */
export const MARKETING_OPT_OUT = 131050;

const errorCode = (errors: unknown[] | undefined): number | undefined => {
  const first = errors?.[0] as { code?: unknown } | undefined;
  return typeof first?.code === 'number' ? first.code : undefined;
};

/** The statuses that move a campaign recipient (the others change nothing of it). */
const MOVING = new Set(['delivered', 'read', 'failed']);

/** What the inbound consumer does for campaigns and opt-outs with a routed provider body. */
export class CampaignInbound {
  constructor(
    private readonly repo: SqlCampaignRepository,
    private readonly windows?: PortfolioWindows,
    /** With it, opt-out signals are applied by the provider's timestamps (`applyOptOuts`). */
    private readonly db?: Db,
  ) {}

  /**
   * A status of a message: its campaign recipient follows; a 131050 failure puts the user on the client's list; a
   * 131049 (the messaging limit) defers the recipient instead of failing it.
   */
  async applyStatus(messageId: string, status: string, errors: unknown[] | undefined): Promise<void> {
    const code = status === 'failed' ? errorCode(errors) : undefined;
    if (code === MESSAGING_LIMIT_REFUSAL && this.windows && (await this.windows.deferRefused(messageId))) return;
    await this.repo.applyStatus(messageId, status, code === undefined ? null : String(code));
    if (code === MARKETING_OPT_OUT) await this.repo.optOutRecipientOf(messageId);
  }

  /**
   * `applyStatus` for the statuses of many webhooks at once (the inbound router's group commit), in the order given:
   * the usual ones (delivered, read, a failure of another code) in one statement per round, each message once a round
   * (a message's second status in the next round), the two special failures one by one as `applyStatus` does them.
   */
  async applyStatuses(statuses: Array<{ messageId: string; status: string; errors?: unknown[] }>): Promise<void> {
    const rounds: Array<typeof statuses> = [];
    const seen = new Map<string, number>();
    for (const s of statuses) {
      if (!MOVING.has(s.status)) continue;
      const n = seen.get(s.messageId) ?? 0;
      seen.set(s.messageId, n + 1);
      (rounds[n] ??= []).push(s);
    }
    for (const round of rounds) {
      const plain: Array<{ messageId: string; status: string; errorCode: string | null }> = [];
      for (const s of round) {
        const code = s.status === 'failed' ? errorCode(s.errors) : undefined;
        if (code === MESSAGING_LIMIT_REFUSAL || code === MARKETING_OPT_OUT) await this.applyStatus(s.messageId, s.status, s.errors);
        else plain.push({ messageId: s.messageId, status: s.status, errorCode: code === undefined ? null : String(code) });
      }
      await this.repo.applyStatuses(plain);
    }
  }

  /**
   * Stops and resumes, each applied only when it is the user's latest by the provider's timestamp (a signal without
   * one: when it is handled): a `resume` is not undone by an earlier `stop` handled after it. The user's last
   * signal is kept (`opt_out_signals`, migration 53) and its row locked while the list changes, so two signals of
   * one user handled at once apply one after the other. Signals of one second are applied in the order handled.
   */
  async applyOptOuts(signals: Array<OptOutSignal & { clientId: string }>): Promise<void> {
    for (const s of signals) {
      if (!this.db) {
        await this.apply(this.repo, s);
        continue;
      }
      await this.db.tx(async (q) => {
        const latest = await q.query(
          `INSERT INTO opt_out_signals (client_id, user_id, value, signal_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (client_id, user_id) DO UPDATE SET value = EXCLUDED.value, signal_at = EXCLUDED.signal_at
             WHERE opt_out_signals.signal_at <= EXCLUDED.signal_at
           RETURNING user_id`,
          [s.clientId, s.user, s.value, new Date(s.at ?? Date.now())],
        );
        if (latest.length) await this.apply(new SqlCampaignRepository(q), s);
      });
    }
  }

  private async apply(repo: SqlCampaignRepository, s: OptOutSignal & { clientId: string }): Promise<void> {
    if (s.value === 'stop') await repo.addOptOuts(s.clientId, [s.user], s.source);
    else await repo.removeOptOuts(s.clientId, [s.user]);
  }
}
