export interface Row {
  measure: string;
  value: string;
  ceiling: string;
  ratio: string;
  goal: string;
  met: boolean | null;
}

export function table(rows: Row[]): string {
  const head = '| Measure | Gateway | Ceiling | Ratio | Goal | Met |\n|---|---|---|---|---|---|';
  const lines = rows.map((r) => `| ${r.measure} | ${r.value} | ${r.ceiling} | ${r.ratio} | ${r.goal} | ${r.met === null ? '—' : r.met ? 'yes' : 'no'} |`);
  return [head, ...lines].join('\n');
}

export const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
export const pct = (a: number, b: number) => (b > 0 ? `${fmt((100 * a) / b, 0)} %` : 'n/a');
