import { Readable } from 'node:stream';
import type { Context } from 'koa';
import type { campaigns as cp } from '@gateway/contracts';
import { tenantOf } from '../auth';
import { csvLayout, csvRows } from '../campaigns-csv';
import { ListCursors } from '../cursors';
import { json, operation } from '../openapi/operation';
import { Campaign, CampaignRecipient, OptOut, OptOutsAdded, OptOutsRemoved, pageOf, RecipientsAdded, respond } from '../presenters';
import {
  addRecipientsBody,
  campaignActionPath,
  campaignPath,
  createCampaignBody,
  listCampaignsQuery,
  listOptOutsQuery,
  listRecipientsQuery,
  optOutsBody,
  optOutsPath,
} from '../schemas/campaigns';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

interface RecipientBody {
  to?: string;
  recipient?: string;
  parameters?: string[] | Record<string, string>;
}

interface CreateBody {
  client_id: string;
  name: string;
  template_name: string;
  lang: string;
  components?: unknown[];
  recipients?: RecipientBody[];
  schedule_at?: string;
  rate_per_second?: number;
}

/** Recipients per AddRecipients call of a CSV upload: what the edge holds at once, whatever the file's size. */
const CSV_CHUNK = 1000;

const recipientInput = (r: RecipientBody) => ({
  // `to` wins when both are given, as on the send routes
  ...(r.to ? { to: r.to } : { recipient: r.recipient }),
  positional: Array.isArray(r.parameters) ? r.parameters : [],
  named: r.parameters && !Array.isArray(r.parameters) ? r.parameters : {},
});

/** A CSV upload of recipients reads its own body (streamed), like the media upload. */
export const isCampaignCsvUpload = (ctx: Context) => ctx.method === 'POST' && /^\/api\/campaigns\/[^/]+\/recipients$/.test(ctx.path) && !!ctx.is('text/csv');

const Campaigns = pageOf(Campaign);
const Recipients = pageOf(CampaignRecipient);
const OptOuts = pageOf(OptOut);

