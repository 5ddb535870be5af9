import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Readable } from 'node:stream';
import { request, WebSocket } from 'undici';
import { bundleApp, startStack, type Stack } from '@gateway/test-stack';
import { freePort, SimControl, waitFor } from '@gateway/testing';
import { mp4Head, multipart, png, upload } from '../testing/media-files';

/** Resident set size of a process, in bytes (Linux /proc). */
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

const MB = 1024 * 1024;
const VIDEO = 20 * MB;

/**
 * An MP4 head (`ftyp` isom) and zeros up to `size`, produced as it is sent: the test holds 64 KiB at a time, and
 * pauses a little every MiB so the edge is sampled many times while the bytes flow.
 */
async function* video(size: number): AsyncIterable<Buffer> {
  const ftyp = mp4Head();
  yield ftyp;
  const chunk = Buffer.alloc(64 * 1024);
  for (let sent = ftyp.length; sent < size; sent += chunk.length) {
    yield chunk.subarray(0, Math.min(chunk.length, size - sent));
    if (sent % MB < chunk.length) await new Promise((r) => setTimeout(r, 100));
  }
}

/** The V8 inspector of a process: collects its garbage and reads its memory between samples. */
class Inspector {
  private seq = 0;
  private readonly pending = new Map<number, (v: unknown) => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.addEventListener('message', (e) => {
      const msg = JSON.parse(String(e.data)) as { id?: number; result?: unknown };
      if (msg.id !== undefined) this.pending.get(msg.id)?.(msg.result);
    });
  }

  static async connect(port: number): Promise<Inspector> {
    const [target] = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
    const ws = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise((ok, fail) => {
      ws.addEventListener('open', ok);
      ws.addEventListener('error', fail);
    });
    return new Inspector(ws);
  }

  call(method: string, params: Record<string, unknown> = {}): Promise<unknown> {
    const id = ++this.seq;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Bytes the process really holds: its JS heap and Buffers still referenced, after a full collection. */
  async liveBytes(): Promise<number> {
    await this.call('HeapProfiler.collectGarbage');
    const r = (await this.call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true })) as {
      result: { value: string };
    };
    const m = JSON.parse(r.result.value) as { heapUsed: number; arrayBuffers: number };
    return m.heapUsed + m.arrayBuffers;
  }

  close(): void {
    this.ws.close();
  }
}

/**
 * The edge runs as its own OS process (its real main.ts, bundled) so its memory is its own: a 20 MB video sent
 * to it is refused as too large for its type while what the edge holds stays far below the file's size. What it
 * holds is read through the V8 inspector after a full garbage collection, sampled while the bytes flow: the RSS
 * alone also counts Buffers already let go but not yet collected (V8 collects those only after up to 64 MB
 * of them), so it is reported, and bounded by the file size only loosely.
 */
