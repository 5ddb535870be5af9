import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { APPS } from './app-configs';

const ROOT = resolve(__dirname, '../../..');

interface Instruction {
  op: string;
  args: string;
}
interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Dockerfile → global ARGs and stages (line continuations joined, comments and parser directives dropped). */
function parseDockerfile(text: string): { args: Record<string, string>; stages: Stage[] } {
  const logical = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const args: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const line of logical) {
    const [, op, rest] = /^(\S+)\s+(.*)$/.exec(line) ?? [];
    const ins = { op: op.toUpperCase(), args: rest };
    if (ins.op === 'FROM') {
      const [, from, name] = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest) ?? [];
      stages.push({ from, name, instructions: [] });
    } else if (!stages.length && ins.op === 'ARG') {
      const [k, v = ''] = rest.split('=');
      args[k] = v;
    } else stages[stages.length - 1].instructions.push(ins);
  }
  return { args, stages };
}

const dockerfile = parseDockerfile(readFileSync(join(ROOT, 'Dockerfile'), 'utf8'));
const stage = (name: string) => dockerfile.stages.find((s) => s.name === name);
const runtime = dockerfile.stages[dockerfile.stages.length - 1];
const ops = (s: Stage | undefined, op: string) => (s?.instructions ?? []).filter((i) => i.op === op).map((i) => i.args);
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies: Record<string, string> };
const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]);
const isBuiltin = (spec: string) => spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]);

describe('Dockerfile', () => {
  it('is multi-stage: production dependencies, an esbuild bundle of ARG APP, and a slim runtime', () => {
    expect(dockerfile.stages.length).toBeGreaterThanOrEqual(3);
    const base = runtime.from.replace(/^\$\{(\w+)\}$/, (_m, a: string) => dockerfile.args[a]);
    expect(base).toMatch(/^node:20[\w.-]*-slim$/);
    const deps = ops(stage('prod-deps'), 'RUN').join(' ');
    expect(deps).toMatch(/npm ci --omit=dev/);
    expect(ops(stage('build'), 'ARG')).toContain('APP');
    expect(ops(stage('build'), 'RUN').join(' ')).toContain('node scripts/build-app.mjs "${APP}"');
    expect(ops(runtime, 'ARG')).toContain('APP');
    const copies = ops(runtime, 'COPY');
    // node_modules of the runtime come from the production install, never from the build stage's full install
    expect(copies.filter((c) => c.includes('node_modules'))).toEqual([expect.stringMatching(/^--from=prod-deps\b/)]);
    expect(copies).toContainEqual(expect.stringMatching(/^--from=build\b.*\/src\/dist\/apps\/\$\{APP\}\/ \.\/dist\/$/));
    expect(ops(runtime, 'CMD')).toEqual([expect.stringContaining('dist/main.js')]);
  });

  it("starts node with the service's NODE_FLAGS on its command line, node itself the container's process", () => {
    const [cmd] = ops(runtime, 'CMD');
    // a shell only to expand NODE_FLAGS (flags NODE_OPTIONS refuses); `exec` replaces it, so node gets the stop signal
    expect(JSON.parse(cmd)).toEqual(['/bin/sh', '-c', 'exec node $NODE_FLAGS --enable-source-maps dist/main.js']);
    // empty unless the deployment sets it (the catalogue's nodeFlags, compared by the compose and Kubernetes checks)
    expect(ops(runtime, 'ENV').join(' ')).toMatch(/\bNODE_FLAGS=""/);
  });

  it('runs as a non-root user given numerically (so Kubernetes runAsNonRoot can verify it)', () => {
    const users = ops(runtime, 'USER');
    expect(users.length).toBe(1);
    const [uid, gid] = users[0].split(':').map(Number);
    expect(uid).toBeGreaterThan(0);
    if (gid !== undefined) expect(gid).toBeGreaterThan(0);
  });

  it('puts the health-check scripts the compose file runs into the image', () => {
    const compose = parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
      services: Record<string, { healthcheck?: { test?: string[] } }>;
    };
    const used = new Set(
      Object.values(compose.services)
        .flatMap((s) => s.healthcheck?.test ?? [])
        .filter((a) => /^scripts\/.*\.mjs$/.test(a)),
    );
    expect(used.size).toBeGreaterThanOrEqual(2);
    const copied = ops(runtime, 'COPY').join(' ');
    for (const script of used) expect([script, copied.includes(script), existsSync(join(ROOT, script))]).toEqual([script, true, true]);
  });

  it('copies only files that exist and that .dockerignore keeps in the build context', () => {
    const ignore = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    for (const must of ['**/node_modules', 'dist', '.git', '.env']) expect(ignore).toContain(must);
    const fromContext = dockerfile.stages.flatMap((s) => ops(s, 'COPY')).filter((c) => !c.startsWith('--from'));
    const sources = fromContext.flatMap((c) =>
      c
        .replace(/--\S+\s+/g, '')
        .split(/\s+/)
        .slice(0, -1),
    );
    expect(sources.length).toBeGreaterThan(3);
    for (const src of sources) {
      expect([src, existsSync(join(ROOT, src))]).toEqual([src, true]);
      const top = src.replace(/\/$/, '');
      expect([src, ignore.includes(top)]).toEqual([src, false]);
    }
  });

  describe('bundles', () => {
    const out = mkdtempSync(join(tmpdir(), 'gw-bundles-'));
    afterAll(() => rmSync(out, { recursive: true, force: true }));

    it.each([...APPS, 'provider-sim'])('%s: builds with scripts/build-app.mjs and needs only production dependencies at run time', (app) => {
      const file = join(out, app, 'main.js');
      execFileSync(process.execPath, [join(ROOT, 'scripts/build-app.mjs'), app, file], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
      const requires = new Set([...readFileSync(file, 'utf8').matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]));
      const external = [...requires].filter((r) => !isBuiltin(r) && !r.startsWith('.')).map(packageOf);
      expect(external.length).toBeGreaterThan(0);
      const notInstalled = [...new Set(external)].filter((p) => !(p in pkg.dependencies));
      expect({ app, notInstalled }).toEqual({ app, notInstalled: [] });
    });

    it('the health-check scripts need only production dependencies', () => {
      for (const script of ['scripts/grpc-health-check.mjs', 'scripts/http-health-check.mjs']) {
        const imports = [...readFileSync(join(ROOT, script), 'utf8').matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1]);
        for (const i of imports.filter((s) => !isBuiltin(s))) expect([script, packageOf(i) in pkg.dependencies]).toEqual([script, true]);
      }
    });
  });
});
