import type { AuditEntry } from '../api';
import { StatusBadge, Time } from '../components';
import { useCursorPages } from '../hooks';
import { CursorList } from '../records';
import { href, navigate } from '../router';

/** The tenant's audit log (issue 28): every state-changing request of its keys and sessions, newest first, filterable. */
export function AuditPage({ params }: { params: URLSearchParams }) {
  const action = params.get('action') ?? '';
  const actor = params.get('actor') ?? '';
  const list = useCursorPages<AuditEntry>('/api/audit-log', { action: action || undefined, actor: actor || undefined });
  const submit = (e: Event) => {
    e.preventDefault();
    const f = new FormData(e.currentTarget as HTMLFormElement);
    navigate(href('audit', { action: String(f.get('action') ?? '').trim(), actor: String(f.get('actor') ?? '').trim() }));
  };
  return (
    <>
      <p class="muted">Every change made with one of your API keys or dashboard sessions: who, what, on which object, and the answer. Never a secret.</p>
      <form class="filters" onSubmit={submit} aria-label="Audit log filters">
        <div class="field">
          <label for="audit-action">Action</label>
          <input id="audit-action" name="action" defaultValue={action} key={action} placeholder="registerClient" />
        </div>
        <div class="field">
          <label for="audit-actor">Key</label>
          <input id="audit-actor" name="actor" defaultValue={actor} key={actor} placeholder="gw_…" />
        </div>
        <button type="submit" class="primary">
          Filter
        </button>
      </form>
      <CursorList
        list={list}
        what="audit entries"
        empty={action || actor ? 'No entry matches these filters.' : 'Nothing has been changed yet.'}
        rowKey={(e) => e.id}
        rowAttr="data-audit-id"
        columns={[
          { head: 'When', cell: (e) => <Time at={e.created_at} /> },
          { head: 'Action', rowHeader: true, cell: (e) => e.action },
          { head: 'Key', cell: (e) => `${e.actor}${e.actor_kind === 'session' ? ' (dashboard)' : ''}` },
          { head: 'Route', cell: (e) => `${e.method} ${e.route}` },
          { head: 'Object', class: 'wrap', cell: (e) => e.target_id ?? '' },
          {
            head: 'Answer',
            cell: (e) => (
              <>
                <StatusBadge status={e.status < 400 ? 'succeeded' : 'failed'} /> {e.status} {e.code ?? ''}
              </>
            ),
          },
        ]}
      />
    </>
  );
}
