import { spawnServiceProcess, startStack, type ApiClient, type ServiceProcess, type Stack } from '@gateway/test-stack';
import { SimControl, waitFor } from '@gateway/testing';
import { allRecipients, campaignUntil, clientWithTemplates, maxPerSecond, recipients, sumOfCounts, type SimPhone } from './testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/*
 * Two messaging replicas on one campaign (issue 26), each its own OS process on one PostgreSQL database (replicas
 * share a database; PGlite is one process's own, so this test runs on PostgreSQL: TEST_DATABASE_URL, as `npm test`
 * provides). Together they keep to the number's rate and send no recipient twice; a replica killed outright loses
 * nothing: what it held goes back to the queue, what it was sending is marked `unknown`, never sent again.
 */
describe('campaigns across two messaging replicas', () => {
  let stack: Stack;
  let sim: SimControl;
  let api: ApiClient;
  let clientId: string;
  let phone: SimPhone;
  let second: ServiceProcess;

  const sentBy = async (metricsPort: number) => {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    const m = /campaign_sends_total\{[^}]*outcome="sent"[^}]*\} (\d+)/.exec(text);
    return m ? Number(m[1]) : 0;
  };
  const arrivalsTo = async (list: Array<{ to: string }>) => {
    const tos = new Set(list.map((r) => r.to));
    return (await sim.sends(phone.phone_number_id)).filter((a) => tos.has(a.to));
  };

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], processes: ['messaging'], storage: 'postgres' });
    second = await spawnServiceProcess('messaging', stack.env);
    sim = new SimControl(stack.sim!.url);
    ({ api } = await stack.createTenant({ name: 'Sender' }));
    ({ clientId, phone } = await clientWithTemplates(stack, api));
    await sim.autoStatuses(true);
    await sim.setThroughput(phone.phone_number_id, 20);
  }, 180_000);
  afterAll(async () => {
    await second?.stop().catch(() => undefined);
    await stack?.stop();
  });

  it('share one campaign: the combined rate never exceeds the limit, no recipient twice', async () => {
    const list = recipients(160, 60_000);
    const c = (
      await api.post('/api/campaigns', {
        client_id: clientId,
        name: 'Both',
        template_name: 'shipping_notice',
        lang: 'en_US',
        recipients: list,
        // 60 % of the number's 20/s: two replicas' sends bunch at the provider on a starved machine (a send delayed
        // on its way lands beside the other's next ones; the simulator, stalled, stamps queued calls together:
        // docs/campaigns.md), and at 80 % a fully loaded run once had 21 in one second. Two replicas that did not
        // share the number's pace would send 24 a second, over the limit checked below
        rate_per_second: 12,
      })
    ).json as any;
    expect((await api.post(`/api/campaigns/${c.id}/start`, {})).status).toBe(200);
    const done = await campaignUntil(api, c.id, (x) => x.status === 'completed', 'the campaign completed', 120_000);
    // a failure names the recipients that were not delivered (status, reason, error code) and the replicas' warnings
    const notDelivered = (await allRecipients(api, c.id)).filter((r) => r.status !== 'delivered' && r.status !== 'read');
    const warnings = notDelivered.length ? [...stack.processes.get('messaging')!.output, ...second.output].filter((l) => l.includes('campaign')) : [];
    expect([done.counts, notDelivered, warnings]).toEqual([expect.objectContaining({ failed: 0, unknown: 0, skipped: 0, deferred: 0, queued: 0 }), [], []]);
    expect(done.counts.delivered + done.counts.read).toBe(160);
    const arrivals = await arrivalsTo(list);
    expect(maxPerSecond(arrivals.map((a) => a.at))).toBeLessThanOrEqual(20);
    expect(arrivals.filter((a) => !a.accepted)).toEqual([]);
    expect(arrivals).toHaveLength(160);
    expect(new Set(arrivals.map((a) => a.to)).size).toBe(160);
    // both replicas sent
    const first = stack.processes.get('messaging')!;
    const [a, b] = [await sentBy(first.metricsPort), await sentBy(second.metricsPort)];
    expect(a).toBeGreaterThan(0);
    expect(b).toBeGreaterThan(0);
    expect(a + b).toBe(160);
  }, 150_000);

  it('a replica SIGKILLed mid-campaign: every recipient is sent exactly once or marked unknown, none lost', async () => {
    const list = recipients(200, 70_000);
    const c = (
      await api.post('/api/campaigns', {
        client_id: clientId,
        name: 'Killed',
        template_name: 'shipping_notice',
        lang: 'en_US',
        recipients: list,
        // 60 % of the number's 20/s: this test pins what a SIGKILL loses (nothing) and sends twice (nothing); the
        // shared rate at 80 % is the test above's. At 80 % a stall of the simulator's event loop of about 300 ms
        // on a starved machine stamps two replicas' queued calls into one second (21 arrivals, seen once in a
        // loaded full run; docs/campaigns.md, the cross-replica gap); 60 % leaves room for a 700 ms stall
        rate_per_second: 12,
      })
    ).json as any;
    expect((await api.post(`/api/campaigns/${c.id}/start`, {})).status).toBe(200);
    await waitFor(async () => (await arrivalsTo(list)).length >= 60, { what: '60 sends', timeoutMs: 60_000 });
    await second.kill();
    // the survivor finishes, after the killed one's leases ran out (30 s)
    const done = await campaignUntil(api, c.id, (x) => x.status === 'completed', 'the campaign completed', 150_000);
    expect(sumOfCounts(done)).toBe(200);
    expect(done.counts.queued + done.counts.failed + done.counts.skipped).toBe(0);
    const arrivals = await arrivalsTo(list);
    const times = new Map<string, number>();
    for (const a of arrivals.filter((x) => x.accepted)) times.set(a.to, (times.get(a.to) ?? 0) + 1);
    expect([...times.values()].every((n) => n === 1)).toBe(true);
    const rows = await allRecipients(api, c.id);
    for (const r of rows) {
      const arrived = times.get(`+${r.to}`) ?? 0;
      if (r.status === 'unknown') expect(arrived).toBeLessThanOrEqual(1);
      else expect([r.status, arrived]).toEqual([expect.stringMatching(/^(delivered|read)$/), 1]);
    }
    // what the killed replica held unsent was sent by the survivor: only what it was sending is unknown, at most
    // two batches (runner.ts MAX_BATCHES_SENDING; a batch is a quarter second of sends: 3 at 12 per second)
    expect(done.counts.unknown).toBeLessThanOrEqual(2 * Math.floor(12 / 4));
    expect(maxPerSecond(arrivals.map((a) => a.at))).toBeLessThanOrEqual(20);
  }, 200_000);
});
