import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, get, post, q, request, validationItems, type Campaign, type Page, type Template } from '../api';
import { Empty, Link, Loaded } from '../components';
import { useLoad } from '../hooks';
import { href, navigate } from '../router';
import {
  csvHeader,
  fill,
  readCsv,
  readPasted,
  sendComponents,
  shapeOf,
  sharedComponents,
  type ReadRecipients,
  type Recipient,
  type TemplateShape,
} from './campaign-input';

/** A file up to this size is read whole in the browser and checked before the campaign is created; a bigger one is checked by the gateway as it streams. */
const CHECK_WHOLE_FILE = 20 * 1024 * 1024;
/** What is read of a bigger file for the preview (its header and first rows). */
const PREVIEW_BYTES = 64 * 1024;

/** `datetime-local` value (the browser's local time, to the minute) of a moment. */
const localInput = (d: Date) => new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

type Source = 'csv' | 'paste';

/** What was read of the recipients: from the whole input, or (a big file) from its first rows only. */
type Read = { state: 'none' } | { state: 'reading' } | { state: 'read'; read: ReadRecipients; partial: boolean };

async function readFile(shape: TemplateShape, file: File): Promise<Read> {
  if (file.size <= CHECK_WHOLE_FILE) return { state: 'read', read: readCsv(shape, await file.text()), partial: false };
  const head = await file.slice(0, PREVIEW_BYTES).text();
  // the last line of the slice may be cut: only whole lines
  const read = readCsv(shape, head.slice(0, head.lastIndexOf('\n') + 1));
  return { state: 'read', read, partial: true };
}

/** The first message as its recipient sees it: header, body, footer and buttons, the variables filled. */
export function Preview({ shape, first, shared }: { shape: TemplateShape; first: Recipient | null; shared: Record<string, string> }) {
  const values = first?.values ?? {};
  const headerValues = Object.fromEntries(shape.shared.filter((s) => s.component === 'header').map((s) => [s.of, shared[s.key] ?? '']));
  const parts = (text: string, v: Record<string, string>) =>
    fill(text, v).map((p, i) =>
      p.value === 'filled' ? (
        <mark key={i}>{p.text}</mark>
      ) : p.value === 'missing' ? (
        <span key={i} class="missing">
          {p.text}
        </span>
      ) : (
        p.text
      ),
    );
  const media = shape.shared.find((s) => s.component === 'media');
  return (
    <section class="preview" aria-labelledby="preview-title">
      <h3 id="preview-title">Preview of the first message</h3>
      <p class="muted">{first ? <>To {first.to}, with the values of the first recipient (highlighted).</> : 'Add recipients to see their values here.'}</p>
      <div class="bubble-preview" data-testid="campaign-preview">
        {shape.header?.format === 'TEXT' && shape.header.text && <p class="preview-header">{parts(shape.header.text, headerValues)}</p>}
        {media && (
          <p class="preview-media muted">
            [{media.of}
            {shared[media.key] ? `: ${shared[media.key]}` : ''}]
          </p>
        )}
        <p class="preview-body">{parts(shape.body, values)}</p>
        {shape.footer && <p class="preview-footer muted">{shape.footer}</p>}
        {shape.buttons.length > 0 && (
          <ul class="preview-buttons" aria-label="Buttons">
            {shape.buttons.map((b, i) => (
              <li key={i}>{b.text || b.type.toLowerCase()}</li>
            ))}
          </ul>
        )}
      </div>
      {!first && shape.bodyVars.length > 0 && <p class="muted">Variables not filled yet are shown as {'{{name}}'}.</p>}
    </section>
  );
}

