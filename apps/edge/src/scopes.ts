import type { Context, Next } from 'koa';
import { AppError } from '@gateway/errors';

/**
 * Scoped API keys (docs/business.md): the scopes a key may be given, and which one each /api route needs. A
 * key with no scopes (every key made before scopes existed, and any made without them) may do everything.
 */
export const SCOPES = {
  read_only: 'Every GET route (reading clients, flows, templates, deliveries, messages, usage, the audit log).',
  'messages:read': 'Reading message records and media (`GET /api/messages/*`, `GET /api/media/*`).',
  'messages:send': 'Sends and the other messaging operations (`POST /api/messaging/*`, `/api/call/*`), media uploads.',
  'templates:write': 'Creating, syncing and deleting templates.',
  'flows:write': 'Creating, changing, publishing and deprecating flows.',
  'clients:write': 'Registering, changing, deactivating and deleting clients.',
  'webhooks:write': "The tenant's webhook URL and secret, clients' webhook deliveries (replay, retry, test).",
  'campaigns:write': 'Starting and changing campaigns (once campaigns exist).',
  'keys:write': 'Creating and revoking API keys (a key with it can make a full-access key: give it with care).',
} as const;

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The first rule whose method class and path prefix match names the scope a request needs. */
const WRITE_RULES: Array<[RegExp, Scope]> = [
  [/^\/api\/(messaging|call)\//, 'messages:send'],
  [/^\/api\/media\/?$/, 'messages:send'],
  [/^\/api\/templates(\/|$)/, 'templates:write'],
  [/^\/api\/flows(\/|$)/, 'flows:write'],
  [/^\/api\/clients\/[^/]+\/webhook(\/|$)/, 'webhooks:write'],
  [/^\/api\/tenants\/webhook-/, 'webhooks:write'],
  [/^\/api\/clients(\/|$)/, 'clients:write'],
  [/^\/api\/campaigns(\/|$)/, 'campaigns:write'],
  [/^\/api\/api-keys(\/|$)/, 'keys:write'],
];
const MESSAGE_READS = /^\/api\/(messages|media)\//;

/** The scope a request needs, and the ones that also grant it. */
export function requiredScope(method: string, path: string): { scope: Scope; alsoBy: Scope[] } {
  if (READS.has(method)) return MESSAGE_READS.test(path) ? { scope: 'messages:read', alsoBy: ['read_only'] } : { scope: 'read_only', alsoBy: [] };
  for (const [re, scope] of WRITE_RULES) if (re.test(path)) return { scope, alsoBy: [] };
  // a state-changing route no rule names: only a full-access key
  return { scope: 'keys:write', alsoBy: [] };
}

const notFound = () => AppError.notFound('client_not_found', 'Client not found');

/** The client ids a request names: the path's `/api/clients/{id}`, a `client_id` query parameter or body field. */
function clientIdsOf(ctx: Context): string[] {
  const out: string[] = [];
  const m = /^\/api\/clients\/([^/]+)/.exec(ctx.path);
  if (m) out.push(decodeURIComponent(m[1]));
  const q = ctx.query.client_id;
  if (typeof q === 'string') out.push(q);
  const body = (ctx.request as { body?: unknown }).body;
  if (body && typeof body === 'object' && typeof (body as { client_id?: unknown }).client_id === 'string') out.push((body as { client_id: string }).client_id);
  return out;
}

/**
 * After the request was admitted (middleware/quota.ts puts the key's scopes and clients in `ctx.state`) and its
 * body read: a key without the scope the route needs is a `403 insufficient_scope` naming it; a key limited to
 * some clients gets `404` for any other (as for another tenant's client).
 */
export async function scopeGate(ctx: Context, next: Next) {
  const scopes = (ctx.state.scopes as string[] | undefined) ?? [];
  if (scopes.length) {
    const need = requiredScope(ctx.method, ctx.path);
    if (!scopes.includes(need.scope) && !need.alsoBy.some((s) => scopes.includes(s))) {
      throw new AppError('forbidden', 'insufficient_scope', `This API key lacks the scope "${need.scope}" this route needs`, {
        details: { scope: need.scope },
      });
    }
  }
  const clients = (ctx.state.clientIds as string[] | undefined) ?? [];
  if (clients.length && clientIdsOf(ctx).some((id) => !clients.includes(id))) throw notFound();
  await next();
}
