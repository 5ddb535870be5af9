import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { health } from '@gateway/contracts';
import { createServiceClient } from '@gateway/rpc';
import { waitFor } from '@gateway/testing';
import { sumSamples } from './prometheus';

export type Env = Record<string, string | undefined>;

/** What a replica counts, read from its Prometheus metrics: name → [family, label filter]. */
export type CounterSpec = Record<string, { family: string; labels?: Record<string, RegExp> }>;

/**
 * One replica of an app as its own OS process (its real main.ts, bundled), on a fixed address so a restart
 * comes back where the callers look for it. Its counters are summed over its incarnations: each process's last
 * scrape (taken right before a planned kill) is kept when it dies.
 */
export class Replica {
  private child?: ChildProcess;
  private exited?: Promise<void>;
  private readonly output: string[] = [];
  private readonly previous: Record<string, number> = {};
  private current: Record<string, number> = {};
  /** CPU seconds of the earlier incarnations, and of this one at its last reading. */
  private cpu = { previous: 0, current: 0 };

  constructor(
    readonly name: string,
    readonly kind: 'grpc' | 'http',
    private readonly bundle: string,
    private readonly env: Env,
    readonly host: string,
    readonly port: number,
    readonly metricsPort: number,
    private readonly counters: CounterSpec,
    /** An HTTP replica's readiness path (the edge's; the simulator answers `/_sim/health`). */
    private readonly readyPath = '/readyz',
  ) {}

  get address(): string {
    return `${this.host}:${this.port}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts the process and resolves once it serves: gRPC health SERVING, or its readiness path answering 200. */
  async start(timeoutMs = 90_000): Promise<void> {
    const portVars = this.kind === 'grpc' ? { GRPC_HOST: this.host, GRPC_PORT: String(this.port) } : { HOST: this.host, PORT: String(this.port) };
    const child = spawn(process.execPath, [this.bundle], {
      env: { PATH: process.env.PATH, ...this.env, ...portVars, METRICS_PORT: String(this.metricsPort) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    this.exited = new Promise((r) => child.once('exit', () => r()));
    const keep = (d: Buffer) => {
      this.output.push(...d.toString('utf8').split('\n').filter(Boolean));
      if (this.output.length > 200) this.output.splice(0, this.output.length - 200);
    };
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    this.current = {};
    const probe = this.kind === 'grpc' ? createServiceClient(health.Health, this.address, { defaultDeadlineMs: 1000 }) : undefined;
    // a process that exits while starting fails the start at once, with its last lines
    const died = this.exited.then(() => {
      throw new Error(`${this.name} exited with ${child.exitCode ?? child.signalCode} while starting: ${this.output.slice(-5).join('\n')}`);
    });
    died.catch(() => undefined);
    try {
      const serving = async () => {
        if (probe) return (await probe.check({ service: '' })).status === health.HealthCheckResponse_ServingStatus.SERVING;
        const res = await fetch(`http://${this.address}${this.readyPath}`, { signal: AbortSignal.timeout(2000) });
        return res.status === 200;
      };
      await Promise.race([died, waitFor(serving, { timeoutMs, intervalMs: 200, what: `${this.name} serving` })]);
    } finally {
      probe?.close();
    }
  }

  running(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGKILL: no shutdown, in-flight work abandoned. The last scrape is kept in the totals. Answers when the signal went. */
  async kill(): Promise<number> {
    await this.scrape();
    this.retire();
    const at = Date.now();
    this.child?.kill('SIGKILL');
    await this.exited;
    return at;
  }

  /** SIGTERM and wait for the graceful shutdown (end of the run). */
  async stop(): Promise<void> {
    if (!this.running()) return;
    await this.scrape();
    this.retire();
    const t = setTimeout(() => this.child?.kill('SIGKILL'), 20_000);
    this.child!.kill('SIGTERM');
    await this.exited;
    clearTimeout(t);
  }

  /** Reads this incarnation's counters; a process that does not answer keeps its last reading. */
  async scrape(): Promise<void> {
    if (!this.running()) return;
    this.cpu.current = processCpuSeconds(this.child!.pid!) ?? this.cpu.current;
    if (!Object.keys(this.counters).length) return;
    try {
      const res = await fetch(`http://127.0.0.1:${this.metricsPort}/metrics`, { signal: AbortSignal.timeout(2000) });
      const text = await res.text();
      const next: Record<string, number> = {};
      for (const [key, spec] of Object.entries(this.counters)) next[key] = sumSamples(text, spec.family, spec.labels);
      this.current = next;
    } catch {
      // killed or busy: the last reading stands
    }
  }

  totals(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const key of Object.keys(this.counters)) out[key] = (this.previous[key] ?? 0) + (this.current[key] ?? 0);
    return out;
  }

  /** CPU time (user + system) of every incarnation, as of the last scrape. */
  cpuSeconds(): number {
    return this.cpu.previous + this.cpu.current;
  }

  lastOutput(lines = 10): string[] {
    return this.output.slice(-lines);
  }

  private retire(): void {
    for (const [k, v] of Object.entries(this.current)) this.previous[k] = (this.previous[k] ?? 0) + v;
    this.current = {};
    this.cpu = { previous: this.cpu.previous + this.cpu.current, current: 0 };
  }
}

/** User + system CPU seconds of a process, from /proc (Linux; undefined elsewhere or once it is gone). */
export function processCpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the fields after the command name (in parentheses, which may hold spaces): utime and stime are the 14th and 15th
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}
