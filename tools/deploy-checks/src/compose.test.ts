import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  APPS,
  isSensitive,
  listenOf,
  MAY_BE_EMPTY,
  publicAddressesTrusted,
  loadReadConfig,
  requiredVariables,
  variablesRead,
  type AppName,
  type ReadConfig,
} from './app-configs';
import { environmentOf, interpolate, loadCompose, parseEnvFile, scanInterpolation, type ComposeFile } from './compose';
import { v8EnvOf } from '@gateway/config';

const ROOT = resolve(__dirname, '../../..');

describe('compose variable substitution', () => {
  it('applies defaults, refuses unset mandatory variables and unescapes $$', () => {
    const env = { SET: 'v', EMPTY: '' };
    expect(interpolate('a-${SET}-${MISSING}-$SET', env)).toBe('a-v--v');
    expect(interpolate('${EMPTY:-d1} ${EMPTY-d2} ${MISSING-d3}', env)).toBe('d1  d3');
    expect(interpolate('$${NOT_A_VAR}', env)).toBe('${NOT_A_VAR}');
    expect(() => interpolate('${EMPTY:?must be set}', env)).toThrow('EMPTY: must be set');
    expect(interpolate('${EMPTY?only when unset}', env)).toBe('');
    expect([...scanInterpolation('${A:?x} ${B:-y} $C $${D}').mandatory]).toEqual(['A']);
  });
});