/** Sends the first recipient's message to one number (POST /api/messaging/send-template) before the campaign exists. */
function TestSend({
  client,
  template,
  shape,
  first,
  shared,
}: {
  client: string;
  template: Template;
  shape: TemplateShape;
  first: Recipient | null;
  shared: Json[];
}) {
  const [to, setTo] = useState('');
  const [state, setState] = useState<{ busy?: boolean; id?: string; to?: string; error?: string }>({});
  const send = async (e: Event) => {
    e.preventDefault();
    const number = to.trim();
    if (!/^\+?\d{7,15}$/.test(number)) return setState({ error: 'Enter a phone number: 7 to 15 digits, + allowed in front.' });
    setState({ busy: true });
    try {
      const components = sendComponents(shape, shared, first?.values ?? {});
      const res = await request<null>('POST', '/api/messaging/send-template', {
        client_id: client,
        to: number,
        template_name: template.name,
        lang: template.language,
        ...(components.length ? { components } : {}),
      });
      setState({ id: res.headers.get('x-message-id') ?? '', to: number });
    } catch (err) {
      setState({ error: (err as Error).message });
    }
  };
  const needsValues = shape.bodyVars.length > 0 && !first;
  return (
    <div class="test-send">
      <h3 id="test-send-title">Test send</h3>
      <p class="muted" id="test-send-hint">
        Sends the message previewed above to one number now (it is not part of the campaign), so you can see it on a phone first.
      </p>
      <div class="row">
        <label for="test-send-to" class="sr-only">
          Test number
        </label>
        <input
          id="test-send-to"
          type="tel"
          inputMode="tel"
          autoComplete="off"
          placeholder="+16505551234"
          value={to}
          aria-describedby="test-send-hint"
          onInput={(e) => setTo((e.currentTarget as HTMLInputElement).value)}
        />
        <button type="button" onClick={send} disabled={state.busy || needsValues} aria-describedby={needsValues ? 'test-send-needs' : undefined}>
          {state.busy ? 'Sending…' : 'Send test message'}
        </button>
      </div>
      <div role="status" aria-live="polite">
        {needsValues && (
          <p class="muted" id="test-send-needs">
            Add recipients first: the test uses the first recipient’s values.
          </p>
        )}
        {state.id !== undefined && (
          <p class="notice">
            Test message sent to {state.to}
            {state.id && (
              <>
                {' '}
                (<Link href={href('messages', { client, id: state.id })}>message {state.id}</Link>)
              </>
            )}
            .
          </p>
        )}
        {state.error && <p class="error-text">Test not sent: {state.error}</p>}
      </div>
    </div>
  );
}

type Json = Record<string, unknown>;

/** Problems the gateway named (a 422's items), in words. */
export function problemsOf(err: unknown): string[] {
  const items = validationItems(err);
  if (!items.length) return [(err as Error).message];
  return items.map((i) => {
    const loc = i.loc[0] === 'body' ? i.loc.slice(1) : i.loc;
    if (loc[0] === 'line') return i.msg;
    return loc.length ? `${loc.join('.')}: ${i.msg}` : i.msg;
  });
}

function RecipientsSummary({ read, source }: { read: Read; source: Source }) {
  if (read.state === 'none') return null;
  if (read.state === 'reading') return <p class="muted">Reading the file…</p>;
  const r = read.read;
  if (r.problems.length)
    return (
      <div class="errors-panel" id="recipients-problems">
        <p class="error-text">{source === 'csv' ? 'The file cannot be sent as it is:' : 'These lines cannot be sent as they are:'}</p>
        <ul>
          {r.problems.map((p, i) => (
            <li key={i}>{p}</li>
          ))}
        </ul>
      </div>
    );
  return (
    <p class="notice" id="recipients-summary">
      {read.partial
        ? `The first ${r.count} recipients read look right; the whole file is checked as it uploads.`
        : `${r.count} recipient${r.count === 1 ? '' : 's'} read${r.duplicates ? ` (${r.duplicates} more line${r.duplicates === 1 ? '' : 's'} repeated a number: each number is sent once)` : ''}.`}
    </p>
  );
}

/**
 * A new campaign of a client: its approved template, its recipients (a CSV file, or pasted lines), the preview
 * of the first message and a test send, when it starts and how fast. The recipients go through the gateway's
 * CSV upload (POST /api/campaigns/{id}/recipients, streamed) once the campaign is created.
 */
