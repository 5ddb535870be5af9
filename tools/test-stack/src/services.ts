import { EDGE, GRPC_SERVICES } from '@gateway/config';
import type { Logger } from '@gateway/logger';
import type { RunningProcess } from '@gateway/runtime';

export type Env = Record<string, string | undefined>;

/** What a started service exposes to the stack. */
export interface StartedService extends RunningProcess {
  grpcPort?: number;
  port?: number;
  metricsPort?: number;
}

export interface ServiceEntry {
  /** Env var through which later services (and the edge) find this one. */
  addrVar?: string;
  start(env: Env, logger: Logger): Promise<StartedService>;
}

type Start = (env: Env, logger: Logger) => Promise<StartedService>;

/** How each app of the catalogue starts in-process: its config reader and start function, exactly as its main.ts. */
const STARTS: Record<string, Start> = {
  'tenant-directory': async (env, logger) => {
    const m = await import('@gateway/app-tenant-directory');
    return m.startTenantDirectory(m.readConfig(env), logger);
  },
  messaging: async (env, logger) => {
    const m = await import('@gateway/app-messaging');
    return m.startMessaging(m.readConfig(env), logger);
  },
  flows: async (env, logger) => {
    const m = await import('@gateway/app-flows');
    return m.startFlows(m.readConfig(env), logger);
  },
  signup: async (env, logger) => {
    const m = await import('@gateway/app-signup');
    return m.startSignup(m.readConfig(env), logger);
  },
  dispatcher: async (env, logger) => {
    const m = await import('@gateway/app-dispatcher');
    return m.startDispatcher(m.readConfig(env), logger);
  },
  edge: async (env, logger) => {
    const m = await import('@gateway/app-edge');
    return m.startEdge(m.readConfig(env), logger);
  },
};

function startOf(name: string): Start {
  const start = STARTS[name];
  if (!start) throw new Error(`the test stack cannot start "${name}" of the service catalogue: add it to STARTS (tools/test-stack/src/services.ts)`);
  return start;
}

/**
 * Every gateway service the stack can start in-process, in the catalogue's start order (@gateway/config: a service
 * may only depend on the ones before it), the edge last. Each reads its config from the env the stack builds.
 */
export const SERVICES: Record<string, ServiceEntry> = Object.fromEntries([
  ...GRPC_SERVICES.map((s) => [s.name, { addrVar: s.addrVar, start: startOf(s.name) }] as const),
  [EDGE.name, { start: startOf(EDGE.name) }] as const,
]);

export type ServiceName = keyof typeof SERVICES;

/** Start order: the edge last, everything else in declaration order. */
export function startOrder(names: string[]): string[] {
  const all = Object.keys(SERVICES);
  const known = names.filter((n) => all.includes(n));
  const unknown = names.filter((n) => !all.includes(n));
  if (unknown.length) throw new Error(`unknown services: ${unknown.join(', ')}`);
  return [...all.filter((n) => known.includes(n) && n !== EDGE.name), ...(known.includes(EDGE.name) ? [EDGE.name] : [])];
}
