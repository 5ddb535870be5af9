import { classifyProviderError } from './errors';

const envelope = (code: number, extra: Record<string, unknown> = {}) => ({
  error: { message: `(#${code}) Something`, type: 'OAuthException', code, fbtrace_id: 'trace-1', ...extra },
});

describe('classifyProviderError (by error.code, never by HTTP status)', () => {
  it.each([
    [130429, 1],
    [131056, 6],
    [80007, 60],
    [4, 60],
  ])('throttling code %i is rate_limited with a Retry-After of %i s whatever the status', (code, seconds) => {
    for (const status of [400, 429, 500]) {
      const e = classifyProviderError(status, envelope(code));
      expect(e.kind).toBe('rate_limited');
      expect(e.code).toBe('provider_rate_limited');
      expect(e.retryAfterSeconds).toBe(seconds);
      expect(e.details.provider_error).toMatchObject({ code, trace_id: 'trace-1' });
    }
  });

  it('honours a Retry-After header', () => {
    expect(classifyProviderError(429, envelope(130429), '7').retryAfterSeconds).toBe(7);
  });

  it('maps 190 to provider_token_invalid and anything else to provider_error with the provider fields', () => {
    expect(classifyProviderError(401, envelope(190))).toMatchObject({ kind: 'provider_rejected', code: 'provider_token_invalid' });
    const e = classifyProviderError(400, envelope(100, { error_subcode: 33, message: '(#100) Invalid parameter' }));
    expect(e).toMatchObject({ kind: 'provider_rejected', code: 'provider_error', message: '(#100) Invalid parameter' });
    expect(e.details.provider_error).toEqual({ code: 100, subcode: 33, message: '(#100) Invalid parameter', type: 'OAuthException', trace_id: 'trace-1' });
  });

  it('treats a 5xx without an error envelope as unavailable', () => {
    expect(classifyProviderError(502, undefined).kind).toBe('unavailable');
    expect(classifyProviderError(400, { nope: true }).kind).toBe('provider_rejected');
  });
});
