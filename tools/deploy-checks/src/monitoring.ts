import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { Metrics } from '@gateway/runtime';
import { parsePrometheusText, type MetricFamily } from './prometheus';

/** One PromQL expression of a monitoring file, and where it is (for messages). */
export interface MonitoringQuery {
  where: string;
  expr: string;
}

const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
  'and',
  'or',
  'unless',
  'atan2',
  'inf',
  'nan',
  'start',
  'end',
]);

/**
 * The metric (sample) names a PromQL expression selects: identifiers that are not functions, aggregations,
 * keywords, label names (inside `{}` or grouping clauses), strings, durations or numbers.
 */
export function promqlMetricNames(expr: string): string[] {
  const names = new Set<string>();
  // a selector by name: {__name__="x"}
  for (const m of expr.matchAll(/__name__\s*=\s*"([^"]+)"/g)) names.add(m[1]);
  const s = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ') // strings
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\[[^\]]*\]/g, ' ') // ranges and subqueries
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // grouping labels
    .replace(/\boffset\s+-?[0-9a-z$_]+/gi, ' ');
  const token = /(\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?/g;
  for (let m = token.exec(s); m; m = token.exec(s)) {
    if (m[1] || m[3] || KEYWORDS.has(m[2].toLowerCase())) continue; // a number, a function call, a keyword
    names.add(m[2]);
  }
  return [...names];
}

/** The expressions of a Prometheus rule file: every rule's `expr`. */
export function ruleFileQueries(file: string): MonitoringQuery[] {
  const doc = parse(readFileSync(file, 'utf8')) as { groups?: { name: string; rules?: { alert?: string; record?: string; expr?: unknown }[] }[] };
  if (!Array.isArray(doc?.groups)) throw new Error(`${file}: no rule groups`);
  return doc.groups.flatMap((g) =>
    (g.rules ?? []).map((r) => {
      if (typeof r.expr !== 'string' || !r.expr.trim()) throw new Error(`${file}: rule ${r.alert ?? r.record} of ${g.name} has no expr`);
      return { where: `${file}: ${g.name}/${r.alert ?? r.record}`, expr: r.expr };
    }),
  );
}

interface Panel {
  title?: string;
  targets?: { expr?: string; refId?: string }[];
  panels?: Panel[];
}

/** The expressions of a Grafana dashboard: every panel's targets (rows' panels included) and query variables. */
export function dashboardQueries(file: string): MonitoringQuery[] {
  const d = JSON.parse(readFileSync(file, 'utf8')) as { panels?: Panel[]; templating?: { list?: { name: string; type: string; query?: unknown }[] } };
  const out: MonitoringQuery[] = [];
  const walk = (panels: Panel[] = []) => {
    for (const p of panels) {
      for (const t of p.targets ?? []) if (t.expr) out.push({ where: `${file}: panel "${p.title}" ${t.refId ?? ''}`.trim(), expr: t.expr });
      walk(p.panels);
    }
  };
  walk(d.panels);
  for (const v of d.templating?.list ?? []) {
    if (v.type !== 'query') continue;
    const q = typeof v.query === 'string' ? v.query : ((v.query as { query?: string } | undefined)?.query ?? '');
    // label_values(<selector>, <label>) / query_result(<expr>): the selector or expression is PromQL
    const m = /^\s*(?:label_values|query_result)\((.*?)(?:,\s*[a-zA-Z_][a-zA-Z0-9_]*)?\)\s*$/.exec(q);
    out.push({ where: `${file}: variable ${v.name}`, expr: m ? m[1] : q });
  }
  return out;
}

/** The files of deploy/monitoring with their queries. */
export function monitoringQueries(dir: string): MonitoringQuery[] {
  return [...ruleFileQueries(join(dir, 'alerts.yml')), ...dashboardQueries(join(dir, 'grafana-dashboard.json'))];
}

/** Every sample name the given families expose (histograms as _bucket/_sum/_count, summaries as quantiles + _sum/_count). */
export function sampleNames(families: Iterable<MetricFamily>): Set<string> {
  const names = new Set<string>();
  for (const f of families) {
    if (f.type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(f.name + s);
    else if (f.type === 'summary') for (const s of ['', '_sum', '_count']) names.add(f.name + s);
    else names.add(f.name);
  }
  return names;
}

/** The metric names the queries use that no service exports. */
export function unknownMetrics(queries: MonitoringQuery[], exported: Set<string>): { where: string; metric: string }[] {
  return queries.flatMap((q) =>
    promqlMetricNames(q.expr)
      .filter((n) => !exported.has(n))
      .map((metric) => ({ where: q.where, metric })),
  );
}

/**
 * The families the shared Metrics class of @gateway/runtime defines, each observer called once (they create their
 * families on first use: a service that never dead-lettered a message shows no jetstream_dead_letters_total yet).
 */
export async function sharedMetricFamilies(): Promise<MetricFamily[]> {
  const m = new Metrics('check');
  m.providerCall({ operation: 'POST /{id}/messages', outcome: 'ok', errorCode: '', durationMs: 1 });
  m.consumerLag('S', 'c', { pending: 0, ackPending: 0 });
  m.deadLettered('S', 'c');
  m.grpcObserver('/x.v1.X/Y', 0, 1);
  return [...parsePrometheusText(await m.registry.metrics()).values()];
}
