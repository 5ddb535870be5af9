import { useState } from 'preact/hooks';
import { ApiError, call, get, post, q, validationItems, type Template, type ValidationItem } from '../api';
import { Confirm, Empty, FilterSelect, Link, Loaded, Notice, SectionHead, StatusBadge, Time } from '../components';
import { useCursorPages, useLoad } from '../hooks';
import { CursorList, openColumn, type Column } from '../records';
import { href, navigate } from '../router';
import { ClientPicker, WithClient } from './client-picker';

/** The provider's template statuses and categories (docs/templates.md). */
const STATUSES = [
  'APPROVED',
  'PENDING',
  'REJECTED',
  'PAUSED',
  'DISABLED',
  'IN_APPEAL',
  'PENDING_DELETION',
  'DELETED',
  'LIMIT_EXCEEDED',
  'ARCHIVED',
  'FLAGGED',
  'LOCKED',
  'REINSTATED',
];
const CATEGORIES = ['UTILITY', 'MARKETING', 'AUTHENTICATION'];

const EXAMPLE_COMPONENTS = [
  { type: 'HEADER', format: 'TEXT', text: 'Order update' },
  { type: 'BODY', text: 'Hello {{1}}, your order {{2}} has shipped.', example: { body_text: [['Ana', 'A-1042']] } },
  { type: 'FOOTER', text: 'Reply STOP to opt out' },
];

/** One 422 item: where (the field path below `body`) and what. */
function IssueItem({ i }: { i: ValidationItem }) {
  const where = i.loc[0] === 'body' ? i.loc.slice(1).join('.') : i.loc.join('.');
  return (
    <li>
      {where && <code>{where}</code>}
      {where && ': '}
      {i.msg}
    </li>
  );
}

type Issues = { items: ValidationItem[]; summary: string } | null;

function CreateTemplate({ client }: { client: string }) {
  const [issues, setIssues] = useState<Issues>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    let components: unknown;
    try {
      components = JSON.parse(String(f.get('components') ?? ''));
    } catch (err) {
      setIssues({
        items: [{ loc: ['body', 'components'], msg: `not valid JSON: ${(err as Error).message}`, type: 'json' }],
        summary: 'The components are not valid JSON.',
      });
      return;
    }
    setBusy(true);
    setIssues(null);
    try {
      const t = await post<Template>('/api/templates', {
        client_id: client,
        name: String(f.get('name') ?? '').trim(),
        language: String(f.get('language') ?? '').trim(),
        category: String(f.get('category')),
        components,
      });
      navigate(href('templates', { client, template: t.id, created: '1' }));
    } catch (err) {
      const items = validationItems(err);
      const provider = err instanceof ApiError && err.code.startsWith('provider_');
      setIssues({
        items,
        summary: items.length ? (provider ? 'The provider refused this template:' : 'Fix these fields and submit again:') : (err as Error).message,
      });
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="card" onSubmit={submit} aria-labelledby="new-template-title">
      <h2 id="new-template-title">New template</h2>
      <p class="muted">The template is submitted to the provider for review; it can be sent once its status is APPROVED.</p>
      <div class="grid">
        <div class="field">
          <label for="template-name">Name</label>
          <input id="template-name" name="name" required maxLength={512} pattern="[a-z0-9_]+" aria-describedby="template-name-hint" />
          <span id="template-name-hint" class="muted">
            Lowercase letters, digits and underscores.
          </span>
        </div>
        <div class="field">
          <label for="template-language">Language</label>
          <input id="template-language" name="language" required defaultValue="en_US" aria-describedby="template-language-hint" />
          <span id="template-language-hint" class="muted">
            e.g. en_US, es, pt_BR
          </span>
        </div>
        <div class="field">
          <label for="template-category">Category</label>
          <select id="template-category" name="category">
            {CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {c}
              </option>
            ))}
          </select>
        </div>
      </div>
      <div class="editor">
        <div class="field">
          <label for="template-components">Components (JSON)</label>
          <textarea
            id="template-components"
            name="components"
            rows={14}
            spellcheck={false}
            aria-describedby="template-errors"
            defaultValue={JSON.stringify(EXAMPLE_COMPONENTS, null, 2)}
          />
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Submitting…' : 'Submit for review'}
          </button>
        </div>
        <aside id="template-errors" aria-labelledby="template-errors-title" class="errors-panel" aria-live="polite">
          <h3 id="template-errors-title">Validation errors</h3>
          {!issues ? (
            <p class="muted">None reported. Exactly one BODY; at most one HEADER, FOOTER and BUTTONS; variables like {'{{1}}'} need examples.</p>
          ) : (
            <>
              <p class="error-text">{issues.summary}</p>
              {issues.items.length > 0 && (
                <ul>
                  {issues.items.map((i, n) => (
                    <IssueItem key={n} i={i} />
                  ))}
                </ul>
              )}
            </>
          )}
        </aside>
      </div>
    </form>
  );
}

