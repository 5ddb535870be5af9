/**
 * The send path's floor (helpers-server.ts modes `floor-edge`, `floor-business`, `floor-messaging`): the processes and
 * calls a send crosses, with none of the gateway's work in them. It answers "how much of a send's CPU do the
 * architecture's hops and the provider take before any check, count or write", beside the ceiling (Koa and one
 * call) and the real send path:
 *   - floor-edge: a Koa server that reads and parses the body, makes the edge's admission call (`AdmitAndAudit`,
 *     the admissions and entries of one event-loop turn in one call, as the edge's `BusinessCalls` gathers them),
 *     the `Send` call to messaging, records its audit entry the same way and answers the message id;
 *   - floor-business: a BusinessService that admits every request and records every entry without a database;
 *   - floor-messaging: a MessagingService whose `Send` builds the provider's payload with the kind's module from the
 *     body as it came (no schema check) and POSTs it to the provider simulator with the shared provider client,
 *     and stores nothing.
 * No authentication, validation at the edge, idempotency, quota, audit, message log, contact, live notice, log
 * line or metric: whatever the gateway does beyond this floor is its own work.
 */
import type { DescService } from '@bufbuild/protobuf';
import Koa from 'koa';
import { DEFAULT_PROVIDER_API_VERSION } from '@gateway/config';
import { business, messaging } from '@gateway/contracts';
import { AppError } from '@gateway/errors';
import { createLogger } from '@gateway/logger';
import { kindNamed } from '@gateway/message-kinds';
import { ProviderClient } from '@gateway/provider-client';
import { createServiceClient, defineService, startGrpcServer, type ServiceImpl } from '@gateway/rpc';

const logger = createLogger({ name: 'send-floor', level: 'silent' });

/** Every method of `desc` answering UNIMPLEMENTED, but those `impl` gives. */
function only<S extends DescService>(desc: S, impl: Partial<ServiceImpl<S>>): ServiceImpl<S> {
  const all: Record<string, unknown> = {};
  for (const m of desc.methods) all[m.localName] = async () => Promise.reject(new AppError('unavailable', 'not_in_floor', `${m.name} is not in the floor`));
  return { ...all, ...impl } as ServiceImpl<S>;
}

const ADMITTED = {
  plan: 'bench',
  limits: ['requests', 'sends', 'sends_per_day'].map((name) => ({
    name,
    quota: 1_000_000n,
    windowSeconds: 1n,
    used: 1n,
    remaining: 999_999n,
    resetSeconds: 1n,
  })),
  refusedBy: '',
  scopes: [],
  clientIds: [],
};

export async function floorBusiness(port: number): Promise<void> {
  const impl = only(business.BusinessService, {
    admitAndAudit: async (r) => ({
      admissions: r.admits.map(() => ({ outcome: { case: 'admitted' as const, value: ADMITTED } })),
      entryErrors: r.entries.map(() => ''),
    }),
  });
  await startGrpcServer({ host: '127.0.0.1', port, logger, services: [defineService(business.BusinessService, impl)] });
}

/** `floor-messaging <port> <providerBaseUrl> <accessToken> <phoneNumberId>` */
export async function floorMessaging(port: number, baseUrl: string, token: string, phoneNumberId: string): Promise<void> {
  const provider = new ProviderClient({ baseUrl, apiVersion: DEFAULT_PROVIDER_API_VERSION, timeoutMs: 10_000 });
  const impl = only(messaging.MessagingService, {
    send: async (r) => {
      // the provider's message built by the kind, from the body as it came (no schema check: that is work)
      const kind = kindNamed(r.kind);
      const { messageId } = await provider.sendMessage(token, phoneNumberId, kind.build(kind.prepare(JSON.parse(r.bodyJson) as never), {}));
      return { result: { messageId, replayed: false } };
    },
  });
  await startGrpcServer({ host: '127.0.0.1', port, logger, services: [defineService(messaging.MessagingService, impl)] });
}

type Waiting = { resolve(): void; reject(e: unknown): void };

/** The admissions and audit entries of one event-loop turn in one `AdmitAndAudit` call (the edge's business-calls.ts, without its answers' checks). */
function turnBatched(client: ReturnType<typeof createServiceClient<typeof business.BusinessService>>) {
  let admits: Waiting[] = [];
  let entries: Waiting[] = [];
  let scheduled = false;
  const take = () => {
    scheduled = false;
    const [a, e] = [admits, entries];
    [admits, entries] = [[], []];
    client
      .admitAndAudit({
        admits: a.map(() => ({ tenantId: 'floor', send: true, apiKeyPrefix: 'floor' })),
        entries: e.map(() => ({ tenantId: 'floor', actorKind: 'api_key', actor: 'floor', action: 'sendButtons', method: 'POST', status: 202 })),
      })
      .then(
        () => [...a, ...e].forEach((w) => w.resolve()),
        (err: unknown) => [...a, ...e].forEach((w) => w.reject(err)),
      );
  };
  const push = (list: Waiting[]) =>
    new Promise<void>((resolve, reject) => {
      list.push({ resolve, reject });
      if (!scheduled) {
        scheduled = true;
        setImmediate(take);
      }
    });
  return { admit: () => push(admits), recordAudit: () => push(entries) };
}

/** `floor-edge <port> <businessAddr> <messagingAddr>`: the body is a send-buttons body. */
export function floorEdge(port: number, businessAddr: string, messagingAddr: string): void {
  const calls = turnBatched(createServiceClient(business.BusinessService, businessAddr));
  const send = createServiceClient(messaging.MessagingService, messagingAddr);
  const app = new Koa();
  app.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const c of ctx.req) chunks.push(c as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { client_id: string };
    await calls.admit();
    const res = await send.send({ caller: { tenantId: 'floor', clientId: body.client_id }, kind: 'buttons', bodyJson: JSON.stringify(body) });
    await calls.recordAudit();
    ctx.status = 202;
    ctx.body = { id: res.result?.messageId };
  });
  app.listen(port, '127.0.0.1');
}