export function CreateCampaign({ client }: { client: string }) {
  const [templates] = useLoad(() => get<Page<Template>>(`/api/templates${q({ client_id: client, status: 'APPROVED', limit: 100 })}`), [client]);
  const usable = templates.state === 'ready' ? templates.data.data.filter((t) => t.category.toUpperCase() !== 'AUTHENTICATION') : [];
  const [templateId, setTemplateId] = useState('');
  const template = usable.find((t) => t.id === templateId) ?? null;
  const shape = useMemo(() => (template ? shapeOf(template) : null), [template]);
  const [source, setSource] = useState<Source>('csv');
  const [file, setFile] = useState<File | null>(null);
  const [pasted, setPasted] = useState('');
  const [read, setRead] = useState<Read>({ state: 'none' });
  const [shared, setShared] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState<string | null>(null);
  const [problems, setProblems] = useState<string[]>([]);

  // what was read follows the template and the input
  useEffect(() => {
    if (!shape) return setRead({ state: 'none' });
    if (source === 'paste') return setRead(pasted.trim() ? { state: 'read', read: readPasted(shape, pasted), partial: false } : { state: 'none' });
    if (!file) return setRead({ state: 'none' });
    let live = true;
    setRead({ state: 'reading' });
    readFile(shape, file).then(
      (r) => live && setRead(r),
      (e: Error) =>
        live &&
        setRead({
          state: 'read',
          read: { count: 0, duplicates: 0, first: null, problems: [`The file could not be read: ${e.message}`], csv: '' },
          partial: false,
        }),
    );
    return () => {
      live = false;
    };
  }, [shape, source, file, pasted]);

  if (templates.state !== 'ready') return <Loaded load={templates} what="the client’s approved templates" children={() => null} />;

  const first = read.state === 'read' ? read.read.first : null;
  const readOk = read.state === 'read' && !read.read.problems.length && read.read.count > 0;
  const sharedJson = shape ? sharedComponents(shape, shared) : [];

  const submit = async (e: Event) => {
    e.preventDefault();
    if (!template || !shape) return setProblems(['Choose a template.']);
    if (!readOk)
      return setProblems([
        source === 'csv' ? 'Choose a CSV file of recipients that can be sent (see above).' : 'Paste recipients that can be sent (see above).',
      ]);
    const f = new FormData(e.currentTarget as HTMLFormElement);
    const name = String(f.get('name') ?? '').trim();
    const at = String(f.get('schedule_at') ?? '');
    const rate = String(f.get('rate_per_second') ?? '').trim();
    if (at && new Date(at).getTime() <= Date.now()) return setProblems(['The start time is in the past: choose a later one, or leave it empty.']);
    setProblems([]);
    setBusy('Creating the campaign…');
    let created: Campaign | null = null;
    try {
      created = await post<Campaign>('/api/campaigns', {
        client_id: client,
        name,
        template_name: template.name,
        lang: template.language,
        ...(sharedJson.length ? { components: sharedJson } : {}),
        ...(at ? { schedule_at: new Date(at).toISOString() } : {}),
        ...(rate ? { rate_per_second: Number(rate) } : {}),
      });
      setBusy('Uploading the recipients…');
      const body = source === 'csv' ? file! : new Blob([read.state === 'read' ? read.read.csv : ''], { type: 'text/csv' });
      await request('POST', `/api/campaigns/${created.id}/recipients`, body, { contentType: 'text/csv' });
      navigate(href('campaigns', { client, campaign: created.id, created: '1' }));
    } catch (err) {
      const found = problemsOf(err);
      if (created) {
        // no one gets part of a campaign: the one just made is cancelled (the rows before a bad line were stored)
        await post(`/api/campaigns/${created.id}/cancel`).catch(() => undefined);
        found.push('Nothing was sent: the campaign was cancelled. Fix the recipients and create it again.');
      }
      setProblems(err instanceof ApiError && err.status === 0 ? [err.message] : found);
    } finally {
      setBusy(null);
    }
  };

  if (!usable.length)
    return (
      <Empty>
        This client has no approved template yet. Create one (or sync the ones made elsewhere) on the{' '}
        <Link href={href('templates', { client })}>Templates page</Link>; once the provider approves it, it can be sent here.
      </Empty>
    );

  return (
    <form class="card campaign-form" onSubmit={submit} aria-labelledby="new-campaign-title">
      <p>
        <Link href={href('campaigns', { client })}>← All campaigns of this client</Link>
      </p>
      <h2 id="new-campaign-title">New campaign</h2>
      <div class="grid">
        <div class="field">
          <label for="campaign-name">Name</label>
          <input id="campaign-name" name="name" required maxLength={256} placeholder="Spring sale" />
        </div>
        <div class="field">
          <label for="campaign-template">Template</label>
          <select id="campaign-template" required value={templateId} onChange={(e) => setTemplateId((e.currentTarget as HTMLSelectElement).value)}>
            <option value="">Choose an approved template</option>
            {usable.map((t) => (
              <option key={t.id} value={t.id}>
                {t.name} ({t.language}) · {t.category.toLowerCase()}
              </option>
            ))}
          </select>
        </div>
      </div>
      {shape && template && (
        <>
          {shape.shared.length > 0 && (
            <fieldset class="choices">
              <legend>Values every message shares</legend>
              <div class="grid">
                {shape.shared.map((s) => (
                  <div class="field" key={s.key}>
                    <label for={`shared-${s.key}`}>{s.label}</label>
                    <input
                      id={`shared-${s.key}`}
                      required
                      maxLength={s.component === 'media' ? 2048 : 1024}
                      inputMode={s.component === 'media' ? 'url' : 'text'}
                      value={shared[s.key] ?? ''}
                      aria-describedby={s.hint ? `shared-${s.key}-hint` : undefined}
                      onInput={(e) => setShared({ ...shared, [s.key]: (e.currentTarget as HTMLInputElement).value })}
                    />
                    {s.hint && (
                      <span id={`shared-${s.key}-hint`} class="muted">
                        {s.hint}
                      </span>
                    )}
                  </div>
                ))}
              </div>
            </fieldset>
          )}
          <fieldset class="choices">
            <legend>Recipients</legend>
            <label>
              <input type="radio" name="source" value="csv" checked={source === 'csv'} onChange={() => setSource('csv')} /> Upload a CSV file
            </label>
            <label>
              <input type="radio" name="source" value="paste" checked={source === 'paste'} onChange={() => setSource('paste')} /> Paste numbers
            </label>
            {source === 'csv' ? (
              <div class="field">
                <label for="campaign-csv">CSV file</label>
                <input
                  id="campaign-csv"
                  type="file"
                  accept=".csv,text/csv"
                  aria-describedby="campaign-csv-hint"
                  onChange={(e) => setFile((e.currentTarget as HTMLInputElement).files?.[0] ?? null)}
                />
                <span id="campaign-csv-hint" class="muted">
                  A header row <code>{csvHeader(shape)}</code>, then one recipient per line
                  {shape.bodyVars.length ? ' with the values of the template’s variables' : ''}. Any number of lines.
                </span>
              </div>
            ) : (
              <div class="field">
                <label for="campaign-paste">Recipients, one per line</label>
                <textarea
                  id="campaign-paste"
                  rows={6}
                  spellcheck={false}
                  value={pasted}
                  aria-describedby="campaign-paste-hint"
                  placeholder={shape.bodyVars.length ? `+16505551234,${shape.bodyVars.map((v) => `value of ${v}`).join(',')}` : '+16505551234'}
                  onInput={(e) => setPasted((e.currentTarget as HTMLTextAreaElement).value)}
                />
                <span id="campaign-paste-hint" class="muted">
                  The phone number
                  {shape.bodyVars.length ? <>, then the values of {shape.bodyVars.map((v) => `{{${v}}}`).join(', ')}, separated by commas</> : ''}.
                </span>
              </div>
            )}
            <div role="status" aria-live="polite">
              <RecipientsSummary read={read} source={source} />
            </div>
          </fieldset>
          <div class="preview-and-test">
            <Preview shape={shape} first={first} shared={shared} />
            <TestSend client={client} template={template} shape={shape} first={first} shared={sharedJson} />
          </div>
          <fieldset class="choices">
            <legend>When and how fast</legend>
            <div class="grid">
              <div class="field">
                <label for="campaign-schedule">Start at (optional)</label>
                <input id="campaign-schedule" name="schedule_at" type="datetime-local" min={localInput(new Date())} aria-describedby="campaign-schedule-hint" />
                <span id="campaign-schedule-hint" class="muted">
                  Empty: the campaign waits as a draft until you start it.
                </span>
              </div>
              <div class="field">
                <label for="campaign-rate">Messages per second (optional)</label>
                <input id="campaign-rate" name="rate_per_second" type="number" min={1} max={1000} step={1} aria-describedby="campaign-rate-hint" />
                <span id="campaign-rate-hint" class="muted">
                  Empty: as fast as the number may send (its throughput, 80 per second unless the provider says otherwise).
                </span>
              </div>
            </div>
          </fieldset>
        </>
      )}
      <div class="actions">
        <button type="submit" class="primary" disabled={busy !== null || !template}>
          {busy ? 'Creating…' : 'Create campaign'}
        </button>
      </div>
      <div role="status" aria-live="polite">
        {busy && <p class="muted">{busy}</p>}
      </div>
      <div role="alert">
        {problems.length > 0 && (
          <div class="errors-panel">
            <p class="error-text">The campaign could not be created:</p>
            <ul>
              {problems.map((p, i) => (
                <li key={i}>{p}</li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </form>
  );
}
