import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { get, q, type Page } from './api';

export type Load<T> = { state: 'loading' } | { state: 'error'; error: Error } | { state: 'ready'; data: T };

/** Loads data for a view; re-runs when `deps` change; `reload` runs it again. Stale answers are dropped. */
export function useLoad<T>(fn: () => Promise<T>, deps: unknown[]): [Load<T>, () => void] {
  const [load, setLoad] = useState<Load<T>>({ state: 'loading' });
  const [tick, setTick] = useState(0);
  const seq = useRef(0);
  useEffect(() => {
    const mine = ++seq.current;
    setLoad({ state: 'loading' });
    fn().then(
      (data) => mine === seq.current && setLoad({ state: 'ready', data }),
      (error: Error) => mine === seq.current && setLoad({ state: 'error', error }),
    );
  }, [...deps, tick]);
  return [load, useCallback(() => setTick((t) => t + 1), [])];
}

export interface Cursor {
  /** The cursor of this page (none on the first). */
  cursor: string | undefined;
  page: number;
  hasPrev: boolean;
  next: (nextCursor: string) => void;
  prev: () => void;
}

/**
 * Cursor paging: the cursors of the pages before this one, so Previous works without loading everything.
 * Back to the first page as soon as `resetOn` changes (in the same render: no request with a stale cursor).
 */
export function useCursor(resetOn: unknown[]): Cursor {
  const key = JSON.stringify(resetOn);
  const at = useRef<{ key: string; before: Array<string | undefined>; cursor?: string }>({ key, before: [] });
  const [, rerender] = useState(0);
  if (at.current.key !== key) at.current = { key, before: [] };
  const { before, cursor } = at.current;
  const move = (to: Array<string | undefined>, next: string | undefined) => {
    at.current = { key, before: to, cursor: next };
    rerender((n) => n + 1);
  };
  return {
    cursor,
    page: before.length + 1,
    hasPrev: before.length > 0,
    next: (nextCursor) => move([...before, cursor], nextCursor),
    prev: () => move(before.slice(0, -1), before[before.length - 1]),
  };
}

/** Rows per page of the dashboard's lists. */
export const PAGE_SIZE = 20;

export interface CursorPages<T> extends Cursor {
  load: Load<Page<T>>;
  reload: () => void;
}

/**
 * One page of the list at `path` (a route answering `{data, next_cursor}`), filtered by `params`: `limit` and
 * `cursor` are added; changing `path` or `params` starts again at the first page.
 */
export function useCursorPages<T>(path: string, params: Record<string, string | undefined> = {}): CursorPages<T> {
  const filters = q(params);
  const paging = useCursor([path, filters]);
  const [load, reload] = useLoad(() => get<Page<T>>(`${path}${q({ ...params, limit: PAGE_SIZE, cursor: paging.cursor })}`), [path, filters, paging.cursor]);
  return { ...paging, load, reload };
}
