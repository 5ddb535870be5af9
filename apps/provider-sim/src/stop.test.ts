import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { waitFor } from '@gateway/testing';
import { refusingReceiver } from './fixtures/refusing-receiver';
import { SimState } from './state';
import { WebhookSender } from './webhooks';

describe('a stopped simulator leaves nothing going', () => {
  let receiver: Awaited<ReturnType<typeof refusingReceiver>>;
  beforeAll(async () => {
    receiver = await refusingReceiver();
  });
  afterAll(() => new Promise((r) => receiver.server.close(r)));

  it('a delivery the gateway refuses is retried no more once stopped', async () => {
    const state = new SimState();
    state.webhookUrl = receiver.url;
    const webhooks = new WebhookSender(state, 'app-secret');
    const before = receiver.deliveries();
    const sending = webhooks.send({ object: 'whatsapp_business_account', entry: [] });
    // refused once; unstopped, it would retry three times more (100, 200 and 400 ms apart)
    await waitFor(() => receiver.deliveries() === before + 1);
    webhooks.stop();
    expect((await sending).status).toBe(500);
    expect(receiver.deliveries()).toBe(before + 1);
    // and a send after the stop posts nothing
    expect((await webhooks.send({ object: 'whatsapp_business_account', entry: [] })).status).toBeNull();
    expect(receiver.deliveries()).toBe(before + 1);
  });

  it('a wait ends at once when stopped, answering that nothing more is to be sent', async () => {
    const webhooks = new WebhookSender(new SimState(), 'app-secret');
    const waiting = webhooks.after(60_000);
    webhooks.stop();
    await expect(waiting).resolves.toBe(false);
    await expect(webhooks.after(1)).resolves.toBe(false);
  });

  it('a simulator stopped with a delayed send and retried webhooks in flight lets its process exit', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-stop-'));
    let child: ChildProcess | undefined;
    try {
      const bundle = join(dir, 'stop-and-exit.js');
      await build({ entryPoints: [join(__dirname, 'fixtures', 'stop-and-exit.ts')], bundle: true, platform: 'node', outfile: bundle, logLevel: 'warning' });
      child = spawn(process.execPath, [bundle], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout!.on('data', (d: Buffer) => (out += d.toString('utf8')));
      // the delay is ten minutes and the test's timeout one: a timer or request the stop left behind fails it
      const exiting = child;
      const code = await new Promise<number | null>((resolve) => exiting.once('exit', resolve));
      expect([code, out.trim()]).toEqual([0, 'stopped']);
    } finally {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
