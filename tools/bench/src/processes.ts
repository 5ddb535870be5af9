import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { connect } from 'node:net';

/** A child process of the bench, with its peak resident memory read from /proc. */
export class Proc {
  private peakKb = 0;
  /** Set once the bench asked it to stop: its exit code is then expected. */
  stopping = false;
  private readonly timer: NodeJS.Timeout;
  readonly exited: Promise<number | null>;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    this.exited = new Promise((r) => child.once('exit', (code) => r(code)));
    this.timer = setInterval(() => this.sample(), 250);
    this.timer.unref();
  }

  /** VmHWM is the kernel's own high-water mark of RSS: exact, whatever the sampling interval. */
  sample(): void {
    try {
      const status = readFileSync(`/proc/${this.child.pid}/status`, 'utf8');
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      if (hwm) this.peakKb = Math.max(this.peakKb, Number(hwm[1]));
    } catch {
      /* exited */
    }
  }

  /** CPU time (user + system) the process has used so far, in seconds; its last value once it has exited. */
  cpuSeconds(): number {
    const t = cpuSecondsOf(this.child.pid);
    if (t !== undefined) this.lastCpu = t;
    return this.lastCpu;
  }
  private lastCpu = 0;

  get peakRssMb(): number {
    this.sample();
    return this.peakKb / 1024;
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
    this.sample();
    clearInterval(this.timer);
    this.stopping = true;
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.kill(signal);
    const t = setTimeout(() => this.child.kill('SIGKILL'), 15_000);
    await this.exited;
    clearTimeout(t);
  }
}

export function start(
  name: string,
  cmd: string,
  args: string[],
  env: Record<string, string | undefined>,
  opts: { cwd?: string; verbose?: boolean } = {},
): Proc {
  const child = spawn(cmd, args, { cwd: opts.cwd, env: env as NodeJS.ProcessEnv, stdio: ['ignore', opts.verbose ? 'inherit' : 'ignore', 'pipe'] });
  let tail = '';
  child.stderr?.on('data', (d) => {
    tail = (tail + d).slice(-4000);
  });
  const proc = new Proc(name, child);
  child.once('exit', (code, signal) => {
    if (code && code !== 0 && !proc.stopping) process.stderr.write(`[bench] ${name} exited ${code ?? signal}\n${tail}\n`);
  });
  return proc;
}

/** `start`, then `waitPort`: a process that does not listen in time is stopped, not left running beside the next run. */
export async function startListening(name: string, cmd: string, args: string[], env: Record<string, string | undefined>, port: number): Promise<Proc> {
  const proc = start(name, cmd, args, env);
  try {
    await waitPort(port, name);
  } catch (e) {
    await proc.stop();
    throw e;
  }
  return proc;
}

export async function waitPort(port: number, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((r) => {
      const s = connect(port, '127.0.0.1');
      s.once('connect', () => {
        s.destroy();
        r(true);
      });
      s.once('error', () => r(false));
    });
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not listen on ${port}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

/** utime + stime of a process from /proc/<pid>/stat, in seconds; undefined when it is gone. */
export function cpuSecondsOf(pid: number | undefined): number | undefined {
  if (!pid) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command may hold spaces and parentheses: fields are counted after its closing one
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Pids whose command line contains the text (e.g. PostgreSQL backends serving one database). */
export function pidsMatching(text: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      if (readFileSync(`/proc/${d}/cmdline`, 'utf8').includes(text)) pids.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return pids;
}
