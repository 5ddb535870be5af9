import { AppError } from '@gateway/errors';
import { tenantOf } from '../auth';
import { respond, Usage } from '../presenters';
import { usageQuery } from '../schemas/admin';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';

const DAY_MS = 86_400_000;
const MAX_DAYS = 92;
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** GET /api/usage (issue 28): the plan and its quotas' use (the tenant directory), sends (messaging) and deliveries (dispatcher) per day. */
export const registerUsageRoutes: RegisterRoutes = (router, { services }) => {
  router.get(
    '/api/usage',
    operation({
      operationId: 'getUsage',
      summary: "The tenant's plan, how much of each quota is used, and sends and deliveries per day",
      description: `\`from\` and \`to\` are UTC days, inclusive (default: the last 30 days; at most ${MAX_DAYS} days).`,
      tags: ['Tenant'],
      request: { query: usageQuery },
      responses: { 200: json('The usage.', Usage) },
    }),
    async (ctx) => {
      const { query } = validateParts<{ query: { from?: string; to?: string } }>({ query: [usageQuery, ctx.query] });
      const to = query.to ?? day(Date.now());
      const from = query.from ?? day(Date.parse(to) - 29 * DAY_MS);
      const span = (Date.parse(to) - Date.parse(from)) / DAY_MS;
      // a day the calendar lacks (2026-02-30) reads back as another day
      if (day(Date.parse(from)) !== from || day(Date.parse(to)) !== to) {
        throw AppError.validation([{ loc: ['query', 'from'], msg: 'not a calendar day', type: 'date_invalid', input: `${from}..${to}`, ctx: {} }]);
      }
      if (!(span >= 0 && span < MAX_DAYS)) {
        throw AppError.validation([
          { loc: ['query', 'from'], msg: `from must be on or before to, at most ${MAX_DAYS} days apart`, type: 'date_range', input: from, ctx: {} },
        ]);
      }
      const tenantId = tenantOf(ctx);
      const [quotas, sends, deliveries] = await Promise.all([
        services.business.getQuotaUsage({ tenantId }),
        services.sendCounts.countByDay({ tenantId, from, to }),
        services.deliveryCounts.countByDay({ tenantId, from, to }),
      ]);
      respond(ctx, Usage, { plan: quotas.plan, limits: quotas.limits, sends: sends.counts, deliveries: deliveries.counts, from, to });
    },
  );
};
