import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { get, post, q, request, validationItems, type Campaign, type CampaignRecipient, type Page } from '../api';
import { Confirm, Empty, FilterSelect, Link, Loaded, Notice, Pager, SectionHead, StatusBadge, Time } from '../components';
import { PAGE_SIZE, useCursor, type Load } from '../hooks';
import { CursorList, RecordTable, openColumn, type Column } from '../records';
import { href, navigate } from '../router';
import { CreateCampaign, problemsOf } from './campaign-create';
import { ClientPicker, WithClient } from './client-picker';
import './campaigns.css';

/** A recipient's statuses (docs/campaigns.md): the recipients table filters by them. */
const RECIPIENT_STATUSES = ['queued', 'sent', 'delivered', 'read', 'failed', 'skipped', 'deferred', 'unknown'] as const;

type Counts = NonNullable<Campaign['counts']>;
const NO_COUNTS: Counts = { total: 0, queued: 0, sent: 0, delivered: 0, read: 0, failed: 0, skipped: 0, deferred: 0, unknown: 0 };

/**
 * How often a campaign's counts are read again while they can change by themselves (ms), null when they cannot:
 * while it sends, while it waits (scheduled, paused), and while messages it sent still await their status.
 */
function pollEvery(c: Campaign): number | null {
  if (c.status === 'running') return 2000;
  if (c.status === 'scheduled' || c.status === 'paused') return 5000;
  if ((c.counts?.sent ?? 0) > 0) return 5000;
  return null;
}

/**
 * Loads a view, then reads it again every `every(data)` ms (none: stop) without going back to "Loading…", so
 * the counts change in place. A failed re-read keeps what is shown (with the `error`) and tries again later.
 */
function useLive<T>(fn: () => Promise<T>, deps: unknown[], every: (data: T) => number | null) {
  const [load, setLoad] = useState<Load<T>>({ state: 'loading' });
  const [meta, setMeta] = useState<{ at: Date | null; error: Error | null }>({ at: null, error: null });
  const run = useRef<() => void>(() => undefined);
  // read at each tick: the interval may follow what the caller knows now (the campaign's status)
  const everyNow = useRef(every);
  everyNow.current = every;
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let busy = false;
    // a refresh asked for while a read is under way: read again once it ends (its answer may predate the change)
    let again = false;
    let shown = false;
    setLoad({ state: 'loading' });
    const tick = () => {
      if (busy) {
        again = true;
        return;
      }
      busy = true;
      again = false;
      clearTimeout(timer);
      fn().then(
        (data) => {
          busy = false;
          if (!live) return;
          shown = true;
          setLoad({ state: 'ready', data });
          setMeta({ at: new Date(), error: null });
          const ms = again ? 0 : everyNow.current(data);
          if (ms !== null) timer = setTimeout(tick, ms);
        },
        (error: Error) => {
          busy = false;
          if (!live) return;
          if (!shown) return setLoad({ state: 'error', error });
          setMeta((m) => ({ ...m, error }));
          timer = setTimeout(tick, again ? 0 : 5000);
        },
      );
    };
    run.current = tick;
    tick();
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, deps);
  return { load, ...meta, refresh: useCallback(() => run.current(), []) };
}

/** Recipients no longer waiting to be sent, and the share of the total they are (whole percent, 100 only when all are). */
function progressOf(k: Counts) {
  const waiting = k.queued + k.deferred;
  const done = k.total - waiting;
  const pct = k.total ? Math.floor((done * 100) / k.total) : 0;
  return { waiting, done, pct };
}

const SEGMENTS: Array<{ key: string; label: string; of: (k: Counts) => number }> = [
  { key: 'delivered', label: 'Delivered or read', of: (k) => k.delivered + k.read },
  { key: 'sent', label: 'Sent', of: (k) => k.sent },
  { key: 'failed', label: 'Failed', of: (k) => k.failed },
  { key: 'skipped', label: 'Skipped or unknown', of: (k) => k.skipped + k.unknown },
];

/** The progress bar: the recipients done by outcome, with its value as text for assistive technology. */
function Progress({ c }: { c: Campaign }) {
  const k = c.counts ?? NO_COUNTS;
  const { waiting, done, pct } = progressOf(k);
  const text = k.total
    ? `${pct} %: ${done} of ${k.total} recipient${k.total === 1 ? '' : 's'} done${waiting ? `, ${waiting} waiting` : ''}`
    : 'No recipients yet';
  return (
    <div class="progress-block">
      <div class="progress-head">
        <span id="campaign-progress-label" class="label">
          Progress
        </span>
        <span class="progress-text" aria-hidden="true">
          {text}
        </span>
      </div>
      <div
        class="progress"
        role="progressbar"
        aria-labelledby="campaign-progress-label"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={pct}
        aria-valuetext={text}
      >
        {k.total > 0 &&
          SEGMENTS.map((s) => {
            const n = s.of(k);
            return n > 0 ? <span key={s.key} class={`seg seg-${s.key}`} style={{ width: `${(n * 100) / k.total}%` }} /> : null;
          })}
      </div>
    </div>
  );
}

