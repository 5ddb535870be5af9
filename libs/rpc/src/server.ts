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

/**
 * One async function per method. A unary method answers a plain init object (serializers create() it); a
 * server-streaming one writes each answer through `write` and settles when the stream is complete (a rejection
 * ends it with that error's status).
 */
export type ServiceImpl<S extends DescService> = {
  [K in keyof S['method']]: S['method'][K] extends { methodKind: 'server_streaming' }
    ? (request: MessageShape<S['method'][K]['input']>, ctx: CallContext, write: (answer: MessageInitShape<S['method'][K]['output']>) => void) => Promise<void>
    : (request: MessageShape<S['method'][K]['input']>, ctx: CallContext) => Promise<MessageInitShape<S['method'][K]['output']>>;
};

type Handler = (req: never, ctx: CallContext, write: (answer: unknown) => void) => Promise<unknown>;

export interface RegisteredService {
  desc: DescService;
  impl: Record<string, Handler>;
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
      const method = `${svc.desc.name}/${m.name}`;
      if (m.methodKind === 'server_streaming') handlers[m.localName] = wrapServerStream(method, fn, opts);
      else if (m.methodKind === 'unary') handlers[m.localName] = wrapUnary(method, fn, opts);
      else throw new Error(`${svc.desc.typeName}: ${m.name} is ${m.methodKind}; only unary and server-streaming methods are served`);
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

/**
 * A handler's failure as an AppError, logged as the server logs every failed call: an internal error in full (its
 * message never crosses), the others at debug. Also for an item of a batched call answered with its error.
 */
export function logHandlerFailure(logger: Logger, method: string, e: unknown): AppError {
  const err = toAppError(e);
  if (err.kind === 'internal') logger.error({ err: e, method }, 'rpc handler failed');
  else logger.debug({ method, code: err.code, kind: err.kind }, 'rpc returned an error');
  return err;
}

/** The status a handler's rejection ends its call with, logged and observed. */
function failedCall(method: string, e: unknown, started: number, opts: GrpcServerOptions): grpc.ServiceError {
  const grpcErr = appErrorToGrpc(logHandlerFailure(opts.logger, method, e));
  opts.observer?.(method, grpcErr.code ?? grpc.status.UNKNOWN, performance.now() - started);
  return grpcErr as grpc.ServiceError;
}

function callContext(method: string, call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>): CallContext {
  const requestId = normalizeRequestId(call.metadata.get(REQUEST_ID_HEADER)[0]);
  return { requestId, method, metadata: call.metadata, deadline: deadlineOf(call) };
}

const noWrite = () => {
  throw new Error('a unary handler has no stream to write to');
};

function wrapUnary(method: string, fn: Handler, opts: GrpcServerOptions): grpc.handleUnaryCall<unknown, unknown> {
  return (call, callback) => {
    const started = performance.now();
    const ctx = callContext(method, call);
    runWithContext({ requestId: ctx.requestId }, () => {
      fn(call.request as never, ctx, noWrite).then(
        (res) => {
          opts.observer?.(method, grpc.status.OK, performance.now() - started);
          callback(null, res);
        },
        (e: unknown) => callback(failedCall(method, e, started, opts)),
      );
    });
  };
}

/** A server-streaming method: each answer written as the handler gives it, the status when it settles. */
function wrapServerStream(method: string, fn: Handler, opts: GrpcServerOptions): grpc.handleServerStreamingCall<unknown, unknown> {
  return (call) => {
    const started = performance.now();
    const ctx = callContext(method, call);
    // after a cancellation (the caller's deadline, or it went away) nothing more can reach it
    const write = (answer: unknown) => {
      if (!call.cancelled && !call.writableEnded) call.write(answer);
    };
    runWithContext({ requestId: ctx.requestId }, () => {
      fn(call.request as never, ctx, write).then(
        () => {
          opts.observer?.(method, grpc.status.OK, performance.now() - started);
          if (!call.writableEnded) call.end();
        },
        (e: unknown) => {
          const status = failedCall(method, e, started, opts);
          // grpc-js ends a server stream with the status of the error it is given
          if (!call.writableEnded) call.emit('error', status);
        },
      );
    });
  };
}

function deadlineOf(call: grpc.ServerUnaryCall<unknown, unknown> | grpc.ServerWritableStream<unknown, unknown>): Date | undefined {
  const d = call.getDeadline();
  if (d instanceof Date) return d;
  return Number.isFinite(d) ? new Date(d) : undefined;
}

export { AppError };
