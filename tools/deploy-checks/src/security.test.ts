import { join, resolve } from 'node:path';
import { EDGE, GRPC_SERVICES as CATALOGUE } from '@gateway/config';
import { APPS, loadReadConfig, variablesRead, type AppName } from './app-configs';
import { find, kustomize, type K8sObject } from './kustomize';

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are arbitrary YAML */
const ROOT = resolve(__dirname, '../../..');
const MONITORING = { kubernetes: { 'kubernetes.io/metadata.name': 'monitoring' } };

/**
 * Kubernetes hardening (issue 28), on both rendered overlays: every app runs under its own ServiceAccount with
 * no token mounted, non-root on a read-only root filesystem with no privilege escalation and every capability
 * dropped; ingress is denied by default, each gRPC port admits exactly the apps whose configuration names its
 * address, NATS's client port the apps reading NATS_URL, and every metrics port only the monitoring namespace.
 */
describe.each(['dev', 'prod'] as const)('hardening of deploy/overlays/%s', (overlay) => {
  let objects: K8sObject[];
  const reads = new Map<AppName, Set<string>>();

  beforeAll(async () => {
    objects = kustomize(join(ROOT, 'deploy/overlays', overlay));
    for (const app of APPS) reads.set(app, new Set(variablesRead(await loadReadConfig(app))));
  });

  const podOf = (app: string) => find(objects, 'Deployment', app)!.spec.template.spec;
  const policies = () => objects.filter((o) => o.kind === 'NetworkPolicy');
  const policyFor = (app: string) => policies().filter((p: any) => p.spec.podSelector?.matchLabels?.['app.kubernetes.io/name'] === app);
  /** The app names a policy's rule admits on `port`, or `*` for anyone; a namespace selector by its labels. */
  function admitted(app: string, port: number): string[] {
    const out: string[] = [];
    for (const p of policyFor(app) as any[]) {
      for (const rule of p.spec.ingress ?? []) {
        if (!(rule.ports ?? []).some((x: any) => x.port === port)) continue;
        if (!rule.from) out.push('*');
        for (const f of rule.from ?? []) {
          if (f.podSelector && !f.namespaceSelector) out.push(f.podSelector.matchLabels?.['app.kubernetes.io/name'] ?? '?pods');
          else if (f.namespaceSelector) out.push(`namespace:${JSON.stringify(f.namespaceSelector.matchLabels ?? {})}`);
          else out.push('?');
        }
      }
    }
    return [...new Set(out)].sort();
  }
  const readers = (variable: string) => APPS.filter((a) => reads.get(a)!.has(variable)).sort();

  it.each(APPS)('%s: its own ServiceAccount, no token mounted', (app) => {
    const pod = podOf(app);
    expect(pod.serviceAccountName).toBe(app);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(find(objects, 'ServiceAccount', app)).toMatchObject({ automountServiceAccountToken: false });
  });

  it.each(APPS)('%s: non-root, read-only root filesystem, no privilege escalation, every capability dropped', (app) => {
    const pod = podOf(app);
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
      expect(c.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, privileged: false });
      expect(c.securityContext.capabilities.drop).toContain('ALL');
      expect(c.securityContext.capabilities.add ?? []).toEqual([]);
    }
  });

  it('denies all ingress by default: every pod of the namespace is selected by the empty-selector policy', () => {
    const deny = policies().find((p: any) => p.spec.podSelector && Object.keys(p.spec.podSelector).length === 0) as any;
    expect(deny).toBeDefined();
    expect(deny.spec.policyTypes).toEqual(['Ingress']);
    expect(deny.spec.ingress ?? []).toEqual([]);
  });

  it.each(CATALOGUE.map((s) => [s.name, s] as const))('%s: its gRPC port admits exactly the apps whose configuration names its address', (name, s) => {
    expect(admitted(name, s.grpcPort)).toEqual(readers(s.addrVar));
    expect(readers(s.addrVar)).toContain(EDGE.name);
  });

  it('the edge admits anyone on its HTTP port (the ingress controller)', () => {
    expect(admitted(EDGE.name, EDGE.port)).toEqual(['*']);
  });

  it.each([...APPS])('%s: its metrics port admits only the monitoring namespace', (app) => {
    const port = app === EDGE.name ? EDGE.metricsPort : CATALOGUE.find((s) => s.name === app)!.metricsPort;
    expect(admitted(app, port)).toEqual([`namespace:${JSON.stringify(MONITORING.kubernetes)}`]);
  });

  it('NATS admits on its client port exactly the apps reading NATS_URL, routes between its servers, monitoring on its monitor and exporter', () => {
    expect(admitted('nats', 4222)).toEqual(readers('NATS_URL'));
    expect(admitted('nats', 6222)).toEqual(['nats']);
    expect(admitted('nats', 8222)).toEqual([`namespace:${JSON.stringify(MONITORING.kubernetes)}`]);
  });

  if (overlay === 'dev') {
    it('the in-cluster PostgreSQL admits exactly the apps reading DATABASE_URL', () => {
      expect(admitted('postgres', 5432)).toEqual(readers('DATABASE_URL'));
    });
  }

  it('no policy admits a port the selected pods do not serve, nor anyone from everywhere but the edge and the dev simulator', () => {
    const open = (policies() as any[]).flatMap((p) =>
      (p.spec.ingress ?? []).filter((r: any) => !r.from).map(() => p.spec.podSelector.matchLabels?.['app.kubernetes.io/name'] as string),
    );
    expect(open.sort()).toEqual(overlay === 'dev' ? [EDGE.name, 'provider-sim'].sort() : [EDGE.name]);
  });
});
