import type { Context } from 'koa';
import { tenantOf } from '../auth';
import { respondNull } from '../idempotency';
import { templateJson } from '../presenters';
import { createTemplateBody, deleteTemplatesQuery, listTemplatesQuery, syncTemplatesBody, templateClientQuery, templatePath } from '../schemas/templates';
import { validateParts } from '../validation';
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

  router.get('/api/templates', async (ctx) => {
    const { query } = validateParts<{ query: { client_id: string; status?: string; name?: string; limit: number; cursor?: string } }>({ query: [listTemplatesQuery, ctx.query] });
    const res = await services.templates.listTemplates({ caller: caller(ctx, query.client_id), status: query.status, name: query.name, limit: query.limit, cursor: query.cursor });
    ctx.body = { data: res.templates.map(templateJson), next_cursor: res.nextCursor ?? null };
  });

  router.post('/api/templates', async (ctx) => {
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

  router.post('/api/templates/sync', async (ctx) => {
    const { body } = validateParts<{ body: { client_id: string } }>({ body: [syncTemplatesBody, ctx.request.body] });
    const res = await services.templates.syncTemplates({ caller: caller(ctx, body.client_id) });
    ctx.body = { synced: res.synced, removed: res.removed };
  });

  router.get('/api/templates/:template_id', async (ctx) => {
    const { path, query } = validateParts<{ path: { template_id: string }; query: { client_id: string } }>({ path: [templatePath, ctx.params], query: [templateClientQuery, ctx.query] });
    const res = await services.templates.getTemplate({ caller: caller(ctx, query.client_id), templateId: path.template_id });
    ctx.body = templateJson(res.template);
  });

  router.delete('/api/templates', async (ctx) => {
    const { query } = validateParts<{ query: { client_id: string; name?: string; template_id?: string } }>({ query: [deleteTemplatesQuery, ctx.query] });
    await services.templates.deleteTemplates({ caller: caller(ctx, query.client_id), name: query.name ?? '', templateId: query.template_id });
    respondNull(ctx);
  });
};