const COUNT_LABELS: Array<{ key: keyof Counts; label: string; swatch?: string }> = [
  { key: 'total', label: 'Recipients' },
  { key: 'queued', label: 'Waiting' },
  { key: 'sent', label: 'Sent', swatch: 'sent' },
  { key: 'delivered', label: 'Delivered', swatch: 'delivered' },
  { key: 'read', label: 'Read', swatch: 'delivered' },
  { key: 'failed', label: 'Failed', swatch: 'failed' },
  { key: 'skipped', label: 'Skipped', swatch: 'skipped' },
  { key: 'deferred', label: 'Deferred' },
  { key: 'unknown', label: 'Unknown', swatch: 'skipped' },
];

function CountsList({ c }: { c: Campaign }) {
  const k = c.counts ?? NO_COUNTS;
  return (
    <dl class="stats counts">
      {COUNT_LABELS.map(({ key, label, swatch }) => (
        <div class={`stat count-${key}${k[key] > 0 ? ' nonzero' : ''}`} key={key}>
          <dt>
            {swatch && <span class={`swatch seg-${swatch}`} aria-hidden="true" />}
            {label}
          </dt>
          <dd>{k[key]}</dd>
        </div>
      ))}
    </dl>
  );
}

type Action = 'start' | 'pause' | 'resume' | 'cancel';

/** Which controls a campaign in this status offers (the moves the API allows). */
const ACTIONS: Record<string, Action[]> = {
  draft: ['start', 'cancel'],
  scheduled: ['start', 'pause', 'cancel'],
  running: ['pause', 'cancel'],
  paused: ['resume', 'cancel'],
};

function confirmation(action: Action, c: Campaign) {
  const k = c.counts ?? NO_COUNTS;
  const { waiting } = progressOf(k);
  const n = (x: number, what: string) => `${x} ${what}${x === 1 ? '' : 's'}`;
  const rate = c.rate_per_second ? `at most ${c.rate_per_second} per second` : 'the number’s rate';
  switch (action) {
    case 'start':
      return {
        title: `Start “${c.name}” now?`,
        message: `${n(k.total, 'recipient')} get the template ${c.template_name} (${c.lang}), paced to ${rate}. You can pause or cancel it while it runs.`,
        confirmLabel: 'Start sending',
        cancelLabel: 'Not yet',
      };
    case 'pause':
      return {
        title: `Pause “${c.name}”?`,
        message: `Sending stops within a second; what was sent stays sent. Resume it later to send to the ${n(waiting, 'recipient')} left: no one gets it twice.`,
        confirmLabel: 'Pause campaign',
        cancelLabel: 'Keep sending',
      };
    case 'resume':
      return {
        title: `Resume “${c.name}”?`,
        message: `Sending continues with the ${n(waiting, 'recipient')} not yet sent, paced to ${rate}; no one gets it a second time.`,
        confirmLabel: 'Resume campaign',
        cancelLabel: 'Keep paused',
      };
    case 'cancel':
      return {
        title: `Cancel “${c.name}”?`,
        message: `This cannot be undone: the ${n(waiting, 'recipient')} not yet sent are skipped and the campaign cannot be started again. Messages already sent stay sent.`,
        confirmLabel: 'Cancel campaign',
        cancelLabel: 'Keep campaign',
      };
  }
}

const ACTION_LABELS: Record<Action, string> = { start: 'Start', pause: 'Pause', resume: 'Resume', cancel: 'Cancel campaign' };
const DONE_WORDS: Record<Action, string> = { start: 'Started', pause: 'Paused', resume: 'Resumed', cancel: 'Cancelled' };

