import { formatTable } from './report';
import { runChaos } from './run';

describe('fault run (short form)', () => {
  it('loses nothing accepted, repeats no 2xx send and sends each campaign recipient once or marks it unknown through a SIGKILL of a dispatcher, a messaging, an edge and the stream-leading NATS server', async () => {
    const report = await runChaos({
      loadSeconds: 30,
      webhooksPerSec: 15,
      sendsPerSec: 4,
      restartAfterMs: 2000,
      drainTimeoutMs: 75_000,
      campaignRecipients: 100,
      campaignRate: 4,
    });
    process.stdout.write(`${formatTable(report)}\n`);
    expect(report.kills.map((k) => k.what)).toEqual(['dispatcher', 'messaging', 'edge', 'nats-server (stream leader)']);
    expect(report.counts.accepted).toBeGreaterThan(100);
    expect(report.counts.received).toBe(report.counts.expected);
    expect(report.counts.sends2xx).toBeGreaterThan(20);
    expect(report.counts.campaignSentOnce + report.counts.campaignUnknown).toBe(100);
    expect(report.counts.campaignTwice).toBe(0);
    expect(report.failures).toEqual([]);
  }, 175_000);
});
