import type { ChartConfiguration } from 'chart.js';
import { useMemo } from 'preact/hooks';
import { get, q, type Stats } from '../api';
import { Loaded } from '../components';
import { ChartCanvas, SERIES_COLOURS } from '../charts';
import { useLoad } from '../hooks';
import { href, navigate } from '../router';
import { ClientPicker } from './client-picker';

/** How many days the charts show (GET /api/stats?days=). */
export const CHART_DAYS = 14;
const DAY_MS = 86_400_000;

/** The message series: inbound, then each outbound status (accepted and sent together: on their way). */
const MESSAGE_SERIES = [
  { key: 'received', label: 'Inbound', test: (d: string, _s: string) => d === 'in' },
  { key: 'sent', label: 'Sent, not yet delivered', test: (d: string, s: string) => d === 'out' && (s === 'accepted' || s === 'sent') },
  { key: 'delivered', label: 'Delivered', test: (d: string, s: string) => d === 'out' && s === 'delivered' },
  { key: 'read', label: 'Read or played', test: (d: string, s: string) => d === 'out' && (s === 'read' || s === 'played') },
  { key: 'failed', label: 'Failed', test: (d: string, s: string) => d === 'out' && s === 'failed' },
] as const;

const WEBHOOK_SERIES = ['succeeded', 'failed', 'pending', 'skipped'] as const;

interface Table {
  days: string[];
  messages: Record<(typeof MESSAGE_SERIES)[number]['key'], number[]>;
  /** Delivered or read of the sends with an end status, per day (null: none ended that day). */
  rate: Array<number | null>;
  ended: number;
  succeeded: number;
  webhooks: Record<(typeof WEBHOOK_SERIES)[number], number[]>;
}

/** The answer as one row per day (days without any message are zeros). */
function tabulate(s: Stats): Table {
  const days: string[] = [];
  for (let t = Date.parse(s.from); t <= Date.parse(s.to); t += DAY_MS) days.push(new Date(t).toISOString().slice(0, 10));
  const zeros = () => days.map(() => 0);
  const messages = Object.fromEntries(MESSAGE_SERIES.map((m) => [m.key, zeros()])) as Table['messages'];
  for (const c of s.messages) {
    const i = days.indexOf(c.day);
    const series = MESSAGE_SERIES.find((m) => m.test(c.direction, c.status));
    if (i >= 0 && series) messages[series.key][i] += c.count;
  }
  const webhooks = Object.fromEntries(WEBHOOK_SERIES.map((k) => [k, zeros()])) as Table['webhooks'];
  for (const c of s.deliveries) {
    const i = days.indexOf(c.day);
    if (i >= 0 && c.status in webhooks) webhooks[c.status as keyof Table['webhooks']][i] += c.count;
  }
  const ok = days.map((_, i) => messages.delivered[i] + messages.read[i]);
  const rate = days.map((_, i) => (ok[i] + messages.failed[i] ? Math.round((1000 * ok[i]) / (ok[i] + messages.failed[i])) / 10 : null));
  const succeeded = ok.reduce((a, b) => a + b, 0);
  return { days, messages, rate, succeeded, ended: succeeded + messages.failed.reduce((a, b) => a + b, 0), webhooks };
}

const short = (day: string) => day.slice(5);
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const stackedBars = (labels: string[], datasets: Array<{ label: string; data: number[]; backgroundColor: string; stack?: string }>): ChartConfiguration => ({
  type: 'bar',
  data: { labels, datasets },
  options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } }, plugins: { legend: { position: 'bottom' } } },
});

