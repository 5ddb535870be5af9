import { health } from '@gateway/contracts';
import { createServiceClient } from '@gateway/rpc';
import { json, operation } from '../openapi/operation';
import { Alive, readiness, respond } from '../presenters';
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

  const alive = operation({
    operationId: 'healthz',
    summary: 'The process is alive',
    tags: ['Health'],
    responses: { 200: json('Alive.', Alive) },
  });
  router.get('/healthz', alive, (ctx) => {
    respond(ctx, Alive, undefined);
  });

  const Ready = readiness('ready');
  const NotReady = readiness('not_ready');
  const ready = operation({
    operationId: 'readyz',
    summary: 'Every service and the bus answer',
    tags: ['Health'],
    responses: { 200: json('Ready.', Ready), 503: json('Not ready: `checks` says what is not.', NotReady) },
  });
  router.get('/readyz', ready, async (ctx) => {
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
    respond(ctx, ready ? Ready : NotReady, checks, ready ? 200 : 503);
  });
};
