import { useState } from 'preact/hooks';
import { ApiError, call, get, post, put, type Flow, type ValidationItem } from '../api';
import { Confirm, Empty, Link, Loaded, StatusBadge, Time } from '../components';
import { useCursorPages, useLoad } from '../hooks';
import { CursorList, openColumn } from '../records';
import { href, navigate } from '../router';
import { ClientPicker, WithClient } from './client-picker';

const CATEGORIES = ['SIGN_UP', 'SIGN_IN', 'APPOINTMENT_BOOKING', 'LEAD_GENERATION', 'CONTACT_US', 'CUSTOMER_SUPPORT', 'SURVEY', 'SHOPPING', 'OTHER'];

type Action = 'publish' | 'deprecate' | 'delete';
const CONFIRM: Record<Action, { title: string; text: string; label: string }> = {
  publish: {
    title: 'Publish this flow?',
    text: 'Publishing cannot be undone: a published flow can no longer be edited or deleted, only deprecated.',
    label: 'Publish flow',
  },
  deprecate: {
    title: 'Deprecate this flow?',
    text: 'Deprecating cannot be undone: the flow can no longer be sent, and it cannot be published again.',
    label: 'Deprecate flow',
  },
  delete: { title: 'Delete this draft?', text: 'Deleting cannot be undone: the draft and its JSON are removed for good.', label: 'Delete draft' },
};

/** A provider validation error (decisions.md: ctx carries the provider's fields). */
function ErrorItem({ e }: { e: Record<string, unknown> }) {
  const where = [e.line_start !== undefined ? `line ${String(e.line_start)}` : '', e.column_start !== undefined ? `column ${String(e.column_start)}` : '']
    .filter(Boolean)
    .join(', ');
  return (
    <li>
      <strong>{String(e.error ?? e.error_type ?? 'Error')}</strong>
      {e.message !== undefined && <>: {String(e.message)}</>}
      {where && <span class="muted"> ({where})</span>}
      {Array.isArray(e.pointers) && e.pointers.length > 0 && (
        <div class="muted">
          at {e.pointers.map((p) => (typeof p === 'object' && p ? String((p as { path?: string }).path ?? JSON.stringify(p)) : String(p))).join(', ')}
        </div>
      )}
    </li>
  );
}