type Removal = 'one' | 'every-language';

function TemplateDetail({ client, id, created }: { client: string; id: string; created: boolean }) {
  const [load, reload] = useLoad(() => get<Template>(`/api/templates/${id}${q({ client_id: client })}`), [client, id]);
  const [removing, setRemoving] = useState<Removal | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const remove = async (t: Template) => {
    if (!removing) return;
    setBusy(true);
    try {
      await call('DELETE', `/api/templates${q(removing === 'one' ? { client_id: client, template_id: t.id } : { client_id: client, name: t.name })}`);
      setRemoving(null);
      navigate(href('templates', { client, deleted: removing === 'one' ? `${t.name} (${t.language})` : t.name }));
    } catch (err) {
      setError((err as Error).message);
      setRemoving(null);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="card" aria-labelledby="template-title">
      <p>
        <Link href={href('templates', { client })}>← All templates of this client</Link>
      </p>
      <Loaded load={load} what="the template" retry={reload}>
        {(t) => (
          <>
            <SectionHead
              id="template-title"
              title={
                <>
                  {t.name} <span class="muted">({t.language})</span>
                </>
              }
              status={t.status}
            >
              <button type="button" onClick={reload}>
                Refresh
              </button>
              <button type="button" class="danger" onClick={() => setRemoving('one')}>
                Delete
              </button>
              <button type="button" class="danger" onClick={() => setRemoving('every-language')}>
                Delete every language
              </button>
            </SectionHead>
            <Notice
              ok={created && t.status === 'PENDING' && 'Submitted: the provider is reviewing it. Its status changes here when the review ends.'}
              error={error}
            />
            <dl class="props">
              <dt>Status</dt>
              <dd>
                <StatusBadge status={t.status} />
              </dd>
              {t.rejected_reason && (
                <>
                  <dt>Rejected because</dt>
                  <dd class="error-text">{t.rejected_reason}</dd>
                </>
              )}
              <dt>Quality</dt>
              <dd>{t.quality ?? <span class="muted">not rated yet</span>}</dd>
              <dt>Category</dt>
              <dd>{t.category}</dd>
              <dt>Language</dt>
              <dd>{t.language}</dd>
              <dt>Template id</dt>
              <dd>
                <code>{t.id}</code>
              </dd>
              <dt>Updated</dt>
              <dd>
                <Time at={t.updated_at} />
              </dd>
            </dl>
            <h3 id="components-title">Components</h3>
            <pre class="code" tabIndex={0} aria-labelledby="components-title">
              {JSON.stringify(t.components, null, 2)}
            </pre>
            <Confirm
              open={removing !== null}
              title={removing === 'every-language' ? `Delete ${t.name} in every language?` : `Delete ${t.name} (${t.language})?`}
              message={
                <p>
                  {removing === 'every-language'
                    ? `Every language of ${t.name} is deleted at the provider.`
                    : `The ${t.language} version of ${t.name} is deleted at the provider.`}{' '}
                  This cannot be undone: messages can no longer be sent with it, and a new template under this name has to go through review again.
                </p>
              }
              confirmLabel="Delete template"
              danger
              busy={busy}
              onConfirm={() => remove(t)}
              onCancel={() => setRemoving(null)}
            />
          </>
        )}
      </Loaded>
    </section>
  );
}

const columns = (client: string): Column<Template>[] => [
  { head: 'Name', rowHeader: true, cell: (t) => t.name },
  { head: 'Language', cell: (t) => t.language },
  { head: 'Category', cell: (t) => t.category },
  { head: 'Status', cell: (t) => <StatusBadge status={t.status} /> },
  { head: 'Quality', cell: (t) => t.quality ?? <span class="muted">—</span> },
  { head: 'Updated', cell: (t) => <Time at={t.updated_at} /> },
  openColumn(
    (t) => href('templates', { client, template: t.id }),
    (t) => `Open template ${t.name} (${t.language})`,
  ),
];

function TemplateList({ client, status, name }: { client: string; status: string; name: string }) {
  const list = useCursorPages<Template>('/api/templates', { client_id: client, status, name });
  const [sync, setSync] = useState<{ busy?: boolean; ok?: string; error?: string }>({});
  const doSync = async () => {
    setSync({ busy: true });
    try {
      const r = await post<{ synced: number; removed: number }>('/api/templates/sync', { client_id: client });
      setSync({ ok: `Synced ${r.synced} template${r.synced === 1 ? '' : 's'} from the provider; ${r.removed} removed.` });
      list.reload();
    } catch (err) {
      setSync({ error: (err as Error).message });
    }
  };
  return (
    <section aria-labelledby="templates-title">
      <SectionHead id="templates-title" title="Templates">
        <button type="button" onClick={doSync} disabled={sync.busy}>
          Sync from provider
        </button>
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </SectionHead>
      <Notice ok={sync.ok} error={sync.error} />
      <CursorList
        list={list}
        what="templates"
        empty={
          status || name
            ? 'No template matches these filters.'
            : 'This client has no templates yet. Create one below, or sync the ones made in the provider’s own tools.'
        }
        columns={columns(client)}
        rowKey={(t) => t.id}
        rowAttr="data-template-id"
      />
    </section>
  );
}

export function TemplatesPage({ params }: { params: URLSearchParams }) {
  const client = params.get('client') ?? '';
  const status = params.get('status') ?? '';
  const name = params.get('name') ?? '';
  const template = params.get('template');
  const deleted = params.get('deleted');
  const go = (next: Record<string, string | undefined>) => navigate(href('templates', { client, status, name, ...next }), { replace: true });
  return (
    <>
      <form
        class="filters"
        aria-label="Template filters"
        onSubmit={(e) => {
          e.preventDefault();
          go({ name: String(new FormData(e.currentTarget as HTMLFormElement).get('name') ?? '').trim() });
        }}
      >
        <ClientPicker value={client} onChange={(id) => navigate(href('templates', { client: id }))} />
        <FilterSelect
          id="template-status-filter"
          label="Status"
          any="Any status"
          options={STATUSES}
          value={status}
          disabled={!client || !!template}
          onChange={(s) => go({ status: s })}
        />
        <div class="field">
          <label for="template-name-filter">Name contains</label>
          <input id="template-name-filter" name="name" key={name} defaultValue={name} disabled={!client || !!template} />
        </div>
        <button type="submit" disabled={!client || !!template}>
          Search
        </button>
      </form>
      {deleted && !template && (
        <p class="notice" role="status">
          Deleted {deleted}.
        </p>
      )}
      {!client ? (
        <Empty>Choose a client to see its message templates.</Empty>
      ) : template ? (
        <TemplateDetail client={client} id={template} created={params.get('created') === '1'} />
      ) : (
        <WithClient id={client}>
          {() => (
            <>
              <TemplateList client={client} status={status} name={name} />
              <CreateTemplate client={client} />
            </>
          )}
        </WithClient>
      )}
    </>
  );
}
