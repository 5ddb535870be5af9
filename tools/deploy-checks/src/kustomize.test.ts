import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import {
  APPS,
  isSensitive,
  listenOf,
  loadReadConfig,
  publicAddressesTrusted,
  requiredVariables,
  variablesRead,
  type AppListen,
  type AppName,
  type ReadConfig,
} from './app-configs';
import { nodeOptionsOf, v8EnvOf } from '@gateway/config';
import { parseEnvFile } from './compose';
import { containerEnv, find, kustomize, portNumber, quantity, type K8sObject, type ResolvedVar } from './kustomize';

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are arbitrary YAML */
const ROOT = resolve(__dirname, '../../..');
const NAMESPACES = { dev: 'gateway-dev', prod: 'gateway' } as const;
const CLUSTER_SCOPED = new Set(['Namespace', 'ClusterRole', 'ClusterRoleBinding', 'StorageClass', 'PriorityClass']);

describe.each(['dev', 'prod'] as const)('kubectl kustomize deploy/overlays/%s', (overlay) => {
  let objects: K8sObject[];
  const readConfigs = new Map<AppName, ReadConfig>();
  const envs = new Map<AppName, { env: Map<string, ResolvedVar>; problems: string[] }>();
  const listens = new Map<AppName, AppListen>();
  // production's Secret is created out of band: its keys are documented, its values never committed
  const externalSecrets =
    overlay === 'prod'
      ? new Map([['gateway-secrets', new Set(Object.keys(parseEnvFile(readFileSync(join(ROOT, 'deploy/overlays/prod/secrets.env.example'), 'utf8'))))]])
      : undefined;

  beforeAll(async () => {
    objects = kustomize(join(ROOT, 'deploy/overlays', overlay));
    for (const app of APPS) {
      const readConfig = await loadReadConfig(app);
      readConfigs.set(app, readConfig);
      const container = containerOf(app);
      if (!container) continue;
      const resolved = containerEnv(objects, container, { externalSecrets });
      envs.set(app, resolved);
      try {
        listens.set(app, listenOf(app, readConfig(plain(resolved.env))));
      } catch {
        // reported by the configuration test of the app
      }
    }
  });

  const deployment = (app: string) => find(objects, 'Deployment', app);
  function containerOf(app: string): any {
    return deployment(app)?.spec.template.spec.containers.find((c: any) => c.name === app);
  }
  const plain = (env: Map<string, ResolvedVar>) => Object.fromEntries([...env].map(([k, v]) => [k, v.value]));
  const listen = (app: AppName) => {
    const l = listens.get(app);
    if (!l) throw new Error(`${app}: its configuration does not parse from the rendered environment`);
    return l;
  };

  it('puts every namespaced object in the overlay namespace and every reference on a rendered object', () => {
    expect(objects.length).toBeGreaterThan(0);
    const outside = objects
      .filter((o) => !CLUSTER_SCOPED.has(o.kind) && o.metadata.namespace !== NAMESPACES[overlay])
      .map((o) => `${o.kind}/${o.metadata.name}`);
    expect(outside).toEqual([]);
    expect(find(objects, 'Namespace', NAMESPACES[overlay])).toBeDefined();
    const broken = [...envs].flatMap(([app, r]) => r.problems.map((p) => `${app}: ${p}`));
    expect(broken).toEqual([]);
  });

  if (overlay === 'prod') {
    it('commits no Secret: gateway-secrets is created out of band from the documented keys', () => {
      expect(objects.filter((o) => o.kind === 'Secret').map((o) => o.metadata.name)).toEqual([]);
      const example = parseEnvFile(readFileSync(join(ROOT, 'deploy/overlays/prod/secrets.env.example'), 'utf8'));
      expect(Object.entries(example).filter(([, v]) => v !== '')).toEqual([]);
      const referenced = new Set(
        objects.flatMap((o) =>
          o.kind === 'Deployment'
            ? o.spec.template.spec.containers.flatMap((c: any) => (c.env ?? []).map((e: any) => e.valueFrom?.secretKeyRef?.key).filter(Boolean))
            : [],
        ),
      );
      expect([...referenced].sort()).toEqual(Object.keys(example).sort());
    });
  } else {
    it('generates its dev-only Secret with every key the workloads reference', () => {
      const secrets = objects.filter((o) => o.kind === 'Secret');
      expect(secrets.map((o) => o.metadata.name)).toEqual([expect.stringMatching(/^gateway-secrets/)]);
      // a key referenced but missing would have been reported as a broken reference above
      expect(Object.keys(secrets[0].data).length).toBeGreaterThanOrEqual(5);
    });
  }

  it.each(APPS)('%s: a Deployment and a Service on the ports its configuration listens on', (app) => {
    const d = deployment(app);
    expect(d).toBeDefined();
    const container = containerOf(app);
    expect(container).toBeDefined();
    const l = listen(app);
    expect(['0.0.0.0', '::']).toContain(l.host);
    const main = container.ports.find((p: any) => p.name === l.kind);
    const metrics = container.ports.find((p: any) => p.name === 'metrics');
    expect({ [l.kind]: main?.containerPort, metrics: metrics?.containerPort }).toEqual({ [l.kind]: l.port, metrics: l.metricsPort });

    const svc = find(objects, 'Service', app);
    expect(svc).toBeDefined();
    const podLabels = d!.spec.template.metadata.labels;
    for (const [k, v] of Object.entries(svc!.spec.selector as Record<string, string>)) expect([k, podLabels[k]]).toEqual([k, v]);
    for (const [k, v] of Object.entries(d!.spec.selector.matchLabels as Record<string, string>)) expect([k, podLabels[k]]).toEqual([k, v]);
    const targets = (svc!.spec.ports as any[]).map((p) => ({ name: p.name, port: p.port, target: portNumber(container, p.targetPort ?? p.port) }));
    expect(targets).toEqual(
      expect.arrayContaining([
        { name: l.kind, port: l.port, target: l.port },
        { name: 'metrics', port: l.metricsPort, target: l.metricsPort },
      ]),
    );
  });

  it.each(APPS)('%s: every variable its configuration reads comes from a ConfigMap or a Secret, and the configuration parses', (app) => {
    const readConfig = readConfigs.get(app)!;
    const { env } = envs.get(app) ?? { env: new Map<string, ResolvedVar>() };
    const wanted = variablesRead(readConfig);
    expect(wanted.length).toBeGreaterThan(3);
    const missing = wanted.filter((v) => !env.get(v)?.value);
    expect({ app, missing }).toEqual({ app, missing: [] });
    const notFromConfig = wanted.filter((v) => !['configmap', 'secret'].includes(env.get(v)!.source));
    expect({ app, notFromConfig }).toEqual({ app, notFromConfig: [] });
    const secretsInConfigMaps = wanted.filter((v) => isSensitive(v) && env.get(v)!.source !== 'secret');
    expect({ app, secretsInConfigMaps }).toEqual({ app, secretsInConfigMaps: [] });
    for (const v of requiredVariables(readConfig)) expect([v, env.get(v)?.value]).toEqual([v, expect.stringMatching(/./)]);
    expect(() => readConfig(plain(env))).not.toThrow();
  });

  it.each(APPS)('%s: startup, readiness and liveness probes on the port the app serves', (app) => {
    const container = containerOf(app);
    const l = listen(app);
    for (const probe of ['startupProbe', 'readinessProbe', 'livenessProbe']) {
      const p = container[probe];
      expect([probe, p]).toEqual([probe, expect.anything()]);
      if (l.kind === 'http') {
        expect([probe, portNumber(container, p.httpGet?.port)]).toEqual([probe, l.port]);
      } else {
        // native gRPC probes (grpc.health.v1) take a port number, never a name
        expect([probe, p.grpc?.port]).toEqual([probe, l.port]);
      }
    }
    if (l.kind === 'http') {
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    }
  });

  it.each(APPS)('%s: resource requests within limits, non-root, read-only root filesystem, no capabilities, writable /tmp', (app) => {
    const d = deployment(app)!;
    const pod = d.spec.template.spec;
    const container = containerOf(app);
    for (const r of ['cpu', 'memory']) {
      const req = container.resources?.requests?.[r];
      const lim = container.resources?.limits?.[r];
      expect([r, req !== undefined, lim !== undefined]).toEqual([r, true, true]);
      expect(quantity(req)).toBeLessThanOrEqual(quantity(lim));
    }
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true });
    expect(container.securityContext.capabilities.drop).toContain('ALL');
    expect(container.securityContext.capabilities.add ?? []).toEqual([]);
    const writable = (container.volumeMounts ?? []).filter((m: any) => pod.volumes.find((v: any) => v.name === m.name)?.emptyDir).map((m: any) => m.mountPath);
    expect(writable).toContain('/tmp');
    const dataDir = envs.get(app)!.env.get('DATA_DIR')?.value;
    if (variablesRead(readConfigs.get(app)!).includes('DATA_DIR'))
      expect(writable.some((w: string) => dataDir === w || dataDir?.startsWith(`${w}/`))).toBe(true);
  });

  it.each(APPS)(
    '%s: runs with its V8 settings (NODE_OPTIONS, V8_HEAP_GROWING_PERCENT and NODE_FLAGS of the service catalogue), its memory limit above their old-space cap',
    (app) => {
      const env = envs.get(app)!.env;
      const set = {
        NODE_OPTIONS: env.get('NODE_OPTIONS')?.value,
        V8_HEAP_GROWING_PERCENT: env.get('V8_HEAP_GROWING_PERCENT')?.value,
        NODE_FLAGS: env.get('NODE_FLAGS')?.value ?? '',
      };
      expect([app, set]).toEqual([app, v8EnvOf(app)]);
      // the old space is capped; the young generation is two semi-spaces; the rest of the process (code, buffers,
      // native memory) needs ~30 MB more
      const oldSpaceMb = Number(/--max-old-space-size=(\d+)/.exec(nodeOptionsOf(app))?.[1] ?? 0);
      const semiSpaceMb = Number(/--max-semi-space-size=(\d+)/.exec(nodeOptionsOf(app))?.[1] ?? 16);
      expect(oldSpaceMb).toBeGreaterThan(0);
      expect(quantity(containerOf(app).resources.limits.memory)).toBeGreaterThanOrEqual((oldSpaceMb + 2 * semiSpaceMb + 30) * 1024 * 1024);
    },
  );

  it.each(APPS)('%s: a PodDisruptionBudget, and Prometheus scrapes its metrics port', (app) => {
    const d = deployment(app)!;
    const pdb = objects.find(
      (o) => o.kind === 'PodDisruptionBudget' && Object.entries(o.spec.selector.matchLabels).every(([k, v]) => d.spec.template.metadata.labels[k] === v),
    );
    expect(pdb).toBeDefined();
    expect(pdb!.apiVersion).toBe('policy/v1');
    // a PDB that can never be satisfied blocks node drains
    if (pdb!.spec.minAvailable !== undefined) expect(pdb!.spec.minAvailable).toBeLessThan(d.spec.replicas ?? 1);
    const annotations = d.spec.template.metadata.annotations ?? {};
    expect(annotations).toMatchObject({
      'prometheus.io/scrape': 'true',
      'prometheus.io/port': String(listen(app).metricsPort),
      'prometheus.io/path': '/metrics',
    });
  });

  it("points every *_ADDR at a headless Service (dns:///, every pod IP) that routes to that app's gRPC port, and NATS_URL at the Helm release", () => {
    const checked: string[] = [];
    for (const app of APPS) {
      const { env } = envs.get(app)!;
      for (const v of variablesRead(readConfigs.get(app)!).filter((n) => n.endsWith('_ADDR'))) {
        // a ClusterIP would pin each caller's HTTP/2 connection to one pod: callers balance per call only
        // when the name resolves to the pods themselves
        const target = /^dns:\/\/\/([a-z0-9-]+):(\d+)$/.exec(env.get(v)!.value);
        expect([app, v, env.get(v)!.value, !!target]).toEqual([app, v, env.get(v)!.value, true]);
        const [, host, port] = target!;
        const svc = find(objects, 'Service', host);
        expect([app, v, svc?.metadata.name]).toEqual([app, v, host]);
        expect([app, v, svc!.spec.clusterIP]).toEqual([app, v, 'None']);
        const sp = (svc!.spec.ports as any[]).find((p) => p.port === Number(port));
        expect([app, v, sp?.port]).toEqual([app, v, Number(port)]);
        const backing = objects.find(
          (o) => o.kind === 'Deployment' && Object.entries(svc!.spec.selector).every(([k, val]) => o.spec.template.metadata.labels[k] === val),
        )!;
        const targetApp = backing.metadata.name as AppName;
        expect([app, v, portNumber(containerOf(targetApp), sp.targetPort)]).toEqual([app, v, listen(targetApp).port]);
        checked.push(`${app}:${v}`);
      }
      const nats = env.get('NATS_URL')?.value;
      if (nats) expect(nats).toBe('nats://nats:4222');
    }
    expect(checked).toEqual(expect.arrayContaining(['edge:TENANT_DIRECTORY_ADDR', 'edge:DISPATCHER_ADDR', 'messaging:TENANT_DIRECTORY_ADDR']));
  });

  it('scales the edge and the dispatcher with autoscaling/v2 HorizontalPodAutoscalers', () => {
    for (const app of ['edge', 'dispatcher']) {
      const hpa = objects.find((o) => o.kind === 'HorizontalPodAutoscaler' && o.spec.scaleTargetRef.name === app);
      expect([app, hpa?.apiVersion]).toEqual([app, 'autoscaling/v2']);
      expect(hpa!.spec.scaleTargetRef).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
      expect(hpa!.spec.minReplicas).toBeGreaterThanOrEqual(1);
      expect(hpa!.spec.maxReplicas).toBeGreaterThan(hpa!.spec.minReplicas);
      expect(hpa!.spec.metrics.length).toBeGreaterThan(0);
      // a replica count in the Deployment would reset the HPA's scale on every `kubectl apply`
      expect([app, find(objects, 'Deployment', app)!.spec.replicas]).toEqual([app, undefined]);
    }
  });

  it('has the edge believe X-Forwarded-For only from the pod networks the ingress controller runs in, never from a public address', () => {
    const edge = readConfigs.get('edge')!(plain(envs.get('edge')!.env)) as { trustedProxies: string[] };
    expect(edge.trustedProxies.length).toBeGreaterThan(0);
    expect(publicAddressesTrusted(edge.trustedProxies)).toEqual([]);
  });

  it("exposes the edge through an Ingress on the edge Service's HTTP port", () => {
    const ingress = objects.filter((o) => o.kind === 'Ingress');
    const edgeBackends = ingress
      .flatMap((i) => i.spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => ({ host: r.host, path: p.path, backend: p.backend.service }))))
      .filter((b) => b.backend.name === 'edge');
    expect(edgeBackends).toEqual([expect.objectContaining({ path: '/', backend: { name: 'edge', port: { name: 'http' } } })]);
    expect(find(objects, 'Service', 'edge')!.spec.ports.map((p: any) => p.name)).toContain('http');
    if (overlay === 'prod') expect(ingress[0].spec.tls?.[0]?.hosts).toContain(edgeBackends[0].host);
  });
});

