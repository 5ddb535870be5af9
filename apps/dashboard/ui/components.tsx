import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';
import type { Load } from './hooks';
import { onLinkClick } from './router';

export function Link(props: { href: string; children: ComponentChildren; class?: string; 'aria-label'?: string; 'aria-current'?: 'page' }) {
  return (
    <a {...props} onClick={onLinkClick}>
      {props.children}
    </a>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="state loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" /> Loading {what}…
    </p>
  );
}

export function ErrorState({ error, retry }: { error: Error; retry?: () => void }) {
  return (
    <div class="state error" role="alert">
      <p>
        <strong>Could not load this.</strong> {error.message}
      </p>
      {retry && (
        <button type="button" onClick={retry}>
          Try again
        </button>
      )}
    </div>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state empty">{children}</p>;
}

/** Renders the three states of a load; `children` gets the data. */
export function Loaded<T>({ load, what, retry, children }: { load: Load<T>; what: string; retry?: () => void; children: (data: T) => ComponentChildren }) {
  if (load.state === 'loading') return <Loading what={what} />;
  if (load.state === 'error') return <ErrorState error={load.error} retry={retry} />;
  return <>{children(load.data)}</>;
}

export function Pager(props: {
  label: string;
  page: number;
  hasPrev: boolean;
  nextCursor: string | null;
  onPrev: () => void;
  onNext: (cursor: string) => void;
}) {
  // one page only: nothing to page through
  if (!props.hasPrev && !props.nextCursor) return null;
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button type="button" disabled={!props.hasPrev} onClick={props.onPrev}>
        Previous page
      </button>
      <span>Page {props.page}</span>
      <button type="button" disabled={!props.nextCursor} onClick={() => props.nextCursor && props.onNext(props.nextCursor)}>
        Next page
      </button>
    </nav>
  );
}

/**
 * A section's heading (`id` for its `aria-labelledby`), with the record's `status` as a badge, and its actions
 * beside it (Refresh, Delete...).
 */
export function SectionHead({ id, title, status, children }: { id: string; title: ComponentChildren; status?: string; children?: ComponentChildren }) {
  return (
    <div class="section-head">
      <h2 id={id}>
        {title}
        {status && (
          <>
            {' '}
            <StatusBadge status={status} />
          </>
        )}
      </h2>
      {children && <div class="actions">{children}</div>}
    </div>
  );
}

/** The live region of a section's actions: what the last one did (`ok`), or why it failed (`error`). */
export function Notice({ ok, error, children }: { ok?: ComponentChildren; error?: string | null; children?: ComponentChildren }) {
  return (
    <div role="status" aria-live="polite">
      {ok && <p class="notice">{ok}</p>}
      {error && <p class="error-text">{error}</p>}
      {children}
    </div>
  );
}

/** A list filter: one of `options`, or none (`any`, the empty value). */
export function FilterSelect(props: {
  id: string;
  label: string;
  any: string;
  options: readonly string[];
  value: string;
  disabled?: boolean;
  onChange: (value: string) => void;
}) {
  return (
    <div class="field">
      <label for={props.id}>{props.label}</label>
      <select id={props.id} value={props.value} disabled={props.disabled} onChange={(e) => props.onChange((e.currentTarget as HTMLSelectElement).value)}>
        <option value="">{props.any}</option>
        {props.options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status}`}>{status.replace(/_/g, ' ')}</span>;
}

export function Time({ at }: { at: string | null | undefined }) {
  if (!at) return <span class="muted">—</span>;
  const d = new Date(at);
  return <time dateTime={at}>{d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' })}</time>;
}

/**
 * A modal confirmation (native <dialog>: focus moves in, Escape cancels). `message` says what cannot be undone.
 */
export function Confirm(props: {
  open: boolean;
  title: string;
  message: ComponentChildren;
  confirmLabel: string;
  /** The button that closes the dialog without acting (default "Cancel"). */
  cancelLabel?: string;
  danger?: boolean;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = `confirm-${useId()}`;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog ref={ref} aria-labelledby={titleId} onCancel={(e) => (e.preventDefault(), props.onCancel())}>
      <h2 id={titleId}>{props.title}</h2>
      <div class="dialog-body">{props.message}</div>
      <div class="actions">
        <button type="button" onClick={props.onCancel}>
          {props.cancelLabel ?? 'Cancel'}
        </button>
        <button type="button" class={props.danger ? 'danger' : 'primary'} disabled={props.busy} onClick={props.onConfirm}>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A read-only value with a copy button (the signup link, a new API key). */
export function CopyField({ label, value, id }: { label: string; value: string; id: string }) {
  const input = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
    } catch {
      input.current?.select();
      document.execCommand('copy');
    }
    const s = document.getElementById(`${id}-copied`);
    if (s) s.textContent = 'Copied.';
  };
  return (
    <div class="field copy">
      <label for={id}>{label}</label>
      <div class="row">
        <input id={id} ref={input} readOnly value={value} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <span id={`${id}-copied`} role="status" class="muted" />
      </div>
    </div>
  );
}

export function signupLabel(c: { is_active: boolean; signup_status: string }): string {
  if (c.signup_status === 'failed') return 'signup_failed';
  if (c.is_active) return 'active';
  if (c.signup_status === 'in_progress') return 'signup_in_progress';
  return 'pending';
}
