import * as grpc from '@grpc/grpc-js';
import type { DescService, MessageInitShape, MessageShape } from '@bufbuild/protobuf';
import { channelOptions, retryableMethods } from './balancing';
import { currentRequestId, REQUEST_ID_HEADER } from '@gateway/logger';
import { toGrpcServiceDefinition } from './service-definition';
import { grpcToAppError } from './status';

/** A call's metadata: the request id of the request it is made for, when there is one. */
function metadataOfCall(): grpc.Metadata {
  const metadata = new grpc.Metadata();
  const requestId = currentRequestId();
  if (requestId) metadata.set(REQUEST_ID_HEADER, requestId);
  return metadata;
}

export interface CallOptions {
  deadlineMs?: number;
}

/**
 * Promise-returning client: each method throws an AppError carrying the server's kind and code. A
 * server-streaming method hands each answer to `onAnswer` as it arrives and settles when the stream ends (its
 * rejection is the status the stream ended with, after the answers that came before it).
 */
export type ServiceClient<S extends DescService> = {
  [K in keyof S['method']]: S['method'][K] extends { methodKind: 'server_streaming' }
    ? (
        request: MessageInitShape<S['method'][K]['input']>,
        onAnswer: (answer: MessageShape<S['method'][K]['output']>) => void,
        options?: CallOptions,
      ) => Promise<void>
    : (request: MessageInitShape<S['method'][K]['input']>, options?: CallOptions) => Promise<MessageShape<S['method'][K]['output']>>;
} & { close(): void; waitForReady(timeoutMs: number): Promise<void> };

export interface ClientOptions {
  /** Deadline applied to every call unless the call gives its own. */
  defaultDeadlineMs?: number;
}

/**
 * `address` is a gRPC target: `host:port` (one backend), `dns:///name:port` (every address the name resolves
 * to, e.g. a headless Service's pod IPs) or `ipv4:addr1:port,addr2:port`. Calls are spread over the backends
 * per request (round_robin); see balancing.ts for which calls are retried on another backend.
 */
export function createServiceClient<S extends DescService>(desc: S, address: string, opts: ClientOptions = {}): ServiceClient<S> {
  const def = toGrpcServiceDefinition(desc);
  const Ctor = grpc.makeGenericClientConstructor(def, desc.name);
  const raw = new Ctor(address, grpc.credentials.createInsecure(), channelOptions(desc));
  const defaultDeadlineMs = opts.defaultDeadlineMs ?? 15_000;
  const client: Record<string, unknown> = {
    close: () => raw.close(),
    waitForReady: (timeoutMs: number) => new Promise<void>((resolve, reject) => raw.waitForReady(Date.now() + timeoutMs, (e) => (e ? reject(e) : resolve()))),
  };
  const safe = new Set(retryableMethods(desc));
  for (const m of desc.methods) {
    const md = def[m.localName];
    const name = `${desc.name}/${m.name}`;
    if (m.methodKind === 'server_streaming') {
      client[m.localName] = (request: unknown, onAnswer: (answer: unknown) => void, options: CallOptions = {}) =>
        new Promise<void>((resolve, reject) => {
          const stream = raw.makeServerStreamRequest(md.path, md.requestSerialize, md.responseDeserialize, request, metadataOfCall(), {
            deadline: Date.now() + (options.deadlineMs ?? defaultDeadlineMs),
          });
          stream.on('data', onAnswer);
          // grpc-js emits 'error' for a status other than OK, 'status' for every status (after the last answer)
          stream.on('error', (err: grpc.ServiceError) => reject(grpcToAppError(err, name)));
          stream.on('status', (s: grpc.StatusObject) => {
            if (s.code === grpc.status.OK) resolve();
          });
        });
      continue;
    }
    const once = (request: unknown, deadline: number) =>
      new Promise((resolve, reject) => {
        raw.makeUnaryRequest(
          md.path,
          md.requestSerialize,
          md.responseDeserialize,
          request,
          metadataOfCall(),
          { deadline },
          (err: grpc.ServiceError | null, res?: unknown) => (err ? reject(grpcToAppError(err, name)) : resolve(res)),
        );
      });
    client[m.localName] = async (request: unknown, options: CallOptions = {}) => {
      const deadline = Date.now() + (options.deadlineMs ?? defaultDeadlineMs);
      try {
        return await once(request, deadline);
      } catch (e) {
        // a read whose backend died after it had started answering is past grpc-js's own retries (the call was
        // committed); it has no side effects, so it is asked once more, of another backend, within its deadline
        if (!safe.has(m.name) || (e as { kind?: string }).kind !== 'unavailable' || Date.now() >= deadline) throw e;
        return once(request, deadline);
      }
    };
  }
  return client as ServiceClient<S>;
}
