import type { Context } from 'koa';
import { tenantOf } from '../auth';
import { ListCursors } from '../cursors';
import { respondNull } from '../idempotency';
import { pageOf, respond, Template, TemplatesSynced } from '../presenters';
import { createTemplateBody, deleteTemplatesQuery, listTemplatesQuery, syncTemplatesBody, templateClientQuery, templatePath } from '../schemas/templates';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';

interface CreateBody {
  client_id: string;
  name: string;
  language: string;
  category: string;
  parameter_format?: string;
  message_send_ttl_seconds?: number;
  components: unknown[];
}

const Templates = pageOf(Template);

/** Template management (issue 12): the provider's templates of a client, through the local copy the messaging service keeps. */
export const registerTemplateRoutes: RegisterRoutes = (router, { services, config }) => {
  const cursors = new ListCursors(config.adminToken);
  const caller = (ctx: Context, clientId: string) => ({ tenantId: tenantOf(ctx), clientId });

  router.get(
    '/api/templates',
    operation({
      operationId: 'listTemplates',
      summary: "A client's templates",
      description: 'Ordered by name, language, id. A cursor of another list, client or tenant, or one altered, is a 422 (`cursor_invalid`).',
      tags: ['Templates'],
      request: { query: listTemplatesQuery },
      responses: { 200: json('A page of templates.', Templates) },
      errors: [404, 409],
    }),
    async (ctx) => {
      const { query } = validateParts<{ query: { client_id: string; status?: string; name?: string; limit: number; cursor?: string } }>({
        query: [listTemplatesQuery, ctx.query],
      });
      const scope = ['templates', tenantOf(ctx), query.client_id];
      const res = await services.templates.listTemplates({
        caller: caller(ctx, query.client_id),
        status: query.status,
        name: query.name,
        limit: query.limit,
        cursor: cursors.open(scope, query.cursor),
      });
      respond(ctx, Templates, { items: res.templates, nextCursor: cursors.seal(scope, res.nextCursor) });
    },
  );

  router.post(
    '/api/templates',
    operation({
      operationId: 'createTemplate',
      summary: 'Submit a template for review',
      description:
        "The provider's create body (any category, `parameter_format` `POSITIONAL` or `NAMED`, AUTHENTICATION templates with their OTP button) with `client_id`, passed on unchanged. What the provider would refuse is a 422 naming the field first, with no provider call: variables not numbered 1 to n, named variables without `parameter_format: NAMED`, a missing example, an AUTHENTICATION template with texts of its own or without its OTP button, a time-to-live out of its category's range.",
      tags: ['Templates'],
      request: { body: createTemplateBody },
      responses: { 200: json('The template.', Template) },
      errors: [404, 409, 429, 502],
    }),
    async (ctx) => {
      const { body } = validateParts<{ body: CreateBody }>({ body: [createTemplateBody, ctx.request.body] });
      const res = await services.templates.createTemplate({
        caller: caller(ctx, body.client_id),
        name: body.name,
        language: body.language,
        category: body.category,
        parameterFormat: body.parameter_format,
        messageSendTtlSeconds: body.message_send_ttl_seconds,
        componentsJson: JSON.stringify(body.components),
      });
      respond(ctx, Template, res.template);
    },
  );

  router.post(
    '/api/templates/sync',
    operation({
      operationId: 'syncTemplates',
      summary: "Refresh the local copy from the provider's list",
      tags: ['Templates'],
      request: { body: syncTemplatesBody },
      responses: {
        200: json('Counts.', TemplatesSynced),
      },
      errors: [404, 409, 429, 502],
    }),
    async (ctx) => {
      const { body } = validateParts<{ body: { client_id: string } }>({ body: [syncTemplatesBody, ctx.request.body] });
      const res = await services.templates.syncTemplates({ caller: caller(ctx, body.client_id) });
      respond(ctx, TemplatesSynced, res);
    },
  );

  router.get(
    '/api/templates/:template_id',
    operation({
      operationId: 'getTemplate',
      summary: 'A template',
      tags: ['Templates'],
      request: { path: templatePath, query: templateClientQuery },
      responses: { 200: json('The template.', Template) },
      errors: [404, 409],
    }),
    async (ctx) => {
      const { path, query } = validateParts<{ path: { template_id: string }; query: { client_id: string } }>({
        path: [templatePath, ctx.params],
        query: [templateClientQuery, ctx.query],
      });
      const res = await services.templates.getTemplate({ caller: caller(ctx, query.client_id), templateId: path.template_id });
      respond(ctx, Template, res.template);
    },
  );

  router.delete(
    '/api/templates',
    operation({
      operationId: 'deleteTemplates',
      summary: 'Delete a template (by name: every language; or by id)',
      tags: ['Templates'],
      request: { query: deleteTemplatesQuery },
      responses: { 200: json('Deleted.', null) },
      errors: [404, 409, 429, 502],
    }),
    async (ctx) => {
      const { query } = validateParts<{ query: { client_id: string; name?: string; template_id?: string } }>({ query: [deleteTemplatesQuery, ctx.query] });
      await services.templates.deleteTemplates({ caller: caller(ctx, query.client_id), name: query.name ?? '', templateId: query.template_id });
      respondNull(ctx);
    },
  );
};
