import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

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

/** Cursor paging: the cursors of the pages before this one, so Previous works without loading everything. */
export function useCursor(resetOn: unknown[]) {
  const [stack, setStack] = useState<string[]>([]);
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  useEffect(() => {
    setStack([]);
    setCursor(undefined);
  }, resetOn);
  return {
    cursor,
    page: stack.length + 1,
    next: (nextCursor: string) => {
      setStack((s) => [...s, cursor ?? '']);
      setCursor(nextCursor);
    },
    prev: () => {
      setStack((s) => {
        const copy = [...s];
        const before = copy.pop();
        setCursor(before ? before : undefined);
        return copy;
      });
    },
    hasPrev: stack.length > 0,
  };
}
