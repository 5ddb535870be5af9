import type { OptOutSignal } from './opt-out-signals';
import type { SqlCampaignRepository } from './store';

/** The provider's marketing opt-out error (the user stopped marketing messages). */
export const MARKETING_OPT_OUT = 131050;

const errorCode = (errors: unknown[] | undefined): number | undefined => {
  const first = errors?.[0] as { code?: unknown } | undefined;
  return typeof first?.code === 'number' ? first.code : undefined;
};

/** What the inbound consumer does for campaigns and opt-outs with a routed provider body. */
export class CampaignInbound {
  constructor(private readonly repo: SqlCampaignRepository) {}

  /** A status of a message: its campaign recipient follows; a 131050 failure puts the user on the client's list. */
  async applyStatus(messageId: string, status: string, errors: unknown[] | undefined): Promise<void> {
    const code = status === 'failed' ? errorCode(errors) : undefined;
    await this.repo.applyStatus(messageId, status, code === undefined ? null : String(code));
    if (code === MARKETING_OPT_OUT) await this.repo.optOutRecipientOf(messageId);
  }

  async applyOptOuts(signals: Array<OptOutSignal & { clientId: string }>): Promise<void> {
    for (const s of signals) {
      if (s.value === 'stop') await this.repo.addOptOuts(s.clientId, [s.user], s.source);
      else await this.repo.removeOptOuts(s.clientId, [s.user]);
    }
  }
}
