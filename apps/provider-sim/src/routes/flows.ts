import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { invalidToken, unknownObject } from '../errors';
import { deleteRefused, deprecateRefused, flowParameter, publishRefused } from '../flows/errors';
import { parseFields, presentFlow } from '../flows/fields';
import { assertNameFree, beforeEdit, createFlow, isPublished, parseCategories, setFlowJson } from '../flows/model';
import type { Flow, SimState } from '../state';
import { bearer, jsonBody, wabaFor } from './graph';

export interface FlowsDeps {
  state: SimState;
  /** Newer provider behaviour: editing a published flow moves it back to DRAFT instead of error 139001. */
  publishedFlowsEditable: () => boolean;
}

const LIST_LIMIT = 25;

/** This simulator's own base URL as the caller reached it (for download and preview links). */
const selfUrl = (ctx: Context) => `${ctx.protocol}://${ctx.host}`;

/** The flow the token may act on; another business account's flow is "does not exist", as Graph answers. */
function flowFor(ctx: Context, state: SimState, flowId: string): Flow {
  const token = bearer(ctx, state);
  if (!state.tokens.has(token)) throw invalidToken();
  const flow = state.flows.get(flowId);
  if (!flow || !state.tokenAllows(token, flow.wabaId)) throw unknownObject(flowId, ctx.method.toLowerCase());
  return flow;
}

/**
 * Single-segment Graph paths (`/{id}`) are shared with other object types: only numeric ids that are not a
 * phone number or business account are flows here; anything else is left to the routes after this one.
 */
function isFlowPath(state: SimState, id: string): boolean {
  return /^\d+$/.test(id) && !state.phones.has(id) && !state.wabas.has(id) && !state.templates.has(id) && !state.media.has(id);
}

function optionalString(v: unknown, name: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw flowParameter(`${name} must be a string`);
  return v;
}

function requiredName(v: unknown): string {
  const name = optionalString(v, 'name')?.trim();
  if (!name) throw flowParameter('The parameter name is required');
  if (name.length > 200) throw flowParameter('name must be at most 200 characters');
  return name;
}

