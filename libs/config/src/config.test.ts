import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import * as common from './common';
import { ConfigError, bool, int, intList, loadConfig, str, url } from './config';

describe('loadConfig', () => {
  const spec = {
    port: int('PORT', 8080, { min: 1 }),
    name: str('NAME'),
    base: url('BASE', (env) => `http://localhost:${env.PORT ?? 8080}`),
    flag: bool('FLAG', false),
    delays: intList('DELAYS', [5000, 25000]),
  };

  it('applies defaults and derived defaults', () => {
    const c = loadConfig(spec, { NAME: 'x', PORT: '9000' });
    expect(c).toEqual({ port: 9000, name: 'x', base: 'http://localhost:9000', flag: false, delays: [5000, 25000] });
  });

  it('reports every problem at once', () => {
    expect.assertions(2);
    try {
      loadConfig(spec, { PORT: 'abc', FLAG: 'maybe', DELAYS: '1,x' });
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).problems).toHaveLength(5); // PORT, NAME, BASE (derived from the bad PORT), FLAG, DELAYS;
    }
  });
});

describe('the provider fields every service shares', () => {
  it("names the gateway and its version in the User-Agent by default (the version is package.json's)", () => {
    const pkg = JSON.parse(readFileSync(resolve(__dirname, '../../../package.json'), 'utf8')) as { version: string };
    expect(common.GATEWAY_VERSION).toBe(pkg.version);
    expect(loadConfig(common.providerFields(), {}).providerUserAgent).toBe(`messaging-gateway/${pkg.version}`);
    expect(loadConfig(common.providerFields(), { PROVIDER_USER_AGENT: 'acme-gateway/2.1 (ops@acme.test)' }).providerUserAgent).toBe(
      'acme-gateway/2.1 (ops@acme.test)',
    );
  });

  it('refuses a User-Agent that is no header value', () => {
    for (const bad of [' leading-space', 'line\nbreak', 'ü', 'x'.repeat(257)]) {
      expect(() => loadConfig(common.providerFields(), { PROVIDER_USER_AGENT: bad })).toThrow(/PROVIDER_USER_AGENT/);
    }
  });
});
