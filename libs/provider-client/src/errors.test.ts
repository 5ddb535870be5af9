import { classifyProviderError, isRetryableProviderError, isTransientProviderError } from './errors';

const envelope = (code: number, extra: Record<string, unknown> = {}) => ({
  error: { message: `(#${code}) Something`, type: 'OAuthException', code, fbtrace_id: 'trace-1', ...extra },
});

describe('classifyProviderError (by error.code, never by HTTP status)', () => {
  it.each([
    [130429, 1, 'provider_throughput_limited'],
    [80007, 60, 'provider_waba_rate_limited'],
    [4, 60, 'provider_app_rate_limited'],
  ])('throttling code %i is rate_limited with a Retry-After of %i s whatever the status', (code, seconds, tenantCode) => {
    for (const status of [400, 429, 500]) {
      const e = classifyProviderError(status, envelope(code));
      expect(e).toMatchObject({ kind: 'rate_limited', code: tenantCode, retryAfterSeconds: seconds });
      expect(e.details.provider_error).toMatchObject({ code, trace_id: 'trace-1' });
    }
  });

  it('backs off 4^n seconds for the pair rate limit and honours a Retry-After header', () => {
    expect([0, 1, 2, 3].map((n) => classifyProviderError(400, envelope(131056), undefined, { pairFailures: n }).retryAfterSeconds)).toEqual([1, 4, 16, 64]);
    expect(classifyProviderError(429, envelope(130429), '7').retryAfterSeconds).toBe(7);
  });

  it('keeps every provider field: details from error_data, the user title and message', () => {
    const e = classifyProviderError(
      400,
      envelope(131047, {
        error_subcode: 2388001,
        error_data: { messaging_product: 'whatsapp', details: 'Outside the window' },
        error_user_title: 'T',
        error_user_msg: 'M',
      }),
    );
    expect(e).toMatchObject({ kind: 'conflict', code: 'customer_service_window_closed' });
    expect(e.details.provider_error).toEqual({
      code: 131047,
      subcode: 2388001,
      message: '(#131047) Something',
      type: 'OAuthException',
      trace_id: 'trace-1',
      details: 'Outside the window',
      user_title: 'T',
      user_message: 'M',
    });
    // template management sends error_data as a plain string
    expect((classifyProviderError(400, envelope(100, { error_data: 'name taken' })).details.provider_error as { details: string }).details).toBe('name taken');
  });

  it('answers a 422 in the validation form naming the field', () => {
    const e = classifyProviderError(400, envelope(132000));
    expect(e).toMatchObject({ kind: 'validation', code: 'template_param_count_mismatch' });
    expect(e.issues).toEqual([
      { loc: ['body', 'components'], msg: '(#132000) Something', type: 'template_param_count_mismatch', input: null, ctx: { provider_code: 132000 } },
    ]);
  });

  it('uses a subcode rule where there is one: an expired token, an unknown object', () => {
    expect(classifyProviderError(401, envelope(190))).toMatchObject({ kind: 'provider_rejected', code: 'provider_token_invalid' });
    expect(classifyProviderError(401, envelope(190, { error_subcode: 463 }))).toMatchObject({ kind: 'provider_rejected', code: 'provider_token_expired' });
    expect(classifyProviderError(400, envelope(100, { error_subcode: 33 }))).toMatchObject({ kind: 'not_found', code: 'provider_object_not_found' });
    expect(classifyProviderError(403, envelope(250))).toMatchObject({ code: 'provider_permission_denied' });
    expect(classifyProviderError(400, envelope(987654))).toMatchObject({ kind: 'provider_rejected', code: 'provider_error' });
  });

  it('tells transient codes (retried at once) from retryable ones (not kept as an outcome)', () => {
    expect(isTransientProviderError(classifyProviderError(500, envelope(131000)))).toBe(true);
    expect(isTransientProviderError(classifyProviderError(400, envelope(131057)))).toBe(false);
    expect(isRetryableProviderError(classifyProviderError(400, envelope(131057)))).toBe(true);
    expect(isRetryableProviderError(classifyProviderError(400, envelope(131047)))).toBe(false);
  });

  it('treats a 5xx without an error envelope as unavailable', () => {
    expect(classifyProviderError(502, undefined).kind).toBe('unavailable');
    expect(classifyProviderError(400, { nope: true }).kind).toBe('provider_rejected');
  });
});
