import { common, int, loadConfig, type Env } from '@gateway/config';

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      ...common.grpcServiceFields('messaging'),
      jetstreamReplicas: common.jetstreamReplicas,
      tenantDirectoryAddr: common.serviceAddr('tenant-directory'),
      ...common.providerFields(),
      // issue 27: messages (and contacts without activity) older than this are pruned, hourly, in small batches
      messageRetentionDays: int('MESSAGE_RETENTION_DAYS', 90, { min: 1, max: 3650 }),
    },
    env,
  );
}

export type MessagingConfig = ReturnType<typeof readConfig>;
