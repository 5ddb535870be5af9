import type { Context } from 'koa';
import { tenantOf } from '../auth';
import { respondNull } from '../idempotency';
import { Flow, pageOf, respond } from '../presenters';
import { clientBody, clientQuery, createFlowBody, flowJsonBody, flowPath, listFlowsQuery } from '../schemas/flows';
import { ListCursors } from '../cursors';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';

interface CreateBody {
  client_id: string;
  name: string;
  categories: string[];
  flow_json?: Record<string, unknown>;
  clone_flow_id?: string;
  endpoint_uri?: string;
}

const Flows = pageOf(Flow);

/** Spec 4.5 (update JSON, publish, deprecate, delete: `200 null`) and the flow reads and create of decisions.md. */
export const registerFlowRoutes: RegisterRoutes = (router, { services, config }) => {
  const cursors = new ListCursors(config.adminToken);
  const caller = (ctx: Context, clientId: string) => ({ tenantId: tenantOf(ctx), clientId });

  const create = async (ctx: Context) => {
    const { body } = validateParts<{ body: CreateBody }>({ body: [createFlowBody, ctx.request.body] });
    const res = await services.flows.createFlow({
      caller: caller(ctx, body.client_id),
      name: body.name,
      categories: body.categories,
      flowJson: body.flow_json === undefined ? '' : JSON.stringify(body.flow_json),
      cloneFlowId: body.clone_flow_id,
      endpointUri: body.endpoint_uri,
    });
    respond(ctx, Flow, res.flow);
  };
  const createOp = operation({
    operationId: 'createFlow',
    summary: 'Create a flow (optionally with its JSON, or as a clone)',
    tags: ['Flows'],
    request: { body: createFlowBody },
    responses: { 200: json('The flow; `validation_errors` lists what the provider found in its JSON.', Flow) },
    errors: [404, 409, 429, 502],
  });
  router.post('/api/flows', createOp, create);
  router.post('/api/flows/', createOp, create);

  const list = async (ctx: Context) => {
    const { query } = validateParts<{ query: { client_id: string; limit: number; cursor?: string } }>({ query: [listFlowsQuery, ctx.query] });
    const scope = ['flows', tenantOf(ctx), query.client_id];
    const res = await services.flows.listFlows({ caller: caller(ctx, query.client_id), limit: query.limit, cursor: cursors.open(scope, query.cursor) });
    respond(ctx, Flows, { items: res.flows, nextCursor: cursors.seal(scope, res.nextCursor) });
  };
  const listOp = operation({
    operationId: 'listFlows',
    summary: "A client's flows, a page at a time",
    description:
      "Newest first (by `created_at`, then `id`). The first page (no `cursor`) reads the provider's list now, so flows made or deleted in the provider's own tools show; " +
      'the next pages continue from `next_cursor` over the flows as they were then: a flow created during the walk is not repeated and shifts nothing (it shows on the next first page). ' +
      'A cursor of another list, client or tenant, or one altered, is a 422 (`cursor_invalid`).',
    tags: ['Flows'],
    request: { query: listFlowsQuery },
    responses: { 200: json('A page of flows.', Flows) },
    errors: [404, 409, 429, 502],
  });
  router.get('/api/flows', listOp, list);
  router.get('/api/flows/', listOp, list);

  router.get(
    '/api/flows/:flow_id',
    operation({
      operationId: 'getFlow',
      summary: 'A flow',
      tags: ['Flows'],
      request: { path: flowPath, query: clientQuery },
      responses: { 200: json('The flow.', Flow) },
      errors: [404, 409, 429, 502],
    }),
    async (ctx) => {
      const { path, query } = validateParts<{ path: { flow_id: string }; query: { client_id: string } }>({
        path: [flowPath, ctx.params],
        query: [clientQuery, ctx.query],
      });
      respond(ctx, Flow, (await services.flows.getFlow({ caller: caller(ctx, query.client_id), flowId: path.flow_id })).flow);
    },
  );

  router.put(
    '/api/flows/:flow_id/json',
    operation({
      operationId: 'updateFlowJson',
      summary: "Replace a draft flow's JSON",
      tags: ['Flows'],
      request: { path: flowPath, body: flowJsonBody },
      responses: { 200: json('Saved.', null) },
      errors: [404, 409, 429, 502],
    }),
    async (ctx) => {
      const { path, body } = validateParts<{ path: { flow_id: string }; body: { client_id: string; flow_json: Record<string, unknown> } }>({
        path: [flowPath, ctx.params],
        body: [flowJsonBody, ctx.request.body],
      });
      await services.flows.updateFlowJson({ caller: caller(ctx, body.client_id), flowId: path.flow_id, flowJson: JSON.stringify(body.flow_json) });
      respondNull(ctx);
    },
  );

  for (const action of ['publish', 'deprecate'] as const) {
    const op = operation({
      operationId: `${action}Flow`,
      summary: action === 'publish' ? 'Publish a draft flow' : 'Deprecate a published flow',
      tags: ['Flows'],
      request: { path: flowPath, body: clientBody },
      responses: { 200: json('Done.', null) },
      errors: [404, 409, 429, 502],
    });
    router.post(`/api/flows/:flow_id/${action}`, op, async (ctx) => {
      const { path, body } = validateParts<{ path: { flow_id: string }; body: { client_id: string } }>({
        path: [flowPath, ctx.params],
        body: [clientBody, ctx.request.body],
      });
      const req = { caller: caller(ctx, body.client_id), flowId: path.flow_id };
      await (action === 'publish' ? services.flows.publishFlow(req) : services.flows.deprecateFlow(req));
      respondNull(ctx);
    });
  }

  router.delete(
    '/api/flows/:flow_id',
    operation({
      operationId: 'deleteFlow',
      summary: 'Delete a draft flow',
      tags: ['Flows'],
      request: { path: flowPath, query: clientQuery },
      responses: { 200: json('Deleted.', null) },
      errors: [404, 409, 429, 502],
    }),
    async (ctx) => {
      const { path, query } = validateParts<{ path: { flow_id: string }; query: { client_id: string } }>({
        path: [flowPath, ctx.params],
        query: [clientQuery, ctx.query],
      });
      await services.flows.deleteFlow({ caller: caller(ctx, query.client_id), flowId: path.flow_id });
      respondNull(ctx);
    },
  );
};
