import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa, { type Context, type Next } from 'koa';
import Router from '@koa/router';
import { PROVIDER_API_VERSIONS, providerApiVersionInfo } from '@gateway/config';
import type { Logger } from '@gateway/logger';
import { listen } from '@gateway/runtime';
import { GraphError } from './errors';
import { RateLimiter } from './rate-limits';
import { registerBlockUsers } from './routes/block-users';
import { registerCallControl } from './routes/call-control';
import { registerCalls } from './routes/calls';
import { registerControl } from './routes/control';
import { registerEmbeddedSignup } from './routes/embedded-signup';
import { registerFlowControl } from './routes/flow-control';
import { registerFlows } from './routes/flows';
import { registerMedia } from './routes/media';
import { registerMessages } from './routes/messages';
import { registerOnboarding } from './routes/onboarding';
import { registerTemplates } from './routes/templates';
import { registerWebhookFields } from './routes/webhook-fields';
import { registerWindowControl } from './routes/window-control';
import { registerCampaignControl } from './routes/campaign-control';
import { MessagingLimits } from './messaging-limits';
import { TemplateRegistry } from './templates/registry';
import { SimState, type RecordedRequest } from './state';
import { WebhookSender } from './webhooks';

export interface ProviderSimOptions {
  port?: number;
  host?: string;
  appId: string;
  appSecret: string;
  verifyToken: string;
  configId: string;
  webhookUrl?: string;
  /** Every accepted message gets sent → delivered → read webhooks a few hundred ms apart. */
  autoStatuses?: boolean;
  /** Editing a published flow moves it back to draft (newer provider behaviour) instead of error 139001. */
  publishedFlowsEditable?: boolean;
  /** How long the automatic review of a new template takes (default 2 s); `PUT /_sim/templates/review` changes it. */
  templateReviewMs?: number;
  /**
   * The 24-hour customer-service window: `async` (default, the provider's usual behaviour) accepts a free-form send
   * and reports it `failed` with 131047 afterwards; `sync` refuses it at once (400 131047); `off` sends anyway.
   */
  window?: 'sync' | 'async' | 'off';
  /** `false` turns the throughput and pair-rate limits off (load tests); on by default like the provider. */
  rateLimits?: boolean;
  /**
   * Origin of the media download URLs, like the provider's media host (not its Graph API host): default
   * `http://localhost:<port>`, the simulator under another name than the `127.0.0.1` of its Graph API.
   */
  mediaBaseUrl?: string;
  /** How many of the newest Graph API requests `GET /_sim/requests` keeps (default `DEFAULT_REQUEST_LOG_MAX`). */
  requestLogMax?: number;
  logger?: Logger;
}

export interface RunningProviderSim {
  url: string;
  /** Origin of its media download URLs (what the gateway's PROVIDER_MEDIA_HOSTS must allow). */
  mediaBaseUrl: string;
  port: number;
  state: SimState;
  templates: TemplateRegistry;
  stop(): Promise<void>;
}

declare module 'koa' {
  interface Request {
    body?: unknown;
  }
}

const VERSION = /^\/v\d+\.\d+(?=\/)/;

/** The version the provider serves a call to `asked` with at `now`: itself while available, else the oldest available. */
export function servedVersion(asked: string, now: number): string {
  const info = /^v\d+\.0$/.test(asked) ? providerApiVersionInfo(asked, now) : undefined;
  if (!info?.expired) return asked;
  const available = Object.keys(PROVIDER_API_VERSIONS)
    .filter((v) => !providerApiVersionInfo(v, now).expired)
    .sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  return available[0] ?? asked;
}

/** A file part of a multipart body: its bytes are kept beside the parsed body (`ctx.state.files`). */
interface FilePart {
  filename: string;
  type: string;
  bytes: Buffer;
}

/** Media files (images, sound, video, PDF and Office documents) are recorded by size and hash; others (flow JSON) with their text too. */
const MEDIA_PART = /^(image|audio|video)\/|^application\/(pdf|msword|vnd\.)/;

