import { providerApiVersionInfo } from '@gateway/config';
import { spawnServiceProcess, startStack, type Stack } from '@gateway/test-stack';

/*
 * PROVIDER_API_VERSION (issue 24, item 1): the gateway knows each version's expiry; a process refuses to start on
 * one the provider no longer serves, naming the variable, and otherwise exports the days left.
 */
describe('provider API versions: an expired PROVIDER_API_VERSION stops the start', () => {
  it('a stack whose messaging service is configured with v20.0 (expired 2026-09-24) does not start, naming the variable', async () => {
    await expect(startStack({ services: ['tenant-directory', 'messaging'], env: { PROVIDER_API_VERSION: 'v20.0' } })).rejects.toThrow(
      /PROVIDER_API_VERSION: v20\.0 has expired \(2026-09-24\)/,
    );
    // an older version than any listed (v18.0) has expired too
    await expect(startStack({ services: ['tenant-directory', 'messaging'], env: { PROVIDER_API_VERSION: 'v18.0' } })).rejects.toThrow(
      /PROVIDER_API_VERSION: v18\.0 has expired/,
    );
  });

  it('the real messaging process exits with the configuration error (78) and a log line naming PROVIDER_API_VERSION', async () => {
    let failure: unknown;
    await spawnServiceProcess('messaging', { PROVIDER_API_VERSION: 'v19.0', DATA_DIR: '/nonexistent-never-used' }).then(
      async (p) => {
        await p.kill();
        failure = new Error('the process started');
      },
      (e: unknown) => (failure = e),
    );
    expect(String(failure)).toMatch(/messaging exited with 78/);
    expect(String(failure)).toMatch(/PROVIDER_API_VERSION: v19\.0 has expired \(2026-05-21\)/);
  });

  describe('a supported version', () => {
    let stack: Stack;
    beforeAll(async () => {
      stack = await startStack({ services: ['tenant-directory', 'messaging'] });
    });
    afterAll(() => stack?.stop());

    it('defaults to v25.0 and exports provider_api_version_expiry_days, the days until 2028-07-29', async () => {
      const text = await (await fetch(`http://127.0.0.1:${stack.running.get('messaging')!.metricsPort}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('provider_api_version_expiry_days{'));
      expect(line).toMatch(/version="v25\.0"/);
      const days = Number(line!.split(' ').pop());
      expect(days).toBe(providerApiVersionInfo('v25.0').daysLeft);
      expect(days).toBeGreaterThan(60);
    });
  });
});