const recipientColumns = (client: string): Column<CampaignRecipient>[] => [
  { head: 'Recipient', rowHeader: true, cell: (r) => (/^\d+$/.test(r.to) ? `+${r.to}` : r.to) },
  { head: 'Status', cell: (r) => <StatusBadge status={r.status} /> },
  {
    head: 'Message',
    class: 'wrap',
    cell: (r) => (r.message_id ? <Link href={href('messages', { client, id: r.message_id })}>{r.message_id}</Link> : <span class="muted">—</span>),
  },
  { head: 'Error code', cell: (r) => r.error_code ?? <span class="muted">—</span> },
  { head: 'Reason', cell: (r) => r.reason?.replace(/_/g, ' ') ?? <span class="muted">—</span> },
  { head: 'Updated', cell: (r) => <Time at={r.updated_at} /> },
];

/**
 * The recipients, filtered by status, a page at a time: read again every few seconds while the campaign sends
 * (in place, no "Loading…"), and once more when its status or its recipients change.
 */
function Recipients({ c, status, changed }: { c: Campaign; status: string; changed: string }) {
  const path = `/api/campaigns/${c.id}/recipients`;
  const paging = useCursor([path, status]);
  const sending = c.status === 'running';
  const live = useLive(
    () => get<Page<CampaignRecipient>>(`${path}${q({ status, limit: PAGE_SIZE, cursor: paging.cursor })}`),
    [path, status, paging.cursor],
    () => (sending ? 3000 : null),
  );
  const first = useRef(true);
  useEffect(() => {
    if (first.current) first.current = false;
    else live.refresh();
  }, [changed]);
  return (
    <section aria-labelledby="recipients-title">
      <SectionHead id="recipients-title" title="Recipients">
        <a class="button" href={`/api/campaigns/${c.id}/recipients.csv`} download={`campaign-${c.id}.csv`}>
          Export all recipients (CSV)
        </a>
        <button type="button" onClick={live.refresh}>
          Refresh recipients
        </button>
      </SectionHead>
      <div class="filters">
        <FilterSelect
          id="recipient-status-filter"
          label="Status"
          any="Any status"
          options={RECIPIENT_STATUSES}
          value={status}
          onChange={(s) => navigate(href('campaigns', { client: c.client_id, campaign: c.id, status: s }), { replace: true })}
        />
      </div>
      <CursorList
        list={{ ...paging, load: live.load, reload: live.refresh }}
        what="recipients"
        empty={status ? `No recipient is ${status}.` : 'No recipients yet: add them below.'}
        columns={recipientColumns(c.client_id)}
        rowKey={(r) => r.id}
        rowAttr="data-recipient-id"
      />
    </section>
  );
}

/** More recipients from a CSV file (POST /api/campaigns/{id}/recipients, streamed), while the campaign is not finished. */
function AddRecipients({ c, onAdded }: { c: Campaign; onAdded: () => void }) {
  const [file, setFile] = useState<File | null>(null);
  const [state, setState] = useState<{ busy?: boolean; ok?: string; error?: string }>({});
  const upload = async (e: Event) => {
    e.preventDefault();
    if (!file) return setState({ error: 'Choose a CSV file first.' });
    setState({ busy: true });
    try {
      const { data } = await request<{ added: number; duplicates: number; total: number }>('POST', `/api/campaigns/${c.id}/recipients`, file, {
        contentType: 'text/csv',
      });
      setState({
        ok: `Added ${data.added} recipient${data.added === 1 ? '' : 's'}${data.duplicates ? ` (${data.duplicates} already in the campaign: sent once)` : ''}; ${data.total} in all.`,
      });
      onAdded();
    } catch (err) {
      // a refused line (a 422 naming it): the lines before it were added, what follows was not read
      const line = validationItems(err).some((i) => i.loc[1] === 'line');
      const said = problemsOf(err).map((m) => (/[.!?]$/.test(m) ? m : `${m}.`));
      setState({ error: `${said.join(' ')}${line ? ' The lines before it were added; fix it and upload the rest.' : ''}` });
      if (line) onAdded();
    }
  };
  return (
    <form class="card" onSubmit={upload} aria-labelledby="add-recipients-title">
      <h2 id="add-recipients-title">Add recipients</h2>
      <div class="row">
        <div class="field">
          <label for="add-recipients-csv">CSV file</label>
          <input
            id="add-recipients-csv"
            type="file"
            accept=".csv,text/csv"
            aria-describedby="add-recipients-hint"
            onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null)}
          />
          <span id="add-recipients-hint" class="muted">
            The same columns as when it was created: <code>to</code> and one per variable of {c.template_name}. Numbers already in the campaign are sent once.
          </span>
        </div>
        <button type="submit" disabled={state.busy || !file}>
          {state.busy ? 'Uploading…' : 'Upload recipients'}
        </button>
      </div>
      <Notice ok={state.ok} error={state.error} />
    </form>
  );
}