/** A chart and, below it, its numbers as a table (the text alternative; folded away for sighted users). */
function ChartFigure({
  id,
  title,
  summary,
  config,
  head,
  rows,
}: {
  id: string;
  title: string;
  summary: string;
  config: ChartConfiguration;
  head: string[];
  rows: Array<Array<string | number>>;
}) {
  return (
    <figure class="card chart-figure" aria-labelledby={`${id}-title`}>
      <figcaption id={`${id}-title`}>
        <strong>{title}</strong> <span class="muted">{summary}</span>
      </figcaption>
      <ChartCanvas id={`${id}-canvas`} config={config} label={`${title}. ${summary} Each day's numbers are in the table that follows.`} />
      <details>
        <summary>Numbers of “{title}” as a table</summary>
        {/* a region that scrolls sideways on a narrow card, reachable with the keyboard */}
        <div class="table-scroll" tabIndex={0} role="region" aria-label={`${title}: table`}>
          <table id={`${id}-table`} class="records">
            <caption class="sr-only">{title}</caption>
            <thead>
              <tr>
                {head.map((h) => (
                  <th key={h} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <tr key={r[0]}>
                  {r.map((cell, i) =>
                    i === 0 ? (
                      <th key={i} scope="row">
                        {cell}
                      </th>
                    ) : (
                      <td key={i}>{cell}</td>
                    ),
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}

function Charts({ stats }: { stats: Stats }) {
  const t = useMemo(() => tabulate(stats), [stats]);
  const labels = t.days.map(short);
  const messagesConfig = useMemo(
    () =>
      stackedBars(
        labels,
        MESSAGE_SERIES.map((m) => ({
          label: m.label,
          data: t.messages[m.key],
          backgroundColor: SERIES_COLOURS[m.key],
          stack: m.key === 'received' ? 'in' : 'out',
        })),
      ),
    [t],
  );
  const rateConfig = useMemo<ChartConfiguration>(
    () => ({
      type: 'line',
      data: {
        labels,
        datasets: [{ label: 'Delivered or read, %', data: t.rate, borderColor: SERIES_COLOURS.rate, backgroundColor: SERIES_COLOURS.rate, spanGaps: true }],
      },
      options: { scales: { y: { min: 0, max: 100, ticks: { callback: (v) => `${v} %` } } }, plugins: { legend: { display: false } } },
    }),
    [t],
  );
  const webhookConfig = useMemo(
    () =>
      stackedBars(
        labels,
        WEBHOOK_SERIES.map((k) => ({ label: k[0].toUpperCase() + k.slice(1), data: t.webhooks[k], backgroundColor: SERIES_COLOURS[k] })),
      ),
    [t],
  );
  const totalIn = sum(t.messages.received);
  const totalOut = MESSAGE_SERIES.filter((m) => m.key !== 'received').reduce((n, m) => n + sum(t.messages[m.key]), 0);
  const overall = t.ended ? `${Math.round((1000 * t.succeeded) / t.ended) / 10} %` : 'no send has ended yet';
  return (
    <div class="charts">
      <ChartFigure
        id="chart-messages"
        title={`Messages per day, last ${CHART_DAYS} days`}
        summary={`${totalIn} inbound and ${totalOut} outbound in all; outbound by status.`}
        config={messagesConfig}
        head={['Day', ...MESSAGE_SERIES.map((m) => m.label)]}
        rows={t.days.map((d, i) => [d, ...MESSAGE_SERIES.map((m) => t.messages[m.key][i])])}
      />
      <ChartFigure
        id="chart-rate"
        title="Delivery success rate"
        summary={`${overall} (${t.succeeded} of ${t.ended} sends with an end status delivered or read).`}
        config={rateConfig}
        head={['Day', 'Delivered or read', 'Failed', 'Success rate']}
        rows={t.days.map((d, i) => [
          d,
          t.messages.delivered[i] + t.messages.read[i],
          t.messages.failed[i],
          t.rate[i] === null ? 'no send ended' : `${t.rate[i]} %`,
        ])}
      />
      <ChartFigure
        id="chart-webhooks"
        title="Webhook delivery outcomes"
        summary={WEBHOOK_SERIES.map((k) => `${sum(t.webhooks[k])} ${k}`).join(', ') + '.'}
        config={webhookConfig}
        head={['Day', ...WEBHOOK_SERIES.map((k) => k[0].toUpperCase() + k.slice(1))]}
        rows={t.days.map((d, i) => [d, ...WEBHOOK_SERIES.map((k) => t.webhooks[k][i])])}
      />
    </div>
  );
}

/** The Overview's charts (GET /api/stats): of every client, or of the one chosen (kept in the URL). */
export function ActivityCharts({ client }: { client: string }) {
  const [load, reload] = useLoad(() => get<Stats>(`/api/stats${q({ client_id: client, days: CHART_DAYS })}`), [client]);
  return (
    <section aria-labelledby="ov-activity">
      <h2 id="ov-activity">Activity</h2>
      <div class="filters">
        <ClientPicker id="ov-client" value={client} allLabel="All clients" onChange={(c) => navigate(href('', { client: c }), { replace: true })} />
      </div>
      <Loaded load={load} what="the activity" retry={reload}>
        {(s) => <Charts stats={s} />}
      </Loaded>
    </section>
  );
}