function endpointUri(v: unknown): string | undefined {
  const uri = optionalString(v, 'endpoint_uri');
  if (uri !== undefined && !/^https?:\/\//.test(uri)) throw flowParameter('endpoint_uri must be an http(s) URL');
  return uri;
}

/** Flows API (provider reference §5): create, list, get, metadata, assets, publish, deprecate, delete. */
export function registerFlows(router: Router, d: FlowsDeps): void {
  const { state } = d;

  router.post('/:wabaId/flows', (ctx) => {
    const waba = wabaFor(ctx, state, ctx.params.wabaId);
    const b = jsonBody(ctx);
    const name = requiredName(b.name);
    const cloneId = optionalString(b.clone_flow_id, 'clone_flow_id');
    if (cloneId && b.clone_template !== undefined) throw flowParameter('clone_flow_id and clone_template cannot be used together');
    const categories = parseCategories(b.categories);
    const flowJson = optionalString(b.flow_json, 'flow_json (the Flow JSON as a string)');
    const publish = b.publish === true || b.publish === 'true';
    if (publish && flowJson === undefined) throw flowParameter('publish requires flow_json');
    let source: Flow | undefined;
    if (cloneId) {
      source = state.flows.get(cloneId);
      if (!source || source.wabaId !== waba.id) throw flowParameter(`Flow with id ${cloneId} not found`);
    }
    const flow = createFlow(state, waba.id, { name, categories, endpointUri: endpointUri(b.endpoint_uri) ?? source?.endpointUri });
    const json = flowJson ?? source?.json ?? undefined;
    const errors = json === undefined ? undefined : setFlowJson(flow, json);
    if (publish && errors?.length === 0) flow.status = 'PUBLISHED';
    ctx.body = { id: flow.id, success: true, ...(flowJson !== undefined ? { validation_errors: errors } : {}) };
  });

  router.get('/:wabaId/flows', (ctx) => {
    const waba = wabaFor(ctx, state, ctx.params.wabaId);
    const fields = parseFields(ctx.query.fields);
    const limit = Math.min(100, Math.max(1, Number(ctx.query.limit) || LIST_LIMIT));
    const offset = typeof ctx.query.after === 'string' ? Number(Buffer.from(ctx.query.after, 'base64url').toString('utf8')) || 0 : 0;
    // newest first, as Graph lists edges
    const all = [...state.flows.values()].filter((f) => f.wabaId === waba.id).reverse();
    const page = all.slice(offset, offset + limit);
    const cursor = (n: number) => Buffer.from(String(n)).toString('base64url');
    const after = cursor(offset + page.length);
    // like Graph, `next` is present only when there is another page
    const next = new URL(ctx.originalUrl, selfUrl(ctx));
    next.searchParams.set('limit', String(limit));
    next.searchParams.set('after', after);
    ctx.body = {
      data: page.map((f) => presentFlow(f, fields, selfUrl(ctx))),
      paging: { cursors: { before: cursor(offset), after }, ...(offset + limit < all.length ? { next: next.toString() } : {}) },
    };
  });

  router.post('/:flowId/assets', (ctx) => {
    const flow = flowFor(ctx, state, ctx.params.flowId);
    if (!ctx.get('content-type').startsWith('multipart/form-data'))
      throw flowParameter('The Flow JSON must be uploaded as multipart/form-data with a file part');
    const b = jsonBody(ctx);
    if (b.asset_type !== 'FLOW_JSON') throw flowParameter('asset_type must be FLOW_JSON');
    const file = b.file as { content?: unknown } | undefined;
    if (!file || typeof file !== 'object' || typeof file.content !== 'string') throw flowParameter('The parameter file is required');
    beforeEdit(flow, d.publishedFlowsEditable());
    ctx.body = { success: true, validation_errors: setFlowJson(flow, file.content) };
  });

  router.get('/:flowId/assets', (ctx) => {
    const flow = flowFor(ctx, state, ctx.params.flowId);
    const data = flow.json === null ? [] : [{ name: 'flow.json', asset_type: 'FLOW_JSON', download_url: `${selfUrl(ctx)}/_sim/flows/${flow.id}/flow.json` }];
    ctx.body = { data, paging: { cursors: { before: '', after: '' } } };
  });

  router.post('/:flowId/publish', (ctx) => {
    const flow = flowFor(ctx, state, ctx.params.flowId);
    if (flow.status !== 'DRAFT') throw publishRefused(`The Flow is ${flow.status.toLowerCase()}; only a draft Flow can be published`);
    if (flow.json === null) throw publishRefused('The Flow has no Flow JSON');
    if (flow.validationErrors.length) throw publishRefused(`The Flow JSON has ${flow.validationErrors.length} validation error(s)`);
    const usesEndpoint = (JSON.parse(flow.json) as { data_api_version?: unknown }).data_api_version !== undefined;
    if (usesEndpoint && !flow.endpointUri) throw publishRefused('A Flow with data_api_version needs an endpoint_uri');
    flow.status = 'PUBLISHED';
    flow.updatedAt = new Date().toISOString();
    ctx.body = { success: true };
  });

  router.post('/:flowId/deprecate', (ctx) => {
    const flow = flowFor(ctx, state, ctx.params.flowId);
    if (!isPublished(flow.status)) throw deprecateRefused(`The Flow is ${flow.status.toLowerCase()}; only a published Flow can be deprecated`);
    flow.status = 'DEPRECATED';
    flow.updatedAt = new Date().toISOString();
    ctx.body = { success: true };
  });

  router.get('/:flowId', (ctx, next: Next) => {
    if (!isFlowPath(state, ctx.params.flowId)) return next();
    const flow = flowFor(ctx, state, ctx.params.flowId);
    ctx.body = presentFlow(flow, parseFields(ctx.query.fields), selfUrl(ctx));
  });

  router.post('/:flowId', (ctx, next: Next) => {
    if (!isFlowPath(state, ctx.params.flowId)) return next();
    const flow = flowFor(ctx, state, ctx.params.flowId);
    const b = jsonBody(ctx);
    const name = b.name === undefined ? undefined : requiredName(b.name);
    const categories = b.categories === undefined ? undefined : parseCategories(b.categories);
    const uri = endpointUri(b.endpoint_uri);
    if (name !== undefined) assertNameFree(state, flow.wabaId, name, flow.id);
    beforeEdit(flow, d.publishedFlowsEditable());
    if (name !== undefined) flow.name = name;
    if (categories) flow.categories = categories;
    if (uri !== undefined) flow.endpointUri = uri;
    flow.updatedAt = new Date().toISOString();
    ctx.body = { success: true };
  });

  router.delete('/:flowId', (ctx, next: Next) => {
    if (!isFlowPath(state, ctx.params.flowId)) return next();
    const flow = flowFor(ctx, state, ctx.params.flowId);
    if (flow.status !== 'DRAFT') throw deleteRefused(`The Flow is ${flow.status.toLowerCase()}; only a draft Flow can be deleted. Deprecate it instead.`);
    state.flows.delete(flow.id);
    ctx.body = { success: true };
  });
}
