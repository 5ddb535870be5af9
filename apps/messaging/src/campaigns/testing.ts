import type { CampaignRow, SqlCampaignRepository } from './store';

/**
 * For the campaign store's unit tests: a campaign of tenant t1's client c1 (a utility template, no schedule or
 * rate of its own), with its recipients when given (no parameters).
 */
export async function testCampaign(
  repo: SqlCampaignRepository,
  opts: { name?: string; status?: CampaignRow['status']; users?: string[] } = {},
): Promise<string> {
  const c = await repo.create({
    tenantId: 't1',
    clientId: 'c1',
    name: opts.name ?? 'x',
    templateName: 'n',
    lang: 'en_US',
    category: 'UTILITY',
    components: [],
    status: opts.status ?? 'running',
    scheduleAt: null,
    ratePerSecond: null,
  });
  if (opts.users?.length)
    await repo.addRecipients(
      c.id,
      opts.users.map((to) => ({ to, params: null })),
    );
  return c.id;
}
