import * as grpc from '@grpc/grpc-js';
import type { DescService, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { AppError, toAppError } from '@gateway/errors';
import { normalizeRequestId, REQUEST_ID_HEADER, runWithContext, type Logger } from '@gateway/logger';
import { toGrpcServiceDefinition } from './service-definition';
import { appErrorToGrpc } from './status';
import { HealthReporter, healthServiceDefinition, healthServiceImpl } from './health';

export interface CallContext {
  requestId: string;
  method: string;
  metadata: grpc.Metadata;
  deadline: Date | undefined;
}

/** One async function per unary method; it may return a plain init object (serializers create() it). */
export type ServiceImpl<S extends DescService> = {
  [K in keyof S['method']]: (request: MessageShape<S['method'][K]['input']>, ctx: CallContext) => Promise<MessageInitShape<S['method'][K]['output']>>;
};

export interface RegisteredService {
  desc: DescService;
  impl: Record<string, (req: never, ctx: CallContext) => Promise<unknown>>;
}

export function defineService<S extends DescService>(desc: S, impl: ServiceImpl<S>): RegisteredService {
  return { desc, impl: impl as unknown as RegisteredService['impl'] };
}

/** Observes every call (metrics). */
export type CallObserver = (method: string, code: grpc.status, durationMs: number) => void;

export interface GrpcServerOptions {
  host: string;
  port: number;
  logger: Logger;
  services: RegisteredService[];
  observer?: CallObserver;
}

export interface RunningGrpcServer {
  port: number;
  health: HealthReporter;
  /** Stops accepting calls, lets in-flight calls finish for up to graceMs, then forces. */
  shutdown(graceMs?: number): Promise<void>;
}

export async function startGrpcServer(opts: GrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new grpc.Server({
    'grpc.max_receive_message_length': 8 * 1024 * 1024,
    // connections are closed (GOAWAY, in-flight calls finish within the grace) after a few minutes, so
    // callers resolve the Service name again and spread their calls over replicas added since
    'grpc.max_connection_age_ms': 5 * 60_000,
    'grpc.max_connection_age_grace_ms': 2 * 60_000,
  });
  const health = new HealthReporter();
  server.addService(healthServiceDefinition, healthServiceImpl(health));
  for (const svc of opts.services) {
    const def = toGrpcServiceDefinition(svc.desc);
    const handlers: grpc.UntypedServiceImplementation = {};
    for (const m of svc.desc.methods) {
      const fn = svc.impl[m.localName];
      if (!fn) throw new Error(`${svc.desc.typeName}: no implementation for ${m.name}`);
      handlers[m.localName] = wrapUnary(`${svc.desc.name}/${m.name}`, fn, opts);
    }
    server.addService(def, handlers);
    health.set(svc.desc.typeName, true);
  }
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${opts.host}:${opts.port}`, grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  health.set('', true);
  return {
    port,
    health,
    async shutdown(graceMs = 10_000) {
      health.shutdown();
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          server.forceShutdown();
          resolve();
        }, graceMs);
        timer.unref();
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
  };
}

function wrapUnary(method: string, fn: (req: never, ctx: CallContext) => Promise<unknown>, opts: GrpcServerOptions): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const started = performance.now();
    const requestId = normalizeRequestId(call.metadata.get(REQUEST_ID_HEADER)[0]);
    const ctx: CallContext = { requestId, method, metadata: call.metadata, deadline: deadlineOf(call) };
    runWithContext({ requestId }, () => {
      fn(call.request as never, ctx).then(
        (res) => {
          opts.observer?.(method, grpc.status.OK, performance.now() - started);
          callback(null, res);
        },
        (e: unknown) => {
          const err = toAppError(e);
          if (err.kind === 'internal') opts.logger.error({ err: e, method }, 'rpc handler failed');
          else opts.logger.debug({ method, code: err.code, kind: err.kind }, 'rpc returned an error');
          const grpcErr = appErrorToGrpc(err);
          opts.observer?.(method, grpcErr.code ?? grpc.status.UNKNOWN, performance.now() - started);
          callback(grpcErr as grpc.ServiceError);
        },
      );
    });
  };
}

function deadlineOf(call: grpc.ServerUnaryCall<unknown, unknown>): Date | undefined {
  const d = call.getDeadline();
  if (d instanceof Date) return d;
  return Number.isFinite(d) ? new Date(d) : undefined;
}

export { AppError };
