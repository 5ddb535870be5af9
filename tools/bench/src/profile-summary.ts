/**
 * Where a process spent its time, from a V8 CPU profile (`BENCH_PROFILE=...` writes them under .bench/profiles):
 *   node dist/bench/profile-summary.js <file.cpuprofile> [top]
 * Prints self time by category (idle, GC, program/native, each npm package, our code by project) and the top
 * functions by self time.
 */
import { readFileSync } from 'node:fs';

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

export function categoryOf(fn: string, url: string): string {
  if (fn === '(idle)') return '(idle)';
  if (fn === '(garbage collector)') return '(GC)';
  if (fn === '(program)' || fn === '(root)') return '(program: native, I/O, compile)';
  if (!url) return `(native) ${fn}`;
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return `node:${url.slice(5).split('/')[0]}`;
  return 'ours (bundle)';
}

function main() {
  const [file, topArg] = process.argv.slice(2);
  const p = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  let total = 0;
  p.samples.forEach((id, i) => {
    const dt = p.timeDeltas[i] ?? 0;
    self.set(id, (self.get(id) ?? 0) + dt);
    total += dt;
  });
  const cats = new Map<string, number>();
  const fns = new Map<string, number>();
  for (const [id, t] of self) {
    const n = byId.get(id)!;
    const { functionName, url, lineNumber } = n.callFrame;
    const c = categoryOf(functionName, url);
    cats.set(c, (cats.get(c) ?? 0) + t);
    const key = `${functionName || '(anonymous)'} ${url.replace(/.*node_modules\//, '').replace(/.*\/dist\//, 'dist/')}:${lineNumber + 1}`;
    fns.set(key, (fns.get(key) ?? 0) + t);
  }
  // shares of the busy time: the process's idle time (waiting on I/O) is reported apart
  const idle = cats.get('(idle)') ?? 0;
  const busy = total - idle;
  cats.delete('(idle)');
  fns.delete('(idle) :0');
  const pct = (t: number) => `${((100 * t) / busy).toFixed(1).padStart(5)} %`;
  console.log(
    `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy (${((100 * busy) / total).toFixed(0)} %); shares of the busy time:`,
  );
  for (const [c, t] of [...cats].sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(`${pct(t)}  ${c}`);
  console.log('top functions (self):');
  for (const [f, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg ?? 15))) console.log(`${pct(t)}  ${f}`);
}

main();