describe('docker-compose.yml', () => {
  const text = readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8');
  const example = parseEnvFile(readFileSync(join(ROOT, '.env.example'), 'utf8'));
  const { mandatory, referenced } = scanInterpolation(text);
  // what an operator's .env holds: the example's values, the mandatory ones it leaves empty filled in
  const env: Record<string, string> = { ...example };
  for (const v of mandatory) if (!env[v]) env[v] = `filled-${v.toLowerCase()}`;
  const { resolved, raw } = loadCompose(text, env);
  const services = resolved.services;
  const readConfigs = new Map<AppName, ReadConfig>();

  beforeAll(async () => {
    for (const app of APPS) readConfigs.set(app, await loadReadConfig(app));
  });

  const envOf = (app: string) => environmentOf(services[app] ?? {});
  const configOf = (app: AppName) => readConfigs.get(app)!(envOf(app));

  it('documents in .env.example every variable it refuses to start without, with no real secret in it', () => {
    expect([...mandatory].filter((v) => !(v in example))).toEqual([]);
    for (const [k, v] of Object.entries(example)) if (isSensitive(k) && !/^sim-/.test(v)) expect([k, v]).toEqual([k, '']);
    expect(referenced.size).toBeGreaterThan(mandatory.size);
  });

  it('runs NATS with JetStream on a persistent volume, and PostgreSQL on one', () => {
    const nats = services.nats;
    const cmd = Array.isArray(nats.command) ? nats.command : String(nats.command).split(/\s+/);
    expect(cmd).toContain('-js');
    // max_payload for provider webhooks of up to 3 MB: deploy/nats/gateway.conf, mounted where -c points
    const conf = cmd[cmd.indexOf('-c') + 1];
    expect(cmd.indexOf('-c')).toBeGreaterThanOrEqual(0);
    expect(nats.volumes).toContain(`./deploy/nats/gateway.conf:${conf}:ro`);
    const storeDir = cmd[cmd.indexOf('-sd') + 1];
    expect(cmd.indexOf('-sd')).toBeGreaterThanOrEqual(0);
    expect(nats.volumes).toEqual(expect.arrayContaining([expect.stringMatching(new RegExp(`^[a-z-]+:${storeDir}$`))]));
    const natsVolume = String(nats.volumes!.find((v) => String(v).endsWith(`:${storeDir}`))).split(':')[0];
    expect(resolved.volumes).toHaveProperty(natsVolume);
    const pg = services.postgres;
    const pgVolume = String(pg.volumes!.find((v) => String(v).endsWith(':/var/lib/postgresql/data'))).split(':')[0];
    expect(resolved.volumes).toHaveProperty(pgVolume);
    for (const s of [nats, pg]) {
      expect(s.healthcheck?.test).toBeDefined();
      expect(s.restart).toMatch(/^(always|unless-stopped|on-failure)/);
    }
  });

  it('keeps the provider simulator under the dev profile only', () => {
    expect(services['provider-sim']?.profiles).toEqual(['dev']);
    expect(services['provider-sim'].build?.args?.APP).toBe('provider-sim');
    for (const app of APPS) expect([app, services[app]?.profiles]).toEqual([app, undefined]);
  });

  it.each(APPS)('%s: built from the Dockerfile for its app, restarted, hardened like the Kubernetes pods', (app) => {
    const s = services[app];
    expect(s).toBeDefined();
    expect(s.build).toMatchObject({ context: '.', args: { APP: app } });
    expect(s.restart).toMatch(/^(always|unless-stopped|on-failure)/);
    expect(s.read_only).toBe(true);
    expect([s.tmpfs].flat()).toContain('/tmp');
    expect(s.cap_drop).toContain('ALL');
  });

  it.each(APPS)('%s: runs with its V8 settings (NODE_OPTIONS, V8_HEAP_GROWING_PERCENT and NODE_FLAGS of the service catalogue)', (app) => {
    const { NODE_OPTIONS, V8_HEAP_GROWING_PERCENT, NODE_FLAGS = '' } = envOf(app);
    expect([app, { NODE_OPTIONS, V8_HEAP_GROWING_PERCENT, NODE_FLAGS }]).toEqual([app, v8EnvOf(app)]);
  });

  it.each(APPS)('%s: every variable its configuration reads is set, secrets only through .env, and the configuration parses', (app) => {
    const readConfig = readConfigs.get(app)!;
    const e = envOf(app);
    const missing = variablesRead(readConfig).filter((v) => !(MAY_BE_EMPTY.has(v) ? v in e : e[v]));
    expect({ app, missing }).toEqual({ app, missing: [] });
    for (const v of requiredVariables(readConfig)) expect([v, e[v]]).toEqual([v, expect.stringMatching(/./)]);
    const rawEnv = environmentOf(raw.services[app]);
    const hardcodedSecrets = variablesRead(readConfig).filter((v) => isSensitive(v) && !/\$\{[A-Z_]+/.test(rawEnv[v] ?? ''));
    expect({ app, hardcodedSecrets }).toEqual({ app, hardcodedSecrets: [] });
    expect(() => readConfig(e)).not.toThrow();
    const listen = listenOf(app, configOf(app));
    expect(['0.0.0.0', '::']).toContain(listen.host);
    const dataDir = e.DATA_DIR;
    if (dataDir) expect(dataDir.startsWith('/tmp/')).toBe(true); // the only writable path of a read_only container
  });

  it('has the edge believe X-Forwarded-For from the proxy in front only, empty by default (nothing in front), never from a public address', () => {
    expect(environmentOf(raw.services.edge).TRUSTED_PROXIES).toBe('${TRUSTED_PROXIES:-}');
    expect((configOf('edge') as { trustedProxies: string[] }).trustedProxies).toEqual([]);
    // what an operator puts in .env for a proxy in front (the example's value)
    const example = /^# TRUSTED_PROXIES=(.+)$/m.exec(readFileSync(join(ROOT, '.env.example'), 'utf8'))?.[1];
    const behindProxy = readConfigs.get('edge')!({ ...envOf('edge'), TRUSTED_PROXIES: example! }) as { trustedProxies: string[] };
    expect(behindProxy.trustedProxies.length).toBeGreaterThan(0);
    expect(publicAddressesTrusted(behindProxy.trustedProxies)).toEqual([]);
  });

  it.each(APPS)('%s: its health check asks the port the app serves (gRPC health, or the edge /readyz)', (app) => {
    const listen = listenOf(app, configOf(app));
    const test = services[app].healthcheck?.test;
    expect(Array.isArray(test)).toBe(true);
    const argv = test as string[];
    expect(argv[0]).toBe('CMD');
    if (listen.kind === 'grpc') {
      expect(argv.slice(1)).toEqual(['node', 'scripts/grpc-health-check.mjs', `127.0.0.1:${listen.port}`]);
    } else {
      expect(argv.slice(1, 3)).toEqual(['node', 'scripts/http-health-check.mjs']);
      const url = new URL(argv[3]);
      expect([url.port, url.pathname]).toEqual([String(listen.port), '/readyz']);
    }
    const exposed = [...(services[app].expose ?? []), ...(services[app].ports ?? []).map((p) => String(p).split(':').pop())].map(String);
    expect(exposed).toEqual(expect.arrayContaining([String(listen.port), String(listen.metricsPort)]));
  });

  it.each(APPS)('%s: starts after what it uses is healthy (bus, database, the services it calls)', (app) => {
    const e = envOf(app);
    const used = variablesRead(readConfigs.get(app)!);
    const deps = services[app].depends_on as Record<string, { condition?: string }>;
    const needs: string[] = [];
    if (used.includes('NATS_URL')) needs.push(new URL(e.NATS_URL).hostname);
    if (used.includes('DATABASE_URL')) needs.push(new URL(e.DATABASE_URL).hostname);
    for (const v of used.filter((n) => n.endsWith('_ADDR'))) needs.push(e[v].split(':')[0]);
    expect(needs.length).toBeGreaterThan(0);
    for (const n of needs) {
      expect([app, n, n in services]).toEqual([app, n, true]);
      expect([app, n, deps?.[n]?.condition]).toEqual([app, n, 'service_healthy']);
    }
    // an address names the compose service of that app, on the port that app serves
    for (const v of used.filter((n) => n.endsWith('_ADDR'))) {
      const [host, port] = e[v].split(':');
      const target = APPS.find((a) => a === host);
      expect([v, target]).toEqual([v, host]);
      expect([v, Number(port)]).toEqual([v, listenOf(target!, configOf(target!)).port]);
    }
  });

  it('gives every service that depends on another a health check, so service_healthy can be met', () => {
    const file: ComposeFile = resolved;
    for (const [name, s] of Object.entries(file.services)) {
      for (const dep of Object.keys((s.depends_on ?? {}) as Record<string, unknown>))
        expect([name, dep, !!file.services[dep]?.healthcheck]).toEqual([name, dep, true]);
    }
  });
});
