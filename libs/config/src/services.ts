import catalogue from './services.json';

/** What the catalogue says of an app's V8 in production (`v8EnvOf`). */
export interface V8Entry {
  /** Its V8 flags in production (NODE_OPTIONS of every deployment: see `nodeOptionsOf`). */
  nodeOptions: string;
  /** V8's heap growing percentage in production, 0 for V8's own (V8_HEAP_GROWING_PERCENT: see `v8EnvOf`). */
  heapGrowingPercent: number;
  /** Node flags on its command line in production, for what NODE_OPTIONS refuses (NODE_FLAGS: see `v8EnvOf`). */
  nodeFlags: string;
}

/**
 * The catalogue of the gateway's processes: names, default ports and the variables that move them, written once
 * in services.json (so scripts/start-stack.mjs reads the same list). Config defaults, the test stack, the bench
 * and the deployment checks read it from here. Adding a service starts with one entry there.
 */
export interface GrpcServiceEntry extends V8Entry {
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

export const EDGE: HttpEntry & V8Entry & { metricsPort: number } = catalogue.edge;
/** The gRPC services in start order: a service may only call the ones before it. */
export const GRPC_SERVICES: readonly GrpcServiceEntry[] = catalogue.grpc;
export const PROVIDER_SIM: HttpEntry = catalogue.providerSim;
/**
 * nats-server, as the gateway runs it. `maxPayload`: its max_payload (the default 1 MB is too small): the largest
 * message on the bus, a provider webhook of up to 3 MB (the provider's documented maximum) with room for the
 * event envelope and headers around it. Every nats-server the gateway starts or deploys gets it (`npm start`,
 * the tests, the bench, docker-compose.yml through deploy/nats/gateway.conf, the Helm values); the deployment
 * checks compare them.
 */
export const NATS: HttpEntry & { maxPayload: number } = catalogue.nats;

/** The configuration file of a nats-server the gateway starts: what the command line cannot set. */
export const natsServerConf = (): string => `# written by the gateway (NATS of @gateway/config)\nmax_payload: ${NATS.maxPayload}\n`;

export function grpcService(name: string): GrpcServiceEntry {
  const entry = GRPC_SERVICES.find((s) => s.name === name);
  if (!entry) throw new Error(`no gRPC service "${name}" in libs/config/src/services.json`);
  return entry;
}

/**
 * The V8 flags (NODE_OPTIONS) an app runs with in production, chosen per service from the bench's CPU per
 * operation and peak RSS under each setting (README, "V8 settings per service"): docker-compose.yml and the
 * Kubernetes manifests set exactly these (the deployment checks compare them), and the bench's production
 * configuration runs each service with its own.
 */
export function nodeOptionsOf(app: string): string {
  return appEntry(app).nodeOptions;
}

/**
 * The V8 settings an app runs with in production: NODE_OPTIONS and what NODE_OPTIONS refuses. The heap growing
 * percentage the app applies itself at start (V8_HEAP_GROWING_PERCENT, read by runMain of @gateway/runtime).
 * NODE_FLAGS goes on node's command line (the image's `CMD` puts it there), for flags a running process cannot take:
 * `--single-threaded-gc` for the dispatcher, V8's garbage collection on its own thread without helper threads beside
 * it (set after start, V8 aborts the process at its next mark-compact; tried): about 8 % less of the dispatcher's
 * CPU per delivery on 2 cores, for ~20 MB more at peak, where the edge and messaging showed no difference beyond the
 * runs' noise for 15–30 MB more (README, "V8 settings per service"). docker-compose.yml and the Kubernetes manifests
 * set exactly these per service (the deployment checks compare them; NODE_FLAGS only where it is not empty); the
 * bench's production configuration runs each service with its own.
 */
export function v8EnvOf(app: string): { NODE_OPTIONS: string; V8_HEAP_GROWING_PERCENT: string; NODE_FLAGS: string } {
  const entry = appEntry(app);
  return { NODE_OPTIONS: entry.nodeOptions, V8_HEAP_GROWING_PERCENT: String(entry.heapGrowingPercent), NODE_FLAGS: entry.nodeFlags };
}

function appEntry(app: string): V8Entry {
  const entry = app === EDGE.name ? EDGE : GRPC_SERVICES.find((s) => s.name === app);
  if (!entry) throw new Error(`no app "${app}" in libs/config/src/services.json`);
  return entry;
}

/** Every app a deployment runs: the edge and the gRPC services. */
export const APP_NAMES: readonly string[] = [EDGE.name, ...GRPC_SERVICES.map((s) => s.name)];
