import { execFileSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

/* eslint-disable @typescript-eslint/no-explicit-any -- rendered manifests are arbitrary YAML */
export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [k: string]: any;
};

/** `kubectl` from PATH (npm test installs Debian's when missing), or $KUBECTL. */
export function kubectlBinary(): string {
  return process.env.KUBECTL || 'kubectl';
}

/** Renders a kustomization with `kubectl kustomize <dir>` and parses every document. */
export function kustomize(dir: string): K8sObject[] {
  let out: string;
  try {
    out = execFileSync(kubectlBinary(), ['kustomize', dir], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 32 * 1024 * 1024 });
  } catch (e) {
    const err = e as NodeJS.ErrnoException & { stderr?: string };
    if (err.code === 'ENOENT') throw new Error(`${kubectlBinary()} not found: npm test installs it (scripts/lib.sh ensure_kubectl), or set KUBECTL`);
    throw new Error(`kubectl kustomize ${dir} failed: ${err.stderr ?? err.message}`);
  }
  return parseAllDocuments(out)
    .map((d) => {
      if (d.errors.length) throw new Error(`unparsable output of kubectl kustomize ${dir}: ${d.errors[0].message}`);
      return d.toJS() as K8sObject | null;
    })
    .filter((o): o is K8sObject => !!o);
}

export function find(objects: K8sObject[], kind: string, name: string): K8sObject | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name);
}

export type EnvSource = 'configmap' | 'secret' | 'literal' | 'field';
export interface ResolvedVar {
  value: string;
  source: EnvSource;
  /** ConfigMap or Secret name and key. */
  from?: string;
}

/**
 * The environment a container gets: envFrom ConfigMaps/Secrets, then env entries (which win). Every reference
 * must resolve to an object of the render, except Secrets in `external` (created out of band), whose keys
 * must be in `externalKeys` and get a placeholder value.
 */
export function containerEnv(
  objects: K8sObject[],
  container: any,
  opts: { externalSecrets?: Map<string, Set<string>> } = {},
): { env: Map<string, ResolvedVar>; problems: string[] } {
  const env = new Map<string, ResolvedVar>();
  const problems: string[] = [];
  const dataOf = (kind: 'ConfigMap' | 'Secret', name: string): Record<string, string> | undefined => {
    const o = find(objects, kind, name);
    if (!o) return undefined;
    if (kind === 'ConfigMap') return { ...(o.data ?? {}) };
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries((o.data ?? {}) as Record<string, string>))
      out[k] = Buffer.from(String(v).replace(/\s+/g, ''), 'base64').toString('utf8');
    for (const [k, v] of Object.entries((o.stringData ?? {}) as Record<string, string>)) out[k] = String(v);
    return out;
  };
  const secretValue = (name: string, key: string, where: string): string | undefined => {
    const data = dataOf('Secret', name);
    if (data) {
      if (!(key in data)) problems.push(`${where}: Secret ${name} has no key ${key}`);
      return data[key];
    }
    const external = opts.externalSecrets?.get(name);
    if (!external) {
      problems.push(`${where}: Secret ${name} is neither rendered nor documented as created out of band`);
      return undefined;
    }
    if (!external.has(key)) problems.push(`${where}: key ${key} of the out-of-band Secret ${name} is not documented`);
    return `<secret ${name}/${key}>`;
  };

  for (const from of container.envFrom ?? []) {
    if (from.configMapRef) {
      const data = dataOf('ConfigMap', from.configMapRef.name);
      if (!data) problems.push(`envFrom: ConfigMap ${from.configMapRef.name} is not rendered`);
      for (const [k, v] of Object.entries(data ?? {})) env.set(k, { value: String(v), source: 'configmap', from: `${from.configMapRef.name}/${k}` });
    } else if (from.secretRef) {
      const data = dataOf('Secret', from.secretRef.name);
      if (!data) problems.push(`envFrom: Secret ${from.secretRef.name} is not rendered`);
      for (const [k, v] of Object.entries(data ?? {})) env.set(k, { value: v, source: 'secret', from: `${from.secretRef.name}/${k}` });
    }
  }
  for (const e of container.env ?? []) {
    const where = `env ${e.name}`;
    if (e.valueFrom?.configMapKeyRef) {
      const { name, key } = e.valueFrom.configMapKeyRef;
      const data = dataOf('ConfigMap', name);
      if (!data) problems.push(`${where}: ConfigMap ${name} is not rendered`);
      else if (!(key in data)) problems.push(`${where}: ConfigMap ${name} has no key ${key}`);
      env.set(e.name, { value: String(data?.[key] ?? ''), source: 'configmap', from: `${name}/${key}` });
    } else if (e.valueFrom?.secretKeyRef) {
      const { name, key } = e.valueFrom.secretKeyRef;
      env.set(e.name, { value: secretValue(name, key, where) ?? '', source: 'secret', from: `${name}/${key}` });
    } else if (e.valueFrom) {
      env.set(e.name, { value: '', source: 'field' });
    } else {
      env.set(e.name, { value: String(e.value ?? ''), source: 'literal' });
    }
  }
  return { env, problems };
}

/** Kubernetes quantity → number (cores or bytes). */
export function quantity(q: string | number): number {
  if (typeof q === 'number') return q;
  const m = /^([0-9.]+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.exec(q);
  if (!m) throw new Error(`not a quantity: ${q}`);
  const factor: Record<string, number> = { '': 1, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4 };
  return Number(m[1]) * factor[m[2] ?? ''];
}

/** A container port given by number or by name. */
export function portNumber(container: any, port: number | string): number | undefined {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  return (container.ports ?? []).find((p: any) => p.name === port)?.containerPort;
}
