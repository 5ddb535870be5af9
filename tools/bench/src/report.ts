/** One row of the report: a cell per column, in the order of the table's columns. */
export type Row = string[];

export function table(columns: string[], rows: Row[]): string {
  const head = `| ${columns.join(' | ')} |\n|${columns.map(() => '---').join('|')}|`;
  const lines = rows.map((r) => `| ${columns.map((_, i) => r[i] ?? '').join(' | ')} |`);
  return [head, ...lines].join('\n');
}

export const met = (ok: boolean | null) => (ok === null ? '—' : ok ? 'yes' : 'no');
export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
/** The `q` quantile of ascending values (the value under which that share of them lies). */
export const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
export const pct = (a: number, b: number) => (b > 0 ? `${fmt((100 * a) / b, 0)} %` : 'n/a');
