/** Sum of the samples of one counter family in Prometheus text, optionally only those whose labels match. */
export function sumSamples(text: string, family: string, labels: Record<string, RegExp> = {}): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${family}{`) && !line.startsWith(`${family} `)) continue;
    const m = /^[^{\s]+(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const found = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, re]) => re.test(found[k] ?? ''))) sum += Number(m[2]);
  }
  return sum;
}
