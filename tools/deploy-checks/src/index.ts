/**
 * Checks of the deployment artifacts (Dockerfile, docker-compose.yml, deploy/ kustomize overlays, NATS Helm
 * values) against the apps' real configuration: the variables each app reads and the ports it listens on
 * come from its own readConfig, never from a copy.
 */
export { APPS, GRPC_SERVICES, loadReadConfig, variablesRead, requiredVariables, isSensitive, listenOf } from './app-configs';
export type { AppName, ReadConfig, AppListen } from './app-configs';
export { kustomize, kubectlBinary, containerEnv, find, quantity, portNumber } from './kustomize';
export type { K8sObject, ResolvedVar } from './kustomize';
export { loadCompose, parseEnvFile, interpolate, scanInterpolation, environmentOf } from './compose';
export type { ComposeFile, ComposeService } from './compose';
export { parsePrometheusText } from './prometheus';
export type { MetricFamily, MetricSample } from './prometheus';