describe('kustomizations stay within what the kustomize inside Debian kubectl 1.20 (v2.0.3) reads', () => {
  // whatever kubectl this machine has, the manifests must also render with the oldest one `npm test` installs
  const V2_FIELDS = new Set([
    'apiVersion',
    'kind',
    'namespace',
    'namePrefix',
    'nameSuffix',
    'commonLabels',
    'commonAnnotations',
    'resources',
    'bases',
    'configMapGenerator',
    'secretGenerator',
    'generatorOptions',
    'patchesStrategicMerge',
    'patchesJson6902',
    'images',
    'vars',
    'crds',
  ]);
  const GENERATOR_FIELDS = new Set(['name', 'behavior', 'literals', 'files', 'env', 'type']);

  it.each(['deploy/base', 'deploy/overlays/dev', 'deploy/overlays/prod'])('%s', (dir) => {
    const k = parse(readFileSync(join(ROOT, dir, 'kustomization.yaml'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(k).filter((f) => !V2_FIELDS.has(f))).toEqual([]);
    // v2.0.3 loads only files from `resources`; directories go in `bases`
    for (const r of (k.resources ?? []) as string[]) expect([r, statSync(join(ROOT, dir, r)).isFile()]).toEqual([r, true]);
    for (const b of (k.bases ?? []) as string[]) expect([b, statSync(join(ROOT, dir, b)).isDirectory()]).toEqual([b, true]);
    for (const g of [...((k.configMapGenerator ?? []) as object[]), ...((k.secretGenerator ?? []) as object[])])
      expect(Object.keys(g).filter((f) => !GENERATOR_FIELDS.has(f))).toEqual([]);
  });
});
