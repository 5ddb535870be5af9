import { GraphError } from '../errors';
import type { SimState } from '../state';
import type { WebhookSender } from '../webhooks';
import type { SimTemplate, TemplateReview, TemplateStatus } from './model';

/**
 * The templates of every business account, their review, and the signed `message_template_status_update`
 * webhooks (reference §7.7) each status change produces.
 */
export class TemplateRegistry {
  readonly templates: Map<string, SimTemplate>;
  review: TemplateReview = { mode: 'auto', delayMs: 2000 };
  /** Whether sends of templates are checked against the registry (the provider always does). */
  enforce = true;
  /** Templates a business account may create per hour (provider-2026.md §6.4: 100). */
  creationsPerHour = 100;
  /** When each account created its templates (simulator clock, ms), for the hourly limit. */
  private readonly creations = new Map<string, number[]>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly state: SimState,
    private readonly webhooks: WebhookSender,
  ) {
    this.templates = state.templates;
  }

  /**
   * Counts a creation against the account's hourly limit, or refuses it. The code the provider answers this limit
   * with is not documented: the business account rate limit's, 80007 (provider-2026.md §11).
   */
  countCreation(wabaId: string): void {
    const now = this.state.now();
    const recent = (this.creations.get(wabaId) ?? []).filter((at) => at > now - 3_600_000);
    if (recent.length >= this.creationsPerHour) {
      throw new GraphError(400, 80007, '(#80007) Rate limit hit', {
        details: `A business account can create at most ${this.creationsPerHour} message templates per hour`,
      });
    }
    recent.push(now);
    this.creations.set(wabaId, recent);
  }

  find(wabaId: string, name: string, language: string): SimTemplate | undefined {
    for (const t of this.templates.values()) if (t.wabaId === wabaId && t.name === name && t.language === language) return t;
    return undefined;
  }

  ofWaba(wabaId: string): SimTemplate[] {
    return [...this.templates.values()].filter((t) => t.wabaId === wabaId && t.status !== 'DELETED');
  }

  add(t: SimTemplate): void {
    this.templates.set(t.id, t);
    if (t.status === 'PENDING' && this.review.mode === 'auto') {
      const timer = setTimeout(() => {
        this.timers.delete(timer);
        if (this.templates.get(t.id)?.status === 'PENDING') void this.setStatus(t, 'APPROVED', null);
      }, this.review.delayMs);
      timer.unref();
      this.timers.add(timer);
    }
  }

  /** Moves a template to a status and tells the business account's webhook, signed like every provider webhook. */
  async setStatus(
    t: SimTemplate,
    status: TemplateStatus,
    reason: string | null,
    otherInfo?: { title: string; description: string },
  ): Promise<{ status: number | null; body: string }> {
    t.status = status;
    t.rejectedReason = status === 'REJECTED' ? (reason ?? 'INVALID_FORMAT') : null;
    if (status === 'DELETED') this.templates.delete(t.id);
    const value = {
      event: status,
      message_template_id: Number(t.id),
      message_template_name: t.name,
      message_template_language: t.language,
      reason: status === 'PENDING_DELETION' ? null : (reason ?? 'NONE'),
      message_template_category: t.category,
      ...(otherInfo ? { other_info: otherInfo } : {}),
    };
    return this.webhooks.send(this.webhooks.envelope(t.wabaId, 'message_template_status_update', value, Math.floor(this.state.now() / 1000)));
  }

  stop(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
