import { common, loadConfig, type Env } from '@gateway/config';

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      ...common.grpcServiceFields('messaging'),
      jetstreamReplicas: common.jetstreamReplicas,
      tenantDirectoryAddr: common.serviceAddr('tenant-directory'),
      ...common.providerFields(),
    },
    env,
  );
}

export type MessagingConfig = ReturnType<typeof readConfig>;
