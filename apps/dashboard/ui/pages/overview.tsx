import { get, type Client, type Delivery, type Page, type Usage } from '../api';
import { Empty, Link, Loaded, StatusBadge, Time, signupLabel } from '../components';
import { useLoad } from '../hooks';
import { openColumn, RecordTable } from '../records';
import { href } from '../router';
import { ActivityCharts } from './overview-charts';

/** How far the overview looks: the newest clients, and each one's newest deliveries (the API pages; this bounds the calls). */
const MAX_CLIENT_PAGES = 5;
const CLIENTS_WITH_DELIVERIES = 20;
const DAY_MS = 24 * 3600_000;

interface Summary {
  clients: Client[];
  more: boolean;
  byStatus: Record<string, number>;
  deliveries: Record<string, number>;
  failures: Array<Delivery & { clientName: string }>;
}

async function summarize(): Promise<Summary> {
  const clients: Client[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < MAX_CLIENT_PAGES; i++) {
    const page: Page<Client> = await get<Page<Client>>(`/api/clients?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    clients.push(...page.data);
    cursor = page.next_cursor;
    if (!cursor) break;
  }
  const byStatus: Record<string, number> = { active: 0, pending: 0, signup_in_progress: 0, signup_failed: 0 };
  for (const c of clients) byStatus[signupLabel(c)] = (byStatus[signupLabel(c)] ?? 0) + 1;
  const since = Date.now() - DAY_MS;
  const deliveries: Record<string, number> = { succeeded: 0, failed: 0, pending: 0, skipped: 0 };
  const failures: Summary['failures'] = [];
  const recent = await Promise.all(
    clients.slice(0, CLIENTS_WITH_DELIVERIES).map(async (c) => ({ c, page: await get<Page<Delivery>>(`/api/clients/${c.id}/webhook/deliveries?limit=100`) })),
  );
  for (const { c, page } of recent) {
    for (const d of page.data) {
      if (Date.parse(d.created_at) < since) continue;
      deliveries[d.status] = (deliveries[d.status] ?? 0) + 1;
      if (d.status === 'failed') failures.push({ ...d, clientName: c.display_name });
    }
  }
  failures.sort((a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at));
  return { clients, more: cursor !== null, byStatus, deliveries, failures: failures.slice(0, 5) };
}

const QUOTA_LABELS: Record<string, string> = {
  clients: 'Clients',
  sends_per_day: 'Sends today',
  sends: 'Sends this second',
  requests: 'API requests this second',
};

/** The tenant's plan and how much of each quota is used (GET /api/usage), and today's sends. */
function PlanUsage() {
  const [load, reload] = useLoad(() => get<Usage>('/api/usage'), []);
  return (
    <section aria-labelledby="ov-plan">
      <Loaded load={load} what="your plan and usage" retry={reload}>
        {(u) => (
          <>
            <h2 id="ov-plan">
              Plan: <span class="plan">{u.plan}</span>
            </h2>
            <dl class="stats">
              {u.quotas
                .filter((q) => q.name in QUOTA_LABELS && q.name !== 'requests')
                .map((q) => (
                  <div key={q.name} class="stat">
                    <dt>{QUOTA_LABELS[q.name]}</dt>
                    <dd>
                      {q.used} of {q.quota}
                    </dd>
                  </div>
                ))}
            </dl>
            <p class="muted">
              Sends in the last 30 days: {u.sends.reduce((n, s) => n + s.count, 0)}; webhook deliveries: {u.deliveries.reduce((n, d) => n + d.count, 0)}.
            </p>
          </>
        )}
      </Loaded>
    </section>
  );
}

export function OverviewPage({ params }: { params: URLSearchParams }) {
  return (
    <>
      <PlanUsage />
      <ActivityCharts client={params.get('client') ?? ''} />
      <ClientsSummary />
    </>
  );
}

function ClientsSummary() {
  const [load, reload] = useLoad(summarize, []);
  return (
    <Loaded load={load} what="the overview" retry={reload}>
      {(s) =>
        s.clients.length === 0 ? (
          <Empty>
            No clients yet. <Link href={href('clients')}>Create your first client</Link> to start an embedded signup.
          </Empty>
        ) : (
          <>
            <section aria-labelledby="ov-clients">
              <h2 id="ov-clients">Clients</h2>
              <dl class="stats">
                {[
                  ['Active', s.byStatus.active],
                  ['Pending signup', s.byStatus.pending + s.byStatus.signup_in_progress],
                  ['Signup failed', s.byStatus.signup_failed],
                ].map(([label, n]) => (
                  <div key={label} class="stat">
                    <dt>{label}</dt>
                    <dd>{n}</dd>
                  </div>
                ))}
              </dl>
              {s.more && <p class="muted">Counted over the {s.clients.length} newest clients.</p>}
            </section>
            <section aria-labelledby="ov-deliveries">
              <h2 id="ov-deliveries">Deliveries in the last 24 hours</h2>
              <dl class="stats">
                {(['succeeded', 'failed', 'pending', 'skipped'] as const).map((k) => (
                  <div key={k} class={`stat stat-${k}`}>
                    <dt>{k[0].toUpperCase() + k.slice(1)}</dt>
                    <dd>{s.deliveries[k]}</dd>
                  </div>
                ))}
              </dl>
              <p class="muted">Of the {Math.min(s.clients.length, CLIENTS_WITH_DELIVERIES)} newest clients, up to 100 deliveries each.</p>
            </section>
            {s.clients.some((c) => c.webhook_status === 'disabled') && (
              <section aria-labelledby="ov-disabled" class="card warning">
                <h2 id="ov-disabled">Disabled webhooks</h2>
                <p class="muted">Events of these clients are recorded as skipped, not sent, until their webhook is enabled again.</p>
                <ul>
                  {s.clients
                    .filter((c) => c.webhook_status === 'disabled')
                    .map((c) => (
                      <li key={c.id}>
                        <Link href={href('clients', { client: c.id })}>{c.display_name}</Link>: {c.webhook_disabled_reason ?? 'disabled'} (
                        <Time at={c.webhook_disabled_at} />)
                      </li>
                    ))}
                </ul>
              </section>
            )}
            <section aria-labelledby="ov-failures">
              <h2 id="ov-failures">Latest failures</h2>
              {s.failures.length === 0 ? (
                <Empty>No failed deliveries in the last 24 hours.</Empty>
              ) : (
                <RecordTable
                  rows={s.failures}
                  rowKey={(d) => d.id}
                  columns={[
                    { head: 'When', cell: (d) => <Time at={d.updated_at} /> },
                    { head: 'Client', cell: (d) => d.clientName },
                    { head: 'Event', cell: (d) => d.event_type },
                    {
                      head: 'Last error',
                      cell: (d) => (
                        <>
                          <StatusBadge status={d.status} /> {d.response_code ?? ''} {d.last_error ?? ''}
                        </>
                      ),
                    },
                    openColumn<(typeof s.failures)[number]>(
                      (d) => href('deliveries', { client: d.client_id, delivery: d.id }),
                      (d) => `Open failed ${d.event_type} delivery of ${d.clientName}`,
                    ),
                  ]}
                />
              )}
            </section>
          </>
        )
      }
    </Loaded>
  );
}
