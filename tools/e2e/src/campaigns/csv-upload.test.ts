import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { clientWithTemplates } from './testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

const ROWS = 100_000;
/** Each row's two values are this long: the file is about 80 MB, far more than the edge may hold. */
const VALUE = 390;

/*
 * A CSV of 100,000 recipients uploaded to a campaign (issue 26): streamed through the edge (which runs in this
 * process) 1,000 rows at a time, never held whole. The edge's live heap is sampled during the upload: its growth
 * stays far below the file's size.
 */
describe('campaigns: a 100,000-row CSV upload with bounded memory', () => {
  let stack: Stack;
  let api: ApiClient;
  let clientId: string;

  beforeAll(async () => {
    // the messaging service (which stores the rows) in its own process: this process's heap is the edge's. The
    // bound is the edge's, whatever stores the rows (the configured storage: PostgreSQL in CI, else PGlite)
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], processes: ['messaging'] });
    ({ api } = await stack.createTenant({ name: 'Sender' }));
    ({ clientId } = await clientWithTemplates(stack, api));
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('adds every row, and the edge holds only a chunk at a time', async () => {
    const c = (await api.post('/api/campaigns', { client_id: clientId, name: 'Big list', template_name: 'shipping_notice', lang: 'en_US' })).json as any;
    const a = 'a'.repeat(VALUE);
    const b = 'b'.repeat(VALUE - 10);
    let row = 0;
    let bytes = 0;
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (row === 0) controller.enqueue(encoder.encode('to,1,2\r\n'));
        const lines: string[] = [];
        for (let i = 0; i < 500 && row < ROWS; i++, row++) lines.push(`+1${String(3_000_000_000 + row)},"${a}","${b}, ""quoted"""`);
        const chunk = encoder.encode(lines.join('\r\n') + (row < ROWS ? '\r\n' : '\n'));
        bytes += chunk.length;
        controller.enqueue(chunk);
        if (row >= ROWS) controller.close();
      },
    });

    // what the heap holds alive, not the garbage between collections: a full collection before each sample
    setFlagsFromString('--expose_gc');
    const gc = runInNewContext('gc') as () => void;
    const live = () => {
      gc();
      return process.memoryUsage().heapUsed;
    };
    const baseline = live();
    let peak = baseline;
    // a full collection of a big heap (a jest worker that ran other files) takes long, and the edge shares this
    // process: the next sample waits ten times as long as the last collection took, so sampling never costs the
    // upload more than a tenth of the process's time
    let sampler: NodeJS.Timeout | undefined;
    const sample = () => {
      const started = performance.now();
      peak = Math.max(peak, live());
      sampler = setTimeout(sample, Math.max(200, 10 * (performance.now() - started)));
    };
    sampler = setTimeout(sample, 200);
    const uploadStarted = performance.now();
    const res = await fetch(`${stack.baseUrl}/api/campaigns/${c.id}/recipients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'text/csv' },
      body,
      duplex: 'half',
    } as RequestInit);
    clearTimeout(sampler);
    const text = await res.text();
    const seconds = (performance.now() - uploadStarted) / 1000;
    expect([res.status, JSON.parse(text)]).toEqual([200, { added: ROWS, duplicates: 0, total: ROWS }]);
    const growth = peak - baseline;
    console.log(
      `CSV upload (${stack.db.databaseUrl ? 'postgres' : 'pglite'}): ${(bytes / 1e6).toFixed(1)} MB, ${ROWS} rows in ${seconds.toFixed(1)} s (${Math.round(ROWS / seconds)} rows/s); ` +
        `edge heap growth at its peak ${(growth / 1e6).toFixed(1)} MB`,
    );
    expect(bytes).toBeGreaterThan(75e6);
    // a chunk of 1,000 rows is under 1 MB of text; the file is ~80 MB (measured: a few MB)
    expect(growth).toBeLessThan(16e6);

    const page = (await api.get(`/api/campaigns/${c.id}/recipients?limit=2`)).json as any;
    expect(page.data.map((r: any) => r.to)).toEqual(['13000000000', '13000000001']);
    // another upload to the same campaign: a row already there is a duplicate, and the total is the campaign's
    const again = await fetch(`${stack.baseUrl}/api/campaigns/${c.id}/recipients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'text/csv' },
      body: 'to,1,2\n+13000000000,x,y\n+16505550002,x,y\n',
    });
    expect([again.status, await again.json()]).toEqual([200, { added: 1, duplicates: 1, total: ROWS + 1 }]);
    // a bad line is a 422 naming it
    const bad = await fetch(`${stack.baseUrl}/api/campaigns/${c.id}/recipients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${api.token}`, 'content-type': 'text/csv' },
      body: 'to,1,2\n+16505550001,x,y\nnot-a-number,x,y\n',
    });
    expect([bad.status, ((await bad.json()) as any).detail[0].loc]).toEqual([422, ['body', 'line', '3']]);
  }, 600_000);
});
