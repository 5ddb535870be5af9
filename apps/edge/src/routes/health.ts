import { health } from '@gateway/contracts';
import { createServiceClient } from '@gateway/rpc';
import type { RegisterRoutes } from './context';

/** /healthz: the process is alive. /readyz: every backing service and the bus answer. */
export const registerHealthRoutes: RegisterRoutes = (router, { config, bus }) => {
  const targets: Record<string, string> = {
    'tenant-directory': config.tenantDirectoryAddr,
    messaging: config.messagingAddr,
    flows: config.flowsAddr,
    signup: config.signupAddr,
    dispatcher: config.dispatcherAddr,
  };
  const checkers = Object.entries(targets).map(([name, addr]) => ({ name, client: createServiceClient(health.Health, addr, { defaultDeadlineMs: 1500 }) }));

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const checks: Record<string, string> = {};
    await Promise.all(
      checkers.map(async ({ name, client }) => {
        try {
          const r = await client.check({ service: '' });
          checks[name] = r.status === health.HealthCheckResponse_ServingStatus.SERVING ? 'ok' : 'not_serving';
        } catch {
          checks[name] = 'unreachable';
        }
      }),
    );
    checks.bus = bus?.isConnected() ? 'ok' : 'unreachable';
    const ready = Object.values(checks).every((v) => v === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.body = { status: ready ? 'ready' : 'not_ready', checks };
  });
};
