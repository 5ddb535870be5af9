import type Router from '@koa/router';
import type { Context } from 'koa';
import { GraphError } from '../errors';
import { controlView, createFlow, parseCategories, setFlowJson } from '../flows/model';
import type { FlowValidationError } from '../flows/validate-flow-json';
import { FLOW_STATUSES, type Flow, type FlowStatus, type SimState } from '../state';
import { jsonBody } from './graph';

/**
 * The simulator's control API for flows, under /_sim/flows: what the provider's own tools (WhatsApp Manager)
 * would do behind the gateway's back: create a flow, change its state, delete it; and a full view of each
 * flow for assertions. Calls made to the Graph API are in GET /_sim/requests.
 */
export function registerFlowControl(router: Router, state: SimState): void {
  const found = (ctx: Context): Flow | undefined => {
    const flow = state.flows.get(String(ctx.params.id));
    if (!flow) {
      ctx.status = 404;
      ctx.body = { error: 'unknown flow' };
    }
    return flow;
  };
  // control answers are plain JSON errors, not the Graph envelope
  const badRequest = (ctx: Context, error: string) => {
    ctx.status = 400;
    ctx.body = { error };
  };

  router.get('/_sim/flows', (ctx) => {
    const waba = typeof ctx.query.waba_id === 'string' ? ctx.query.waba_id : undefined;
    ctx.body = [...state.flows.values()].filter((f) => !waba || f.wabaId === waba).map(controlView);
  });

  router.post('/_sim/flows', (ctx) => {
    const b = jsonBody(ctx);
    const waba = state.wabas.get(String(b.waba_id));
    if (!waba) return badRequest(ctx, 'waba_id must be a business account of the simulator');
    const status = b.status ?? 'DRAFT';
    if (!(FLOW_STATUSES as readonly unknown[]).includes(status)) return badRequest(ctx, `status must be one of ${FLOW_STATUSES.join(', ')}`);
    // a flow id a test names (the message kinds' examples send fixed ones)
    if (b.id !== undefined && (typeof b.id !== 'string' || !/^\d{1,64}$/.test(b.id) || state.flows.has(b.id)))
      return badRequest(ctx, 'id must be digits and not yet the id of a flow');
    try {
      const flow = createFlow(state, waba.id, {
        id: b.id as string | undefined,
        name: typeof b.name === 'string' ? b.name : `flow ${state.flows.size + 1}`,
        categories: b.categories === undefined ? ['OTHER'] : parseCategories(b.categories),
        endpointUri: typeof b.endpoint_uri === 'string' ? b.endpoint_uri : null,
      });
      if (b.flow_json !== undefined) setFlowJson(flow, typeof b.flow_json === 'string' ? b.flow_json : JSON.stringify(b.flow_json, null, 2));
      flow.status = status as FlowStatus;
      ctx.status = 201;
      ctx.body = controlView(flow);
    } catch (e) {
      if (e instanceof GraphError) return badRequest(ctx, e.opts.details ?? e.message);
      throw e;
    }
  });

  router.get('/_sim/flows/:id', (ctx) => {
    const flow = found(ctx);
    if (flow) ctx.body = controlView(flow);
  });

  /** Changes a flow behind the gateway's back: `status` and/or `validation_errors`. */
  router.put('/_sim/flows/:id', (ctx) => {
    const flow = found(ctx);
    if (!flow) return;
    const b = jsonBody(ctx);
    if (b.status !== undefined) {
      if (!(FLOW_STATUSES as readonly unknown[]).includes(b.status)) return badRequest(ctx, `status must be one of ${FLOW_STATUSES.join(', ')}`);
      flow.status = b.status as FlowStatus;
    }
    if (b.validation_errors !== undefined) {
      if (!Array.isArray(b.validation_errors)) return badRequest(ctx, 'validation_errors must be an array');
      flow.validationErrors = b.validation_errors as FlowValidationError[];
    }
    flow.updatedAt = new Date().toISOString();
    ctx.body = controlView(flow);
  });

  router.delete('/_sim/flows/:id', (ctx) => {
    if (found(ctx) && state.flows.delete(String(ctx.params.id))) ctx.status = 204;
  });

  /** The `download_url` of a flow's FLOW_JSON asset (a CDN link at the real provider: no token needed). */
  router.get('/_sim/flows/:id/flow.json', (ctx) => {
    const flow = found(ctx);
    if (!flow) return;
    if (flow.json === null) {
      ctx.status = 404;
      ctx.body = { error: 'the flow has no Flow JSON' };
      return;
    }
    ctx.type = 'application/json';
    ctx.body = flow.json;
  });
}
