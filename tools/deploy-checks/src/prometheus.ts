/** One sample line of the Prometheus text exposition format (version 0.0.4). */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricFamily {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  help: string;
  samples: MetricSample[];
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const TYPES = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const m = /^\s*([a-zA-Z_][a-zA-Z0-9_]*)="/.exec(text.slice(i));
    if (!m) throw new Error(`line ${line}: bad label set {${text}}`);
    i += m[0].length;
    let value = '';
    for (;;) {
      const c = text[i++];
      if (c === undefined) throw new Error(`line ${line}: unterminated label value`);
      if (c === '"') break;
      if (c === '\\') {
        const n = text[i++];
        if (n === 'n') value += '\n';
        else if (n === '\\' || n === '"') value += n;
        else throw new Error(`line ${line}: bad escape \\${n}`);
      } else value += c;
    }
    if (m[1] in labels) throw new Error(`line ${line}: label ${m[1]} repeated`);
    labels[m[1]] = value;
    const rest = text.slice(i);
    const sep = /^\s*,?\s*/.exec(rest)![0];
    i += sep.length;
  }
  return labels;
}

/** A sample value as Prometheus reads it (Go's ParseFloat: NaN and Inf in any case). */
function parseValue(v: string): number | undefined {
  if (/^nan$/i.test(v)) return NaN;
  const inf = /^([+-]?)inf(inity)?$/i.exec(v);
  if (inf) return inf[1] === '-' ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(v)) return undefined;
  return Number(v);
}

/** Strict parser: every line is a HELP, a TYPE, a comment or a sample of a declared family; throws otherwise. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const familyOf = (sample: string): MetricFamily | undefined => {
    if (families.has(sample)) return families.get(sample);
    for (const suffix of ['_bucket', '_sum', '_count', '_total', '_created']) {
      if (sample.endsWith(suffix)) {
        const f = families.get(sample.slice(0, -suffix.length));
        if (f) return f;
      }
    }
    return undefined;
  };
  text.split('\n').forEach((raw, idx) => {
    const line = idx + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const m = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (!m) return; // a plain comment
      if (!NAME.test(m[2])) throw new Error(`line ${line}: bad metric name ${m[2]}`);
      const f = families.get(m[2]) ?? { name: m[2], type: 'untyped' as const, help: '', samples: [] };
      if (m[1] === 'TYPE') {
        if (!TYPES.has(m[3])) throw new Error(`line ${line}: bad type ${m[3]}`);
        if (f.samples.length) throw new Error(`line ${line}: TYPE of ${m[2]} after its samples`);
        f.type = m[3] as MetricFamily['type'];
      } else f.help = m[3];
      families.set(m[2], f);
      return;
    }
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+(-?\d+))?$/.exec(raw);
    if (!m) throw new Error(`line ${line}: not a sample: ${raw}`);
    const value = parseValue(m[3]);
    if (value === undefined) throw new Error(`line ${line}: bad value ${m[3]}`);
    const f = familyOf(m[1]);
    if (!f) throw new Error(`line ${line}: sample ${m[1]} of no declared family`);
    f.samples.push({ name: m[1], labels: m[2] ? parseLabels(m[2], line) : {}, value });
  });
  return families;
}