function CampaignDetail({ client, id, status, created }: { client: string; id: string; status: string; created: boolean }) {
  const live = useLive(
    () => get<Campaign>(`/api/campaigns/${id}`),
    [id],
    (c) => pollEvery(c),
  );
  const [action, setAction] = useState<Action | null>(null);
  const [acting, setActing] = useState<{ busy?: boolean; ok?: string; error?: string }>({});
  const [added, setAdded] = useState(0);
  const [announce, setAnnounce] = useState('');
  const c = live.load.state === 'ready' ? live.load.data : null;
  const lastStatus = useRef<string | null>(null);
  /** The status the last action led to (its notice stays while the campaign is in it). */
  const lastAction = useRef<string | null>(null);
  useEffect(() => {
    if (!c) return;
    if (lastStatus.current && lastStatus.current !== c.status) {
      setAnnounce(`The campaign is now ${c.status}.`);
      // what the last action did is history once the status moved on by itself
      if (!acting.busy && lastAction.current !== c.status) setActing({});
    }
    lastStatus.current = c.status;
  }, [c?.status]);

  const act = async (a: Action) => {
    setActing({ busy: true });
    try {
      lastAction.current = (await post<Campaign>(`/api/campaigns/${id}/${a}`)).status;
      setActing({ ok: `${DONE_WORDS[a]}.` });
    } catch (err) {
      setActing({ error: (err as Error).message });
    } finally {
      setAction(null);
      live.refresh();
    }
  };

  return (
    <>
      <section class="card" aria-labelledby="campaign-title">
        <p>
          <Link href={href('campaigns', { client })}>← All campaigns of this client</Link>
        </p>
        <Loaded load={live.load} what="the campaign" retry={live.refresh}>
          {(c) => {
            const k = c.counts ?? NO_COUNTS;
            const every = pollEvery(c);
            const confirm = action ? confirmation(action, c) : null;
            return (
              <>
                <SectionHead id="campaign-title" title={c.name} status={c.status}>
                  {(ACTIONS[c.status] ?? []).map((a) => (
                    <button
                      key={a}
                      type="button"
                      class={a === 'cancel' ? 'danger' : a === 'start' || a === 'resume' ? 'primary' : undefined}
                      disabled={acting.busy || (a === 'start' && k.total === 0)}
                      onClick={() => setAction(a)}
                    >
                      {a === 'start' && c.status === 'scheduled' ? 'Start now' : ACTION_LABELS[a]}
                    </button>
                  ))}
                  <button type="button" onClick={live.refresh}>
                    Refresh
                  </button>
                </SectionHead>
                <Notice
                  ok={
                    acting.ok ??
                    (created && c.status === 'draft' && k.total > 0
                      ? `Created as a draft with ${k.total} recipient${k.total === 1 ? '' : 's'}: start it when you are ready.`
                      : created && c.status === 'scheduled'
                        ? 'Created: it starts by itself at the scheduled time.'
                        : undefined)
                  }
                  error={acting.error}
                />
                {c.status === 'draft' && k.total === 0 && <p class="muted">Add recipients below before starting it.</p>}
                <Progress c={c} />
                <CountsList c={c} />
                <p class="muted small live-note">
                  {every !== null ? `Updates every ${every / 1000} s without reloading` : 'Not changing by itself now'}
                  {live.at && (
                    <>
                      {' · last read '}
                      <Time at={live.at.toISOString()} />
                    </>
                  )}
                  {live.error && <span class="error-text"> · could not read it again: {live.error.message}</span>}
                </p>
                <dl class="props">
                  <dt>Template</dt>
                  <dd>
                    {c.template_name} <span class="muted">({c.lang})</span>
                  </dd>
                  <dt>Send rate</dt>
                  <dd>{c.rate_per_second ? `at most ${c.rate_per_second} per second` : 'the number’s throughput'}</dd>
                  <dt>Created</dt>
                  <dd>
                    <Time at={c.created_at} />
                  </dd>
                  {c.schedule_at && (
                    <>
                      <dt>Scheduled for</dt>
                      <dd>
                        <Time at={c.schedule_at} />
                      </dd>
                    </>
                  )}
                  <dt>Started</dt>
                  <dd>
                    <Time at={c.started_at} />
                  </dd>
                  <dt>Finished</dt>
                  <dd>
                    <Time at={c.completed_at} />
                  </dd>
                  <dt>Campaign id</dt>
                  <dd>
                    <code>{c.id}</code>
                  </dd>
                </dl>
                {confirm && (
                  <Confirm
                    open
                    title={confirm.title}
                    message={<p>{confirm.message}</p>}
                    confirmLabel={confirm.confirmLabel}
                    cancelLabel={confirm.cancelLabel}
                    danger={action === 'cancel'}
                    busy={acting.busy}
                    onConfirm={() => action && act(action)}
                    onCancel={() => setAction(null)}
                  />
                )}
              </>
            );
          }}
        </Loaded>
        <p class="sr-only" role="status" aria-live="polite">
          {announce}
        </p>
      </section>
      {c && <Recipients c={c} status={status} changed={`${c.status}:${added}`} />}
      {c && ACTIONS[c.status] && (
        <AddRecipients
          c={c}
          onAdded={() => {
            setAdded((n) => n + 1);
            live.refresh();
          }}
        />
      )}
    </>
  );
}

