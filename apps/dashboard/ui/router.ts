import { useEffect, useState } from 'preact/hooks';

/** Client-side routes under /dashboard/; the page state lives in the URL so every view has a direct link. */
export const BASE = '/dashboard/';

export interface Location {
  page: string;
  params: URLSearchParams;
}

const current = (): Location => ({
  page: location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length).replace(/\/$/, '') : '',
  params: new URLSearchParams(location.search),
});

const listeners = new Set<() => void>();

export function navigate(to: string, opts: { replace?: boolean } = {}): void {
  const url = to.startsWith('/') ? to : `${BASE}${to}`;
  if (opts.replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((l) => l());
}

export function href(page: string, params: Record<string, string | undefined> = {}): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) s.set(k, v);
  const qs = s.toString();
  return `${BASE}${page}${qs ? `?${qs}` : ''}`;
}

export function useLocation(): Location {
  const [loc, setLoc] = useState(current);
  useEffect(() => {
    const update = () => setLoc(current());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return loc;
}

/** A link that changes the view without reloading the page (a normal link for new tabs and modified clicks). */
export function onLinkClick(e: MouseEvent): void {
  const a = (e.currentTarget as HTMLAnchorElement | null) ?? null;
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey || a.target) return;
  e.preventDefault();
  navigate(a.getAttribute('href')!);
}
