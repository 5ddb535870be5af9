import { redactQuery, redactUrl } from './redact';

describe('URLs in span attributes', () => {
  it('keep the query names and drop every value and any credentials', () => {
    expect(redactUrl(new URL('https://graph.test/v21.0/oauth/access_token?client_id=app&client_secret=s3cret&code=one-time'))).toBe(
      'https://graph.test/v21.0/oauth/access_token?client_id=REDACTED&client_secret=REDACTED&code=REDACTED',
    );
    expect(redactUrl(new URL('https://user:pass@tenant.test/hook?token=abc&flag'))).toBe('https://REDACTED:REDACTED@tenant.test/hook?token=REDACTED&flag');
    expect(redactUrl(new URL('https://tenant.test/hook'))).toBe('https://tenant.test/hook');
    expect(redactQuery('hub.mode=subscribe&hub.verify_token=v&hub.challenge=1')).toBe('hub.mode=REDACTED&hub.verify_token=REDACTED&hub.challenge=REDACTED');
    expect(redactQuery('?a=1=2')).toBe('?a=REDACTED');
    expect(redactQuery('')).toBe('');
  });
});
