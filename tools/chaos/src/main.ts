/**
 * `npm run chaos`: the fault run (see run.ts) at its full length, printed as one markdown table. Exits non-zero
 * when anything accepted is missing, a delivery was repeated other than by a killed dispatcher, a delivered event
 * has no record, or a 2xx send reached the provider other than once. CHAOS_LOAD_SECONDS, CHAOS_WEBHOOKS_PER_SEC, CHAOS_SENDS_PER_SEC, CHAOS_RESTART_AFTER_MS, CHAOS_CAMPAIGN_RECIPIENTS (a campaign through the kills; 0: none), CHAOS_CAMPAIGN_RATE
 * and CHAOS_MAX_IN_FLIGHT tune it.
 */
import { cpus } from 'node:os';
import { formatTable } from './report';
import { runChaos } from './run';

async function main() {
  const report = await runChaos({
    loadSeconds: Number(process.env.CHAOS_LOAD_SECONDS ?? 120),
    webhooksPerSec: Number(process.env.CHAOS_WEBHOOKS_PER_SEC ?? 40),
    sendsPerSec: Number(process.env.CHAOS_SENDS_PER_SEC ?? 10),
    restartAfterMs: Number(process.env.CHAOS_RESTART_AFTER_MS ?? 5000),
    drainTimeoutMs: 180_000,
    campaignRecipients: Number(process.env.CHAOS_CAMPAIGN_RECIPIENTS ?? 2000),
    campaignRate: Number(process.env.CHAOS_CAMPAIGN_RATE ?? 20),
    maxInFlight: Number(process.env.CHAOS_MAX_IN_FLIGHT ?? 1024),
    log: (line) => console.error(`[chaos] ${line}`),
  });
  console.log(`\n## Fault run — ${new Date().toISOString().slice(0, 16)}Z, ${cpus().length} cores, Node ${process.version}\n`);
  console.log(formatTable(report));
  if (report.failures.length) {
    console.error(`\nFailures:\n- ${report.failures.join('\n- ')}`);
    process.exit(1);
  }
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
