import { common, loadConfig, type Env } from '@gateway/config';

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      ...common.grpcServiceFields('flows'),
      tenantDirectoryAddr: common.serviceAddr('tenant-directory'),
      ...common.providerFields(),
    },
    env,
  );
}

export type FlowsConfig = ReturnType<typeof readConfig>;