function FlowEditor({ client, id }: { client: string; id: string }) {
  const [load, reload] = useLoad(() => get<Flow>(`/api/flows/${id}?client_id=${client}`), [client, id]);
  const [errors, setErrors] = useState<Array<Record<string, unknown>> | null>(null);
  const [notice, setNotice] = useState<{ ok?: string; error?: string }>({});
  const [pending, setPending] = useState<Action | null>(null);
  const [busy, setBusy] = useState(false);

  const save = async (e: Event) => {
    e.preventDefault();
    const text = String(new FormData(e.currentTarget as HTMLFormElement).get('flow_json') ?? '');
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (err) {
      setErrors([{ error: 'INVALID_JSON', message: (err as Error).message }]);
      setNotice({});
      return;
    }
    setBusy(true);
    try {
      await put(`/api/flows/${id}/json`, { client_id: client, flow_json: json });
      setErrors([]);
      setNotice({ ok: 'Flow JSON saved; the provider reported no errors.' });
    } catch (err) {
      const body = err instanceof ApiError ? (err.body as { detail?: unknown }) : null;
      const items = Array.isArray(body?.detail) ? (body!.detail as ValidationItem[]) : [];
      if (items.some((i) => i.type === 'flow_validation_error')) {
        setErrors(items.map((i) => ({ ...(i.ctx ?? {}), message: i.msg })));
        setNotice({ error: 'The provider reported errors in this flow JSON; the draft keeps it.' });
      } else {
        setNotice({ error: (err as Error).message });
      }
    } finally {
      setBusy(false);
    }
  };

  const act = async () => {
    if (!pending) return;
    setBusy(true);
    try {
      if (pending === 'delete') {
        await call('DELETE', `/api/flows/${id}?client_id=${client}`);
        setPending(null);
        navigate(href('flows', { client }));
        return;
      }
      await post(`/api/flows/${id}/${pending}`, { client_id: client });
      setNotice({ ok: pending === 'publish' ? 'Flow published.' : 'Flow deprecated.' });
      setPending(null);
      reload();
    } catch (err) {
      setNotice({ error: (err as Error).message });
      setPending(null);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="flow-title">
      <p>
        <Link href={href('flows', { client })}>← All flows of this client</Link>
      </p>
      <Loaded load={load} what="the flow" retry={reload}>
        {(f) => {
          const shown = errors ?? f.validation_errors;
          const draft = f.status === 'draft';
          return (
            <>
              <div class="section-head">
                <h2 id="flow-title">
                  {f.name} <StatusBadge status={f.status} />
                </h2>
                <div class="actions">
                  {draft && (
                    <button type="button" class="primary" onClick={() => setPending('publish')}>
                      Publish
                    </button>
                  )}
                  {f.status === 'published' && (
                    <button type="button" onClick={() => setPending('deprecate')}>
                      Deprecate
                    </button>
                  )}
                  {draft && (
                    <button type="button" class="danger" onClick={() => setPending('delete')}>
                      Delete
                    </button>
                  )}
                </div>
              </div>
              <div role="status" aria-live="polite">
                {notice.ok && <p class="notice">{notice.ok}</p>}
                {notice.error && <p class="error-text">{notice.error}</p>}
              </div>
              <form class="editor" onSubmit={save}>
                <div class="field">
                  <label for="flow-json">Flow JSON{draft ? '' : ' (read-only: only drafts can change)'}</label>
                  <textarea
                    id="flow-json"
                    name="flow_json"
                    rows={22}
                    spellcheck={false}
                    readOnly={!draft}
                    aria-describedby="flow-errors"
                    defaultValue={JSON.stringify(f.flow_json ?? {}, null, 2)}
                    key={f.updated_at}
                  />
                  {draft && (
                    <button type="submit" class="primary" disabled={busy}>
                      Save JSON
                    </button>
                  )}
                </div>
                <aside id="flow-errors" aria-labelledby="flow-errors-title" class="errors-panel">
                  <h3 id="flow-errors-title">Validation errors</h3>
                  {shown.length === 0 ? (
                    <p class="muted">None reported.</p>
                  ) : (
                    <ul>
                      {shown.map((e, i) => (
                        <ErrorItem key={i} e={e} />
                      ))}
                    </ul>
                  )}
                </aside>
              </form>
              <p class="muted">
                Updated <Time at={f.updated_at} /> · categories {f.categories.join(', ')}
              </p>
              <Confirm
                open={pending !== null}
                title={pending ? CONFIRM[pending].title : ''}
                message={<p>{pending ? CONFIRM[pending].text : ''}</p>}
                confirmLabel={pending ? CONFIRM[pending].label : 'OK'}
                danger={pending !== 'publish'}
                busy={busy}
                onConfirm={act}
                onCancel={() => setPending(null)}
              />
            </>
          );
        }}
      </Loaded>
    </section>
  );
}

function FlowList({ client }: { client: string }) {
  const list = useCursorPages<Flow>('/api/flows', { client_id: client });
  const [error, setError] = useState<string | null>(null);
  const create = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    setError(null);
    try {
      const flow = await post<Flow>('/api/flows', { client_id: client, name: String(f.get('name') ?? '').trim(), categories: [String(f.get('category'))] });
      navigate(href('flows', { client, flow: flow.id }));
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <>
      <form class="card filters" onSubmit={create} aria-labelledby="new-flow-title">
        <h2 id="new-flow-title" class="sr-only">
          New flow
        </h2>
        <div class="field grow">
          <label for="flow-name">New flow name</label>
          <input id="flow-name" name="name" required maxLength={200} />
        </div>
        <div class="field">
          <label for="flow-category">Category</label>
          <select id="flow-category" name="category">
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="primary">
          Create draft
        </button>
        {error && (
          <p class="error-text" role="alert">
            {error}
          </p>
        )}
      </form>
      <CursorList
        list={list}
        what="flows"
        empty="This client has no flows yet."
        rowKey={(f) => f.id}
        columns={[
          { head: 'Name', rowHeader: true, cell: (f) => f.name },
          { head: 'State', cell: (f) => <StatusBadge status={f.status} /> },
          { head: 'Updated', cell: (f) => <Time at={f.updated_at} /> },
          openColumn<Flow>(
            (f) => href('flows', { client, flow: f.id }),
            (f) => `Open flow ${f.name}`,
          ),
        ]}
      />
    </>
  );
}

export function FlowsPage({ params }: { params: URLSearchParams }) {
  const client = params.get('client') ?? '';
  const flow = params.get('flow');
  return (
    <>
      <form class="filters" onSubmit={(e) => e.preventDefault()} aria-label="Choose a client">
        <ClientPicker value={client} onChange={(id) => navigate(href('flows', { client: id }))} />
      </form>
      {!client ? (
        <Empty>Choose a client to see its flows.</Empty>
      ) : flow ? (
        <FlowEditor client={client} id={flow} />
      ) : (
        <WithClient id={client}>{() => <FlowList client={client} />}</WithClient>
      )}
    </>
  );
}
