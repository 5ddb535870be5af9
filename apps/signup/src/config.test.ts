import { ConfigError } from '@gateway/config';
import { readConfig } from './config';

describe('signup configuration', () => {
  it('loads the simulator’s SDK and accepts its origin by default', () => {
    const c = readConfig({ PROVIDER_BASE_URL: 'http://127.0.0.1:9191/' });
    expect(c).toMatchObject({ providerSdkUrl: 'http://127.0.0.1:9191/sdk.js', providerOrigins: ['http://127.0.0.1:9191'], grpcPort: 50054, metricsPort: 9468 });
    expect(c).toMatchObject({ providerAppId: 'sim-app-id', providerConfigId: 'sim-config-id', sessionTtlMs: 3_600_000 });
  });

  it('uses the provider’s own SDK and web origins in front of its production Graph API', () => {
    const c = readConfig({ PROVIDER_BASE_URL: 'https://graph.facebook.com' });
    expect(c.providerSdkUrl).toBe('https://connect.facebook.net/en_US/sdk.js');
    expect(c.providerOrigins).toEqual(['https://www.facebook.com', 'https://web.facebook.com']);
  });

  it('takes an explicit SDK URL and origin list, and refuses origins with a path', () => {
    const c = readConfig({ PROVIDER_SDK_URL: 'https://sdk.example.test/sdk.js', PROVIDER_ORIGINS: 'https://a.example.test, https://b.example.test' });
    expect(c.providerSdkUrl).toBe('https://sdk.example.test/sdk.js');
    expect(c.providerOrigins).toEqual(['https://a.example.test', 'https://b.example.test']);
    expect(readConfig({ PROVIDER_SDK_URL: 'https://sdk.example.test/sdk.js' }).providerOrigins).toEqual(['https://sdk.example.test']);
    expect(() => readConfig({ PROVIDER_ORIGINS: 'https://a.example.test/path' })).toThrow(ConfigError);
    expect(() => readConfig({ SIGNUP_SESSION_TTL_MS: '5' })).toThrow(/SIGNUP_SESSION_TTL_MS/);
  });
});
