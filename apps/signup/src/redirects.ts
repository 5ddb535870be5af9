/** Where the customer goes after a completed signup: the client's success_redirect_url, unchanged. */
export function successRedirect(client: { successRedirectUrl?: string }): string | undefined {
  return client.successRedirectUrl || undefined;
}

/** The client's failure_redirect_url with `reason=<machine word>` added (other query parameters kept). */
export function failureRedirect(client: { failureRedirectUrl?: string }, reason: string): string | undefined {
  if (!client.failureRedirectUrl) return undefined;
  const url = new URL(client.failureRedirectUrl);
  url.searchParams.set('reason', reason);
  return url.toString();
}