const campaignColumns = (client: string): Column<Campaign>[] => [
  { head: 'Name', rowHeader: true, cell: (c) => c.name },
  {
    head: 'Template',
    cell: (c) => (
      <>
        {c.template_name} <span class="muted">({c.lang})</span>
      </>
    ),
  },
  { head: 'Status', cell: (c) => <StatusBadge status={c.status} /> },
  {
    head: 'Progress',
    cell: (c) => {
      const k = c.counts ?? NO_COUNTS;
      const { done, pct } = progressOf(k);
      return k.total ? (
        <span class="mini-progress">
          <span class="mini-bar" aria-hidden="true">
            <span class="seg seg-delivered" style={{ width: `${pct}%` }} />
          </span>
          {pct} %{' '}
          <span class="muted">
            ({done} of {k.total})
          </span>
        </span>
      ) : (
        <span class="muted">no recipients</span>
      );
    },
  },
  { head: 'Delivered', cell: (c) => (c.counts ? c.counts.delivered + c.counts.read : 0) },
  { head: 'Failed', cell: (c) => c.counts?.failed ?? 0 },
  { head: 'Created', cell: (c) => <Time at={c.created_at} /> },
  openColumn(
    (c) => href('campaigns', { client, campaign: c.id }),
    (c) => `Open campaign ${c.name}`,
  ),
];

/** A client's campaigns, newest first; read again every few seconds while one of the page is running or scheduled. */
function CampaignList({ client }: { client: string }) {
  const paging = useCursor([client]);
  const live = useLive(
    () => get<Page<Campaign>>(`/api/campaigns${q({ client_id: client, limit: PAGE_SIZE, cursor: paging.cursor })}`),
    [client, paging.cursor],
    (p) => (p.data.some((c) => c.status === 'running' || c.status === 'scheduled') ? 5000 : null),
  );
  return (
    <section aria-labelledby="campaigns-title">
      <SectionHead id="campaigns-title" title="Campaigns">
        <Link href={href('campaigns', { client, new: '1' })} class="button primary">
          New campaign
        </Link>
        <button type="button" onClick={live.refresh}>
          Refresh
        </button>
      </SectionHead>
      <Loaded load={live.load} what="campaigns" retry={live.refresh}>
        {(page) =>
          page.data.length === 0 && !paging.hasPrev ? (
            <Empty>
              This client has no campaigns yet. <Link href={href('campaigns', { client, new: '1' })}>Create one</Link>: an approved template to a list of
              recipients.
            </Empty>
          ) : (
            <>
              <RecordTable rows={page.data} columns={campaignColumns(client)} rowKey={(c) => c.id} rowAttr="data-campaign-id" />
              <Pager label="Campaigns" page={paging.page} hasPrev={paging.hasPrev} nextCursor={page.next_cursor} onPrev={paging.prev} onNext={paging.next} />
            </>
          )
        }
      </Loaded>
    </section>
  );
}

export function CampaignsPage({ params }: { params: URLSearchParams }) {
  const client = params.get('client') ?? '';
  const campaign = params.get('campaign');
  return (
    <>
      <form class="filters" aria-label="Campaign client" onSubmit={(e) => e.preventDefault()}>
        <ClientPicker value={client} onChange={(id) => navigate(href('campaigns', { client: id }))} />
      </form>
      {!client ? (
        <Empty>Choose a client to see its campaigns or to create one.</Empty>
      ) : campaign ? (
        <CampaignDetail key={campaign} client={client} id={campaign} status={params.get('status') ?? ''} created={params.get('created') === '1'} />
      ) : (
        <WithClient id={client}>
          {() => (params.get('new') === '1' ? <CreateCampaign key={client} client={client} /> : <CampaignList client={client} />)}
        </WithClient>
      )}
    </>
  );
}
