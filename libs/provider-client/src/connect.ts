import type { Logger } from '@gateway/logger';
import { ProviderClient } from './client';
import type { ProviderCallObserver } from './http';

/** The provider settings of a service's config (`common.providerFields()` of @gateway/config, plus app credentials where used). */
export interface ProviderSettings {
  providerBaseUrl: string;
  providerApiVersion: string;
  providerTimeoutMs: number;
  /** PROVIDER_USER_AGENT: the User-Agent of every provider request (the media host requires one). */
  providerUserAgent?: string;
  providerAppId?: string;
  providerAppSecret?: string;
  /** PROVIDER_MEDIA_HOSTS: where media downloads may go besides the Graph API origin. */
  providerMediaHosts?: string[];
}

/**
 * The one way a service reaches the provider: a ProviderClient from its config. Each service takes it behind a
 * port that picks the operations it uses (`Pick<ProviderClient, ...>`); every call's outcome goes to `observer`
 * (pass `metrics.providerCall`).
 */
export function connectProvider(config: ProviderSettings, observer?: ProviderCallObserver, logger?: Logger): ProviderClient {
  return new ProviderClient({
    baseUrl: config.providerBaseUrl,
    apiVersion: config.providerApiVersion,
    timeoutMs: config.providerTimeoutMs,
    userAgent: config.providerUserAgent,
    appId: config.providerAppId,
    appSecret: config.providerAppSecret,
    mediaHosts: config.providerMediaHosts,
    observer,
    logger,
  });
}
