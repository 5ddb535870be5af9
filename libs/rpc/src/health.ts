import * as grpc from '@grpc/grpc-js';
import { create } from '@bufbuild/protobuf';
import { health } from '@gateway/contracts';
import { toGrpcServiceDefinition } from './service-definition';

const { HealthCheckResponseSchema, HealthCheckResponse_ServingStatus: Status } = health;
type Check = health.HealthCheckResponse;

/** grpc.health.v1.Health state: '' is the whole server; each service registers under its full name. */
export class HealthReporter {
  private readonly statuses = new Map<string, boolean>();
  private readonly watchers = new Set<(service: string) => void>();

  set(service: string, serving: boolean): void {
    this.statuses.set(service, serving);
    for (const w of this.watchers) w(service);
  }

  shutdown(): void {
    for (const key of [...this.statuses.keys()]) this.set(key, false);
  }

  status(service: string): health.HealthCheckResponse_ServingStatus {
    const s = this.statuses.get(service);
    if (s === undefined) return Status.SERVICE_UNKNOWN;
    return s ? Status.SERVING : Status.NOT_SERVING;
  }

  all(): Map<string, boolean> {
    return new Map(this.statuses);
  }

  watch(fn: (service: string) => void): () => void {
    this.watchers.add(fn);
    return () => this.watchers.delete(fn);
  }
}

export const healthServiceDefinition = toGrpcServiceDefinition(health.Health);

export function healthServiceImpl(reporter: HealthReporter): grpc.UntypedServiceImplementation {
  const response = (service: string): Check => create(HealthCheckResponseSchema, { status: reporter.status(service) });
  return {
    check: (call: grpc.ServerUnaryCall<health.HealthCheckRequest, Check>, cb: grpc.sendUnaryData<Check>) => {
      const s = reporter.status(call.request.service);
      if (s === Status.SERVICE_UNKNOWN) cb({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
      else cb(null, response(call.request.service));
    },
    list: (_call: grpc.ServerUnaryCall<unknown, unknown>, cb: grpc.sendUnaryData<unknown>) => {
      const statuses: Record<string, Check> = {};
      for (const name of reporter.all().keys()) statuses[name] = response(name);
      cb(null, create(health.HealthListResponseSchema, { statuses }));
    },
    watch: (call: grpc.ServerWritableStream<health.HealthCheckRequest, Check>) => {
      const service = call.request.service;
      call.write(response(service));
      const stop = reporter.watch((changed) => {
        if (changed === service) call.write(response(service));
      });
      call.on('cancelled', stop);
      call.on('close', stop);
    },
  };
}
