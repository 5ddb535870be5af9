import { common, int, intList, loadConfig, type Env } from '@gateway/config';

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      ...common.grpcServiceFields('dispatcher'),
      jetstreamReplicas: common.jetstreamReplicas,
      tenantDirectoryAddr: common.serviceAddr('tenant-directory'),
      /** Delays before the 2nd, 3rd... attempt: attempts in all = delays + 1 (decisions.md: 5 s, then 25 s). */
      retryDelaysMs: intList('WEBHOOK_RETRY_DELAYS_MS', [5000, 25000]),
      timeoutMs: int('WEBHOOK_TIMEOUT_MS', 10_000, { min: 100, max: 120_000 }),
      allowPrivateTargets: common.allowPrivateTargets,
      /** A client's webhook whose every attempt has failed for this long is disabled (default 5 days). */
      disableAfterMs: int('WEBHOOK_DISABLE_AFTER_MS', 5 * 24 * 3600_000, { min: 1000 }),
      /** Deliveries in progress at once (messages waiting out a retry delay are not counted here). */
      concurrency: int('DISPATCHER_CONCURRENCY', 128, { min: 1, max: 1024 }),
      /** Delivery records older than this are pruned, hourly, in small batches (issue 27). */
      deliveryRetentionDays: int('DELIVERY_RETENTION_DAYS', 30, { min: 1, max: 3650 }),
    },
    env,
  );
}

export type DispatcherConfig = ReturnType<typeof readConfig>;
