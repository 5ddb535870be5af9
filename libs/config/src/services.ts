import catalogue from './services.json';

/**
 * The catalogue of the gateway's processes: names, default ports and the variables that move them, written once
 * in services.json (so scripts/start-stack.mjs reads the same list). Config defaults, the test stack, the bench
 * and the deployment checks read it from here. Adding a service starts with one entry there.
 */
export interface GrpcServiceEntry {
  name: string;
  /** Default gRPC port (GRPC_PORT of the service; callers reach it through `addrVar`). */
  grpcPort: number;
  /** Default metrics port (METRICS_PORT of the service). */
  metricsPort: number;
  /** The variable through which callers find the service, as host:port. */
  addrVar: string;
}

export interface HttpEntry {
  name: string;
  port: number;
  /** The variable that moves `port`. */
  portVar: string;
}

export const EDGE: HttpEntry & { metricsPort: number } = catalogue.edge;
/** The gRPC services in start order: a service may only call the ones before it. */
export const GRPC_SERVICES: readonly GrpcServiceEntry[] = catalogue.grpc;
export const PROVIDER_SIM: HttpEntry = catalogue.providerSim;
export const NATS: HttpEntry = catalogue.nats;

export function grpcService(name: string): GrpcServiceEntry {
  const entry = GRPC_SERVICES.find((s) => s.name === name);
  if (!entry) throw new Error(`no gRPC service "${name}" in libs/config/src/services.json`);
  return entry;
}

/** Every app a deployment runs: the edge and the gRPC services. */
export const APP_NAMES: readonly string[] = [EDGE.name, ...GRPC_SERVICES.map((s) => s.name)];
