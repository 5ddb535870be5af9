/**
 * URLs in span attributes: every query value and any user:password replaced by `REDACTED`, the names kept. The
 * provider's token exchange carries the app secret and a one-time code in its query, a tenant's webhook URL may
 * carry its own token, and the provider's webhook verification sends the verify token: none of them may reach a
 * trace backend. (The instrumentations' own lists name a few cloud signatures only.)
 */
export const REDACTED = 'REDACTED';

/** `a=1&b=2` (or `?a=1&b=2`) → `a=REDACTED&b=REDACTED`, in the same form (with its `?` when it had one). */
export function redactQuery(search: string): string {
  const bare = search.startsWith('?') ? search.slice(1) : search;
  if (!bare) return search;
  const out = bare
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq < 0 ? pair : `${pair.slice(0, eq)}=${REDACTED}`;
    })
    .join('&');
  return search.startsWith('?') ? `?${out}` : out;
}

/** A whole URL with its query values and credentials redacted. */
export function redactUrl(url: URL): string {
  const copy = new URL(url.href);
  if (copy.username) copy.username = REDACTED;
  if (copy.password) copy.password = REDACTED;
  copy.search = redactQuery(copy.search);
  return copy.href;
}
