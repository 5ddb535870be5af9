import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { MAX_WEBHOOK_BODY_BYTES, STREAMS } from '@gateway/bus';
import { NATS, natsServerConf } from '@gateway/config';
import { kustomize } from './kustomize';

/* eslint-disable @typescript-eslint/no-explicit-any -- Helm values are arbitrary YAML */
const ROOT = resolve(__dirname, '../../..');
const values = (env: string) => parse(readFileSync(join(ROOT, `deploy/nats/values-${env}.yaml`), 'utf8')) as any;

describe('NATS JetStream from the official Helm chart (deploy/nats)', () => {
  it('production: a 3-server cluster, JetStream on file storage with a PVC each, a disruption budget', () => {
    const v = values('prod');
    expect(v.config.cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(v.config.jetstream).toMatchObject({ enabled: true, fileStore: { enabled: true, pvc: { enabled: true } } });
    expect(v.config.jetstream.fileStore.pvc.size).toMatch(/^\d+(Gi|Ti)$/);
    expect(v.podDisruptionBudget?.enabled).toBe(true);
  });

  it('development: one server, JetStream on file storage', () => {
    const v = values('dev');
    expect(v.config.cluster?.enabled ?? false).toBe(false);
    expect(v.config.jetstream).toMatchObject({ enabled: true, fileStore: { enabled: true, pvc: { enabled: true } } });
  });

  it.each(['dev', 'prod'])("%s: the servers' max_payload is the gateway's (provider webhooks of up to 3 MB), as compose's and npm start's", (env) => {
    expect(values(env).config.merge?.max_payload).toBe(NATS.maxPayload);
    // docker-compose.yml mounts this file; npm start, the tests and the bench write the same (natsServerConf)
    const conf = /^max_payload:\s*(\d+)\s*$/m.exec(readFileSync(join(ROOT, 'deploy/nats/gateway.conf'), 'utf8'));
    expect(Number(conf?.[1])).toBe(NATS.maxPayload);
    expect(natsServerConf()).toContain(`max_payload: ${NATS.maxPayload}\n`);
    // the largest message: a 3 MB provider body with its envelope, and no stream takes more than the servers do
    expect(MAX_WEBHOOK_BODY_BYTES).toBeGreaterThanOrEqual(3 * 1024 * 1024);
    for (const s of Object.values(STREAMS)) expect([s.name, s.max_msg_size <= NATS.maxPayload]).toEqual([s.name, true]);
  });

  it.each(['dev', 'prod'])('%s: the release name gives the Service NATS_URL points at, and the docs install that chart', (env) => {
    const v = values(env);
    // the shared ConfigMap (its name carries the content hash kustomize appends)
    const configMap = kustomize(join(ROOT, 'deploy/overlays', env)).find((o) => o.kind === 'ConfigMap' && /^gateway-config-[a-z0-9]+$/.test(o.metadata.name));
    expect(configMap?.data.NATS_URL).toBe(`nats://${v.fullnameOverride}:4222`);
    // streams get one replica per server of the cluster (JetStream refuses more replicas than servers)
    expect(configMap?.data.JETSTREAM_REPLICAS).toBe(String(v.config.cluster?.enabled ? v.config.cluster.replicas : 1));
    const text = readFileSync(join(ROOT, `deploy/nats/values-${env}.yaml`), 'utf8');
    expect(text).toContain('https://nats-io.github.io/k8s/helm/charts/');
    expect(text).toContain(`-f deploy/nats/values-${env}.yaml`);
    expect(readFileSync(join(ROOT, 'deploy/README.md'), 'utf8')).toContain(`deploy/nats/values-${env}.yaml`);
  });
});
