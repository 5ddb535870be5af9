import { common, loadConfig, type Env } from '@gateway/config';

export function readConfig(env: Env = process.env) {
  return loadConfig(
    {
      ...common.grpcServiceFields('flows'),
      tenantDirectoryAddr: common.serviceAddr.tenantDirectory,
      providerBaseUrl: common.providerBaseUrl,
      providerApiVersion: common.providerApiVersion,
      providerTimeoutMs: common.providerTimeoutMs,
    },
    env,
  );
}

export type FlowsConfig = ReturnType<typeof readConfig>;