async function readBody(ctx: Context): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of ctx.req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** Parses JSON, multipart/form-data (flow assets, media) and urlencoded bodies; file parts are kept in `ctx.state.files`. */
async function parseBody(ctx: Context, raw: Buffer): Promise<unknown> {
  if (!raw.length) return undefined;
  const type = ctx.get('content-type');
  if (type.startsWith('multipart/form-data') || type.startsWith('application/x-www-form-urlencoded')) {
    const form = await new Request('http://sim/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(raw) }).formData();
    const out: Record<string, unknown> = {};
    const entries: Array<[string, unknown]> = [];
    form.forEach((v, k) => entries.push([k, v]));
    const files: Record<string, FilePart> = {};
    for (const [k, v] of entries) {
      if (typeof v === 'string') {
        out[k] = v;
        continue;
      }
      const f = v as File;
      const bytes = Buffer.from(await f.arrayBuffer());
      files[k] = { filename: f.name, type: f.type, bytes };
      const recorded = { filename: f.name, type: f.type, size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
      out[k] = MEDIA_PART.test(f.type) ? recorded : { ...recorded, content: bytes.toString('utf8') };
    }
    ctx.state.files = files;
    return out;
  }
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new GraphError(400, 100, '(#100) Invalid parameter', { details: 'The request body is not valid JSON' });
  }
}

export async function startProviderSim(opts: ProviderSimOptions): Promise<RunningProviderSim> {
  const state = new SimState();
  state.webhookUrl = opts.webhookUrl;
  const webhooks = new WebhookSender(state, opts.appSecret, opts.logger);
  const limits = new RateLimiter(state);
  const messagingLimits = new MessagingLimits(state);
  const templates = new TemplateRegistry(state, webhooks);
  if (opts.templateReviewMs !== undefined) templates.review.delayMs = opts.templateReviewMs;
  if (opts.window) state.window = opts.window;
  if (opts.requestLogMax !== undefined) state.requestLogMax = Math.max(1, opts.requestLogMax);
  if (opts.rateLimits === false) state.rateLimits = { throughputPerSecond: null, pairRate: false };
  let autoStatuses = opts.autoStatuses ?? false;
  // known once listening (the default names the simulator's own port)
  let mediaBaseUrl = opts.mediaBaseUrl ?? '';

  const control = new Router();
  registerControl(control, state, webhooks, limits);
  registerFlowControl(control, state);
  registerWindowControl(control, state);
  registerCallControl(control, state, webhooks);
  registerWebhookFields(control, state, webhooks);
  registerCampaignControl(control, state, webhooks, limits, messagingLimits);
  // the provider's web side (SDK, signup dialog): outside the Graph API, so neither recorded nor faulted
  registerEmbeddedSignup(control, { state, appId: opts.appId, configId: opts.configId });
  control.put('/_sim/auto-statuses', (ctx) => {
    autoStatuses = (ctx.request.body as { enabled?: boolean } | undefined)?.enabled === true;
    ctx.body = { enabled: autoStatuses };
  });

  const graph = new Router();
  registerMessages(graph, { state, limits, messagingLimits, webhooks, autoStatuses: () => autoStatuses, templates });
  registerBlockUsers(graph, state);
  registerCalls(graph, state, webhooks);
  registerFlows(graph, { state, publishedFlowsEditable: () => opts.publishedFlowsEditable ?? false });
  registerOnboarding(graph, { state, appId: opts.appId, appSecret: opts.appSecret });
  // after the flows: GET /{id} of a template is reached when the id is no flow's
  registerTemplates(graph, control, state, templates);
  // last: GET and DELETE /{id} of an id no flow or template has
  registerMedia(graph, control, { state, mediaBaseUrl: () => state.mediaBaseUrlOverride ?? mediaBaseUrl });

  const app = new Koa();
  // a caller that breaks off its request (a tenant's aborted upload the edge stops relaying) fails the request after
  // the answer: logged here, where Koa's default would print a stack trace to the console
  app.on('error', (err: { code?: string; message?: string }, ctx?: Context) => {
    opts.logger?.debug({ code: err?.code, error: err?.message, method: ctx?.method, path: ctx?.path }, 'request broken off');
  });
  app.use(async (ctx: Context, next: Next) => {
    try {
      ctx.request.body = await parseBody(ctx, await readBody(ctx));
      await next();
    } catch (e) {
      if (e instanceof GraphError) {
        ctx.status = e.status;
        ctx.body = e.body();
        return;
      }
      opts.logger?.error({ err: e }, 'simulator error');
      ctx.status = 500;
      ctx.body = {
        error: { message: 'An unexpected error has occurred. Please retry your request later.', type: 'OAuthException', code: 2, is_transient: true },
      };
    }
  });
  app.use(control.routes());
  // Graph API: optional version segment, every request recorded, faults injected on demand
  app.use(async (ctx: Context, next: Next) => {
    if (ctx.path.startsWith('/_sim/')) return next();
    const original = ctx.path;
    ctx.path = ctx.path.replace(VERSION, '');
    // the version that serves the call, in `facebook-api-version` as the Graph API says it: a version past its
    // expiry is served as the oldest one still available (provider-2026.md §1 lists the dates)
    const asked = VERSION.exec(original)?.[0].slice(1);
    if (asked) ctx.set('facebook-api-version', servedVersion(asked, state.now()));
    const auth = ctx.get('authorization');
    const rec: RecordedRequest = {
      id: state.nextRequestId(),
      at: new Date().toISOString(),
      method: ctx.method,
      path: original,
      query: Object.fromEntries(Object.entries(ctx.query).map(([k, v]) => [k, String(v)])),
      headers: {
        ...(auth ? { authorization: `Bearer …${auth.slice(-4)}` } : {}),
        'content-type': ctx.get('content-type'),
        ...(ctx.get('user-agent') ? { 'user-agent': ctx.get('user-agent') } : {}),
      },
      body: ctx.request.body ?? null,
      raw_content_type: ctx.get('content-type') || null,
    };
    state.recordRequest(rec);
    const fault = state.faults.find(
      (f) => f.remaining > 0 && (!f.match.method || f.match.method.toUpperCase() === ctx.method) && original.includes(f.match.path_contains),
    );
    if (fault) {
      fault.remaining -= 1;
      // a request the client gave up on during the delay still goes on, as at the provider (its outcome is then
      // unknown to the client); the simulator's stop ends the delay, so no timer outlives it
      if (fault.delay_ms && !(await webhooks.after(fault.delay_ms))) {
        ctx.req.socket.destroy();
        ctx.respond = false;
        return;
      }
      if (fault.drop) {
        ctx.req.socket.destroy();
        ctx.respond = false;
        return;
      }
      if (fault.error || fault.status) {
        const fe = fault.error;
        const e = new GraphError(fault.status ?? 400, fe?.code ?? 1, fe?.message ?? 'An unknown error occurred', {
          type: fe?.type,
          subcode: fe?.error_subcode,
          details: fe?.error_data?.details,
          userTitle: fe?.error_user_title,
          userMsg: fe?.error_user_msg,
          traceId: fe?.fbtrace_id,
        });
        ctx.status = e.status;
        ctx.body = e.body();
        return;
      }
    }
    await next();
  });
  app.use(graph.routes());
  app.use((ctx) => {
    if (ctx.body === undefined && ctx.status === 404) {
      const e = new GraphError(400, 100, `Unknown path components: ${ctx.path}`, { type: 'OAuthException' });
      ctx.status = 400;
      ctx.body = e.body();
    }
  });

  const server: Server = createServer(app.callback());
  // Idle keep-alive sockets are closed by the clients, never by the simulator: a server that closes an idle socket
  // (Node's default, after 5 s) races a client reusing it at that moment, whose request then fails with ECONNRESET
  // (nodejs/undici#3141); a test's client in the same busy process can hit that window. `stop` closes them all.
  server.keepAliveTimeout = 0;
  await listen(server, opts.port ?? 0, opts.host ?? '127.0.0.1');
  const port = (server.address() as AddressInfo).port;
  mediaBaseUrl ||= `http://localhost:${port}`;
  return {
    url: `http://127.0.0.1:${port}`,
    mediaBaseUrl,
    port,
    state,
    templates,
    stop: () =>
      new Promise<void>((resolve) => {
        templates.stop();
        webhooks.stop();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
