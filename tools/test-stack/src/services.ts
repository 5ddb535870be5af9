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

/**
 * Every gateway service the stack can start in-process, in start order (a service may only depend on the
 * ones before it). Each entry reads its config from the env the stack builds, exactly as main.ts does.
 */
export const SERVICES: Record<string, ServiceEntry> = {
  'tenant-directory': {
    addrVar: 'TENANT_DIRECTORY_ADDR',
    start: async (env, logger) => {
      const m = await import('@gateway/app-tenant-directory');
      return m.startTenantDirectory(m.readConfig(env), logger);
    },
  },
  messaging: {
    addrVar: 'MESSAGING_ADDR',
    start: async (env, logger) => {
      const m = await import('@gateway/app-messaging');
      return m.startMessaging(m.readConfig(env), logger);
    },
  },
  dispatcher: {
    addrVar: 'DISPATCHER_ADDR',
    start: async (env, logger) => {
      const m = await import('@gateway/app-dispatcher');
      return m.startDispatcher(m.readConfig(env), logger);
    },
  },
  signup: {
    addrVar: 'SIGNUP_ADDR',
    start: async (env, logger) => {
      const m = await import('@gateway/app-signup');
      return m.startSignup(m.readConfig(env), logger);
    },
  },
  flows: {
    addrVar: 'FLOWS_ADDR',
    start: async (env, logger) => {
      const m = await import('@gateway/app-flows');
      return m.startFlows(m.readConfig(env), logger);
    },
  },
  edge: {
    start: async (env, logger) => {
      const m = await import('@gateway/app-edge');
      return m.startEdge(m.readConfig(env), logger);
    },
  },
};

export type ServiceName = keyof typeof SERVICES;

/** Start order: the edge last, everything else in declaration order. */
export function startOrder(names: string[]): string[] {
  const all = Object.keys(SERVICES);
  const known = names.filter((n) => all.includes(n));
  const unknown = names.filter((n) => !all.includes(n));
  if (unknown.length) throw new Error(`unknown services: ${unknown.join(', ')}`);
  return [...all.filter((n) => known.includes(n) && n !== 'edge'), ...(known.includes('edge') ? ['edge'] : [])];
}