describe('media uploads are streamed, never held whole (the edge as its own process)', () => {
  let stack: Stack;
  let edge: ChildProcess;
  let edgeUrl: string;
  let key: string;
  let clientId: string;
  let sim: SimControl;
  let inspector: Inspector;
  const output: string[] = [];

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'edge'] });
    sim = new SimControl(stack.sim!.url);
    const t = await stack.createTenant({ name: 'Memory' });
    key = t.apiKey;
    const phone = await sim.phoneNumber();
    const c = await t.api.post('/api/clients/', {
      display_name: 'Shop',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    clientId = (c.json as { id: string }).id;

    const bundle = await bundleApp('edge');
    const port = await freePort();
    const inspectPort = await freePort();
    edge = spawn(process.execPath, [`--inspect=127.0.0.1:${inspectPort}`, bundle], {
      cwd: resolve(__dirname, '../../../../..'),
      env: {
        PATH: process.env.PATH,
        ...stack.env,
        PORT: String(port),
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        METRICS_PORT: String(await freePort()),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    edge.stdout!.on('data', (d: Buffer) => output.push(d.toString()));
    edge.stderr!.on('data', (d: Buffer) => output.push(d.toString()));
    edgeUrl = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${edgeUrl}/healthz`).catch(() => undefined))?.ok, {
      timeoutMs: 30_000,
      what: `the edge process (${output.join('')})`,
    });
    inspector = await Inspector.connect(inspectPort);
  }, 120_000);
  afterAll(async () => {
    inspector?.close();
    if (edge && edge.exitCode === null) {
      const exited = new Promise((r) => edge.once('exit', r));
      edge.kill('SIGTERM');
      await exited;
    }
    await stack?.stop();
  });

  /**
   * Runs `work` while sampling the edge: the peak growth of its RSS, and of what it holds (live heap and Buffers
   * after a full collection), over the values before.
   */
  async function peakGrowth(work: () => Promise<void>): Promise<{ rss: number; live: number; samples: number }> {
    const rssBefore = rssOf(edge.pid!);
    const liveBefore = await inspector.liveBytes();
    let rss = rssBefore;
    let live = liveBefore;
    let samples = 0;
    let done = false;
    const sampling = (async () => {
      while (!done) {
        rss = Math.max(rss, rssOf(edge.pid!));
        live = Math.max(live, await inspector.liveBytes());
        samples += 1;
      }
    })();
    try {
      await work();
    } finally {
      done = true;
      await sampling;
    }
    return { rss: rss - rssBefore, live: live - liveBefore, samples };
  }

  it('refuses a 20 MB video (16 MB is the limit) and uploads a 15 MB one without holding either: its memory grows by a few MB, not the file size', async () => {
    // warm up: the upload path's code loaded and run once (a small image, and a refusal read to the end)
    expect((await upload(edgeUrl, key, { client_id: clientId }, { name: 'a.png', bytes: png(16) })).status).toBe(200);
    expect((await upload(edgeUrl, key, { client_id: clientId }, { name: 'v.mp4', type: 'video/mp4', size: 4 * MB, chunks: () => video(4 * MB) })).status).toBe(
      200,
    );
    await sim.reset();

    // the length is declared: refused from the first bytes, the rest read and dropped
    let answer: { status: number; json: { detail: Array<{ loc: string[]; type: string }> } } | undefined;
    const declared = await peakGrowth(async () => {
      answer = await upload(edgeUrl, key, { client_id: clientId }, { name: 'clip.mp4', type: 'video/mp4', size: VIDEO, chunks: () => video(VIDEO) });
    });
    expect(answer!.status).toBe(422);
    expect(answer!.json.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'media_too_large' });

    // no length (chunked): streamed to the provider until it passes 16 MB, then the upload is broken off
    let chunkedStatus = 0;
    let chunkedBody: { detail: Array<{ loc: string[]; type: string }> } | undefined;
    const chunked = await peakGrowth(async () => {
      const m = multipart({ client_id: clientId }, { name: 'clip.mp4', type: 'video/mp4', size: VIDEO, chunks: () => video(VIDEO) });
      const res = await request(`${edgeUrl}/api/media`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': m.contentType },
        body: Readable.from(m.body()),
      });
      chunkedStatus = res.statusCode;
      chunkedBody = (await res.body.json()) as typeof chunkedBody;
    });
    expect(chunkedStatus).toBe(422);
    expect(chunkedBody!.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'media_too_large' });
    // the provider never received a whole upload
    expect((await sim.calls('/media')).filter((c) => c.method === 'POST')).toEqual([]);

    // and one it takes: 15 MB streamed through to the provider
    let accepted: { status: number; json: { file_size?: number } } | undefined;
    const through = await peakGrowth(async () => {
      accepted = await upload(edgeUrl, key, { client_id: clientId }, { name: 'ok.mp4', type: 'video/mp4', size: 15 * MB, chunks: () => video(15 * MB) });
    });
    expect(accepted).toMatchObject({ status: 200, json: { file_size: 15 * MB } });

    const mb = (n: number) => (n / MB).toFixed(1);
    process.stdout.write(
      `edge during a refused 20 MB upload: holds +${mb(declared.live)} MB / RSS +${mb(declared.rss)} MB (Content-Length, ${declared.samples} samples); ` +
        `holds +${mb(chunked.live)} MB / RSS +${mb(chunked.rss)} MB (chunked, ${chunked.samples} samples); ` +
        `a 15 MB video uploaded: holds +${mb(through.live)} MB / RSS +${mb(through.rss)} MB (${through.samples} samples)\n`,
    );
    for (const run of [declared, chunked, through]) {
      expect(run.samples).toBeGreaterThanOrEqual(5);
      // a file held whole would be 16–20 MB of live Buffers; streamed, a few chunks are in flight
      expect(run.live).toBeLessThan(10 * MB);
      // the RSS also carries collectable garbage (see above), never a second copy of the file on top of it
      expect(run.rss).toBeLessThan(2 * VIDEO);
    }
  }, 120_000);
});
