import type { Context } from 'koa';
import { tenantOf } from '../auth';
import { respondNull } from '../idempotency';
import { templateJson } from '../presenters';
import { createTemplateBody, deleteTemplatesQuery, listTemplatesQuery, syncTemplatesBody, templateClientQuery, templatePath } from '../schemas/templates';
import { validateParts } from '../validation';
import { json, operation, page, ref } from '../openapi/operation';
import type { RegisterRoutes } from './context';

interface CreateBody {
  client_id: string;
  name: string;
  language: string;
  category: string;
  components: unknown[];
}

/** Template management (issue 12): the provider's templates of a client, through the local copy the messaging service keeps. */
export const registerTemplateRoutes: RegisterRoutes = (router, { services }) => {
  const caller = (ctx: Context, clientId: string) => ({ tenantId: tenantOf(ctx), clientId });

  router.get('/api/templates', operation({ operationId: 'listTemplates', summary: "A client's templates", tags: ['Templates'], request: { query: listTemplatesQuery }, responses: { 200: json('A page of templates.', page('Template')) }, errors: [404, 409] }), async (ctx) => {
    const { query } = validateParts<{ query: { client_id: string; status?: string; name?: string; limit: number; cursor?: string } }>({ query: [listTemplatesQuery, ctx.query] });
    const res = await services.templates.listTemplates({ caller: caller(ctx, query.client_id), status: query.status, name: query.name, limit: query.limit, cursor: query.cursor });
    ctx.body = { data: res.templates.map(templateJson), next_cursor: res.nextCursor ?? null };
  });

  router.post('/api/templates', operation({ operationId: 'createTemplate', summary: 'Submit a template for review', tags: ['Templates'], request: { body: createTemplateBody }, responses: { 200: json('The template.', ref('Template')) }, errors: [404, 409, 429, 502] }), async (ctx) => {
    const { body } = validateParts<{ body: CreateBody }>({ body: [createTemplateBody, ctx.request.body] });
    const res = await services.templates.createTemplate({
      caller: caller(ctx, body.client_id),
      name: body.name,
      language: body.language,
      category: body.category,
      componentsJson: JSON.stringify(body.components),
    });
    ctx.body = templateJson(res.template);
  });

  router.post(
    '/api/templates/sync',
    operation({
      operationId: 'syncTemplates',
      summary: "Refresh the local copy from the provider's list",
      tags: ['Templates'],
      request: { body: syncTemplatesBody },
      responses: { 200: json('Counts.', { type: 'object', required: ['synced', 'removed'], additionalProperties: false, properties: { synced: { type: 'integer' }, removed: { type: 'integer' } } }) },
      errors: [404, 409, 429, 502],
    }),
    async (ctx) => {
    const { body } = validateParts<{ body: { client_id: string } }>({ body: [syncTemplatesBody, ctx.request.body] });
    const res = await services.templates.syncTemplates({ caller: caller(ctx, body.client_id) });
    ctx.body = { synced: res.synced, removed: res.removed };
    },
  );

  router.get('/api/templates/:template_id', operation({ operationId: 'getTemplate', summary: 'A template', tags: ['Templates'], request: { path: templatePath, query: templateClientQuery }, responses: { 200: json('The template.', ref('Template')) }, errors: [404, 409] }), async (ctx) => {
    const { path, query } = validateParts<{ path: { template_id: string }; query: { client_id: string } }>({ path: [templatePath, ctx.params], query: [templateClientQuery, ctx.query] });
    const res = await services.templates.getTemplate({ caller: caller(ctx, query.client_id), templateId: path.template_id });
    ctx.body = templateJson(res.template);
  });

  router.delete('/api/templates', operation({ operationId: 'deleteTemplates', summary: 'Delete a template (by name: every language; or by id)', tags: ['Templates'], request: { query: deleteTemplatesQuery }, responses: { 200: json('Deleted.', null) }, errors: [404, 409, 429, 502] }), async (ctx) => {
    const { query } = validateParts<{ query: { client_id: string; name?: string; template_id?: string } }>({ query: [deleteTemplatesQuery, ctx.query] });
    await services.templates.deleteTemplates({ caller: caller(ctx, query.client_id), name: query.name ?? '', templateId: query.template_id });
    respondNull(ctx);
  });
};