/** Campaigns (issue 26): a template to many recipients, paced and sent by the messaging service; and each client's opt-out list. */
export const registerCampaignRoutes: RegisterRoutes = (router, { services, config }) => {
  const cursors = new ListCursors(config.adminToken);
  const c = services.campaigns;
  const tenant = (ctx: Context) => ({ tenantId: tenantOf(ctx), clientId: '' });

  router.post(
    '/api/campaigns',
    operation({
      operationId: 'createCampaign',
      summary: 'Create a campaign',
      description:
        "One approved template to many recipients, each with its own values of the template's body variables (`parameters`: positional list or named object), given by phone number (`to`) or business-scoped user id (`recipient`, sent with the provider's `recipient` field; with both, `to`). Duplicates are sent once. The template must exist in the client's local copy, be APPROVED and take the recipients' values, else a 422 naming the field before anything is stored. Without `schedule_at` the campaign is a `draft` until `start`; with it, it starts by itself then. Sends are paced to the number's throughput (80 per second unless the provider says otherwise), lowered by `rate_per_second`.",
      tags: ['Campaigns'],
      request: { body: createCampaignBody },
      responses: { 201: json('The campaign.', Campaign) },
      errors: [404, 409],
    }),
    async (ctx) => {
      const { body } = validateParts<{ body: CreateBody }>({ body: [createCampaignBody, ctx.request.body] });
      const res = await c.createCampaign({
        caller: { tenantId: tenantOf(ctx), clientId: body.client_id },
        name: body.name,
        templateName: body.template_name,
        lang: body.lang,
        componentsJson: JSON.stringify(body.components ?? []),
        recipients: (body.recipients ?? []).map(recipientInput),
        scheduleAt: body.schedule_at,
        ratePerSecond: body.rate_per_second,
      });
      respond(ctx, Campaign, res.campaign, 201);
    },
  );

  router.get(
    '/api/campaigns',
    operation({
      operationId: 'listCampaigns',
      summary: "A client's campaigns",
      description: 'Newest first.',
      tags: ['Campaigns'],
      request: { query: listCampaignsQuery },
      responses: { 200: json('A page of campaigns.', Campaigns) },
      errors: [404],
    }),
    async (ctx) => {
      const { query } = validateParts<{ query: { client_id: string; limit: number; cursor?: string } }>({ query: [listCampaignsQuery, ctx.query] });
      const scope = ['campaigns', tenantOf(ctx), query.client_id];
      const res = await c.listCampaigns({
        caller: { tenantId: tenantOf(ctx), clientId: query.client_id },
        limit: query.limit,
        cursor: cursors.open(scope, query.cursor),
      });
      respond(ctx, Campaigns, { items: res.campaigns, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.get(
    '/api/campaigns/:id',
    operation({
      operationId: 'getCampaign',
      summary: 'A campaign, with its counts',
      tags: ['Campaigns'],
      request: { path: campaignPath },
      responses: { 200: json('The campaign.', Campaign) },
      errors: [404],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [campaignPath, ctx.params] });
      respond(ctx, Campaign, (await c.getCampaign({ caller: tenant(ctx), campaignId: path.id })).campaign);
    },
  );

  router.post(
    '/api/campaigns/:id/recipients',
    operation({
      operationId: 'addCampaignRecipients',
      summary: 'Add recipients to a campaign',
      description:
        'A JSON list (`{"recipients": [...]}`, up to 100,000), or a CSV upload (`Content-Type: text/csv`) of any length: a header row with a `to` (phone numbers) and/or `recipient` (business-scoped user ids) column and one column per variable (named, or numbered 1, 2… for positional ones), streamed and added 1,000 rows at a time (a 422 names the first bad line; the rows before it are kept). Recipients already in the campaign are sent once.',
      tags: ['Campaigns'],
      request: { path: campaignPath, body: addRecipientsBody },
      responses: { 200: json('What was added.', RecipientsAdded) },
      errors: [404, 409, 413],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [campaignPath, ctx.params] });
      const caller = tenant(ctx);
      if (isCampaignCsvUpload(ctx)) {
        // the campaign is looked up before any byte is read: another tenant's is a 404 at once
        await c.getCampaign({ caller, campaignId: path.id });
        const total: cp.AddRecipientsResponse = { $typeName: 'campaigns.v1.AddRecipientsResponse', added: 0, duplicates: 0, total: 0 };
        let read: ReturnType<typeof csvLayout> | undefined;
        let chunk: ReturnType<ReturnType<typeof csvLayout>>[] = [];
        let line = 0;
        let firstRow = 2;
        let flushing = false;
        const flush = async () => {
          if (!chunk.length) return;
          flushing = true;
          const res = await c.addRecipients({ caller, campaignId: path.id, recipients: chunk, firstRow });
          flushing = false;
          total.added += res.added;
          total.duplicates += res.duplicates;
          firstRow += chunk.length;
          chunk = [];
        };
        try {
          for await (const cells of csvRows(ctx.req)) {
            line += 1;
            if (!read) {
              read = csvLayout(cells);
              continue;
            }
            chunk.push(read(cells, line));
            if (chunk.length >= CSV_CHUNK) await flush();
          }
        } catch (e) {
          // a refused line: the rows before it are kept, those of its own chunk too (not when the service refused the chunk)
          if (!flushing) await flush();
          throw e;
        }
        await flush();
        // the chunks' answers carry no total (a count per chunk would read the growing campaign each time): one at the end
        total.total = (await c.getCampaign({ caller, campaignId: path.id })).campaign?.counts?.total ?? 0;
        respond(ctx, RecipientsAdded, total);
        return;
      }
      const { body } = validateParts<{ body: { recipients: RecipientBody[] } }>({ body: [addRecipientsBody, ctx.request.body] });
      const res = await c.addRecipients({ caller, campaignId: path.id, recipients: body.recipients.map(recipientInput) });
      respond(ctx, RecipientsAdded, res);
    },
  );

  router.get(
    '/api/campaigns/:id/recipients',
    operation({
      operationId: 'listCampaignRecipients',
      summary: "A campaign's recipients, with their outcome",
      description: 'In the order they were added; `status` filters.',
      tags: ['Campaigns'],
      request: { path: campaignPath, query: listRecipientsQuery },
      responses: { 200: json('A page of recipients.', Recipients) },
      errors: [404],
    }),
    async (ctx) => {
      const { path, query } = validateParts<{ path: { id: string }; query: { status?: string; limit: number; cursor?: string } }>({
        path: [campaignPath, ctx.params],
        query: [listRecipientsQuery, ctx.query],
      });
      const scope = ['campaign-recipients', tenantOf(ctx), path.id, query.status ?? ''];
      const res = await c.listRecipients({
        caller: tenant(ctx),
        campaignId: path.id,
        status: query.status,
        limit: query.limit,
        cursor: cursors.open(scope, query.cursor),
      });
      respond(ctx, Recipients, { items: res.recipients, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.get(
    '/api/campaigns/:id/recipients.csv',
    operation({
      operationId: 'exportCampaignRecipients',
      summary: "A campaign's recipients as CSV",
      description: 'Every recipient (`to,status,message_id,error_code,reason,updated_at`), streamed page by page.',
      tags: ['Campaigns'],
      request: { path: campaignPath },
      responses: { 200: { description: 'The CSV.', contentType: 'text/csv', schema: { type: 'string' } } },
      errors: [404],
      hidden: true,
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [campaignPath, ctx.params] });
      const caller = tenant(ctx);
      const first = await c.listRecipients({ caller, campaignId: path.id, limit: 100 });
      const cell = (v: string | undefined) => (v === undefined ? '' : /[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
      const lines = (rs: cp.CampaignRecipient[]) =>
        rs.map((r) => [r.to, r.status, r.messageId, r.errorCode, r.reason, r.updatedAt].map(cell).join(',') + '\n').join('');
      async function* rows() {
        yield 'to,status,message_id,error_code,reason,updated_at\n';
        let page = first;
        for (;;) {
          yield lines(page.recipients);
          if (!page.nextCursor) return;
          page = await c.listRecipients({ caller, campaignId: path.id, limit: 100, cursor: page.nextCursor });
        }
      }
      ctx.type = 'text/csv';
      ctx.set('Content-Disposition', `attachment; filename="campaign-${path.id}.csv"`);
      ctx.body = Readable.from(rows());
    },
  );

  for (const action of ['start', 'pause', 'resume', 'cancel'] as const) {
    router.post(
      `/api/campaigns/:id/${action}`,
      operation({
        operationId: `${action}Campaign`,
        summary: { start: 'Start a campaign now', pause: 'Pause a campaign', resume: 'Resume a paused campaign', cancel: 'Cancel a campaign' }[action],
        description: {
          start: 'A draft or scheduled campaign starts sending.',
          pause: 'Sending stops within a second; what was sent stays sent.',
          resume: 'Sending continues where it stopped; no recipient is sent twice.',
          cancel: 'Cannot be undone: every recipient not yet sent is `skipped` (reason `cancelled`).',
        }[action],
        tags: ['Campaigns'],
        request: { path: campaignPath },
        responses: { 200: json('The campaign.', Campaign) },
        errors: [404, 409],
      }),
      async (ctx) => {
        const { path } = validateParts<{ path: { id: string; action: string } }>({ path: [campaignActionPath, { ...ctx.params, action }] });
        respond(ctx, Campaign, (await c.controlCampaign({ caller: tenant(ctx), campaignId: path.id, action })).campaign);
      },
    );
  }

  router.get(
    '/api/clients/:id/opt-outs',
    operation({
      operationId: 'listOptOuts',
      summary: "A client's opt-out list",
      description: 'Phone numbers (digits) and business-scoped user ids that marketing campaigns skip; newest first.',
      tags: ['Campaigns'],
      request: { path: optOutsPath, query: listOptOutsQuery },
      responses: { 200: json('A page of opt-outs.', OptOuts) },
      errors: [404],
    }),
    async (ctx) => {
      const { path, query } = validateParts<{ path: { id: string }; query: { limit: number; cursor?: string } }>({
        path: [optOutsPath, ctx.params],
        query: [listOptOutsQuery, ctx.query],
      });
      const scope = ['opt-outs', tenantOf(ctx), path.id];
      const res = await c.listOptOuts({
        caller: { tenantId: tenantOf(ctx), clientId: path.id },
        limit: query.limit,
        cursor: cursors.open(scope, query.cursor),
      });
      respond(ctx, OptOuts, { items: res.optOuts, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.post(
    '/api/clients/:id/opt-outs',
    operation({
      operationId: 'addOptOuts',
      summary: "Add users to a client's opt-out list",
      tags: ['Campaigns'],
      request: { path: optOutsPath, body: optOutsBody },
      responses: { 200: json('How many were new.', OptOutsAdded) },
      errors: [404],
    }),
    async (ctx) => {
      const { path, body } = validateParts<{ path: { id: string }; body: { users: string[] } }>({
        path: [optOutsPath, ctx.params],
        body: [optOutsBody, ctx.request.body],
      });
      respond(ctx, OptOutsAdded, await c.addOptOuts({ caller: { tenantId: tenantOf(ctx), clientId: path.id }, users: body.users }));
    },
  );

  router.delete(
    '/api/clients/:id/opt-outs',
    operation({
      operationId: 'removeOptOuts',
      summary: "Remove users from a client's opt-out list",
      tags: ['Campaigns'],
      request: { path: optOutsPath, body: optOutsBody },
      responses: { 200: json('How many were removed.', OptOutsRemoved) },
      errors: [404],
    }),
    async (ctx) => {
      const { path, body } = validateParts<{ path: { id: string }; body: { users: string[] } }>({
        path: [optOutsPath, ctx.params],
        body: [optOutsBody, ctx.request.body],
      });
      respond(ctx, OptOutsRemoved, await c.removeOptOuts({ caller: { tenantId: tenantOf(ctx), clientId: path.id }, users: body.users }));
    },
  );
};
