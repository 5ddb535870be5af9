/**
 * The send path's floor (helpers-server.ts modes `floor-edge`, `floor-business`, `floor-messaging`): the processes and
 * calls a send crosses, with none of the gateway's work in them. It answers "how much of a send's CPU do the
 * architecture's hops and the provider take before any check, count or write", beside the ceiling (Koa and one
 * call) and the real send path:
 *   - floor-edge: a Koa server that reads and parses the body, makes the edge's admission call (`AdmitAndAudit`,
 *     the admissions and entries of one event-loop turn in one call, as the edge's `BusinessCalls` gathers them),
 *     its send (the sends of one turn in one `SendBatch` call, a lone one in `Send`, as the edge's `SendCalls`),
 *     records its audit entry the same way and answers the message id;
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
import { createServiceClient, defineService, startGrpcServer, type ServiceClient, type ServiceImpl } from '@gateway/rpc';
import { readBody } from './read-body';

const logger = createLogger({ name: 'send-floor', level: 'silent' });

/** Every method of `desc` failing, but those `impl` gives. */
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
  // the provider's message built by the kind, from the body as it came (no schema check: that is work)
  const post = async (r: { kind: string; bodyJson: string }) => {
    const kind = kindNamed(r.kind);
    return (await provider.sendMessage(token, phoneNumberId, kind.build(kind.prepare(JSON.parse(r.bodyJson) as never), {}))).messageId;
  };
  const impl = only(messaging.MessagingService, {
    send: async (r) => ({ result: { messageId: await post(r), replayed: false } }),
    // each send's answer written as it arrives (as messaging's SendBatch)
    sendBatch: async (r, _ctx, write) => {
      await Promise.all(
        r.items.map(async (item, index) => {
          const messageId = await post(item.send!);
          write({ index, outcome: { case: 'sent', value: { result: { messageId, replayed: false } } } });
        }),
      );
    },
  });
  await startGrpcServer({ host: '127.0.0.1', port, logger, services: [defineService(messaging.MessagingService, impl)] });
}

/** Calls for what the requests of one event-loop turn ask: `flush` gets them together once the turn ends (as the edge's turn-batch.ts). */
function perTurn<T>(flush: (items: T[]) => void): (item: T) => void {
  let items: T[] = [];
  const take = () => {
    const taken = items;
    items = [];
    flush(taken);
  };
  return (item) => {
    items.push(item);
    if (items.length === 1) setImmediate(take);
  };
}

type Waiting<O> = { resolve(o: O): void; reject(e: unknown): void };
type SendWaiting = Waiting<string> & { bodyJson: string; clientId: string };

/** The admissions and audit entries of one turn in one `AdmitAndAudit` call (the edge's business-calls.ts, without its answers' checks). */
function businessCalls(client: ServiceClient<typeof business.BusinessService>) {
  type Item = Waiting<void> & { admit: boolean };
  const push = perTurn<Item>((items) => {
    const admits = items.filter((i) => i.admit);
    const entries = items.filter((i) => !i.admit);
    client
      .admitAndAudit({
        admits: admits.map(() => ({ tenantId: 'floor', send: true, apiKeyPrefix: 'floor' })),
        entries: entries.map(() => ({ tenantId: 'floor', actorKind: 'api_key', actor: 'floor', action: 'sendButtons', method: 'POST', status: 202 })),
      })
      .then(
        () => items.forEach((i) => i.resolve()),
        (e: unknown) => items.forEach((i) => i.reject(e)),
      );
  });
  const call = (admit: boolean) => new Promise<void>((resolve, reject) => push({ admit, resolve, reject }));
  return { admit: () => call(true), recordAudit: () => call(false) };
}

/** The sends of one turn in one `SendBatch` call, a lone one in a `Send` call (the edge's send-calls.ts, without its answers' checks). */
function sendCalls(client: ServiceClient<typeof messaging.MessagingService>) {
  const request = (i: SendWaiting) => ({ caller: { tenantId: 'floor', clientId: i.clientId }, kind: 'buttons', bodyJson: i.bodyJson });
  const push = perTurn<SendWaiting>((items) => {
    if (items.length === 1) {
      const [i] = items;
      client.send(request(i)).then((r) => i.resolve(r.result?.messageId ?? ''), i.reject);
      return;
    }
    client
      .sendBatch({ items: items.map((i) => ({ send: request(i) })) }, (a) => {
        if (a.outcome.case === 'sent') items[a.index]?.resolve(a.outcome.value.result?.messageId ?? '');
      })
      .catch((e: unknown) => items.forEach((i) => i.reject(e)));
  });
  return (clientId: string, bodyJson: string) => new Promise<string>((resolve, reject) => push({ clientId, bodyJson, resolve, reject }));
}

/** `floor-edge <port> <businessAddr> <messagingAddr>`: the body is a send-buttons body. */
export function floorEdge(port: number, businessAddr: string, messagingAddr: string): void {
  const calls = businessCalls(createServiceClient(business.BusinessService, businessAddr));
  const send = sendCalls(createServiceClient(messaging.MessagingService, messagingAddr));
  const app = new Koa();
  app.use(async (ctx) => {
    const body = JSON.parse((await readBody(ctx.req)).toString('utf8')) as { client_id: string };
    await calls.admit();
    const id = await send(body.client_id, JSON.stringify(body));
    await calls.recordAudit();
    ctx.status = 202;
    ctx.body = { id };
  });
  app.listen(port, '127.0.0.1');
}
