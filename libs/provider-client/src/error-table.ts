/**
 * How every provider error code of the provider reference (§3, §4, §5.1, §8, §9, supplement §2/§4) reaches a
 * tenant: the HTTP status, a stable `code`, whether retrying the same request later can succeed, and the
 * `Retry-After` the reference gives. `docs/provider-errors.md` shows the same table; a test holds the two equal
 * and drives every row through real HTTP.
 *
 * - `transient`: a provider-side hiccup the gateway itself retries a bounded number of times (with backoff,
 *   inside the request deadline) before answering; a send is only retried on an error answer, never after a
 *   timeout or a broken connection (the message may have gone).
 * - `field`: where the cause lives in the tenant's request, for 422s (the `loc` of the validation item).
 */
export interface ErrorRule {
  status: 404 | 409 | 422 | 429 | 502 | 503;
  code: string;
  retryable: boolean;
  transient?: boolean;
  /** Seconds; `'4^n'` for the pair rate limit (per business number and recipient). */
  retryAfter?: number | '4^n';
  field?: string[];
  meaning: string;
}

const to = ['body', 'to'];
const template = ['body', 'template_name'];
const components = ['body', 'components'];

/** Rules by provider code; `${code}/${subcode}` entries take precedence for that subcode. */
export const ERROR_RULES: Record<string, ErrorRule> = {
  '0': { status: 502, code: 'provider_auth_failed', retryable: false, meaning: 'The provider could not authenticate the app user' },
  '1': { status: 502, code: 'provider_unknown_error', retryable: true, transient: true, meaning: 'Unknown provider error' },
  '2': { status: 503, code: 'provider_service_unavailable', retryable: true, transient: true, meaning: 'Provider service temporarily unavailable' },
  '4': { status: 429, code: 'provider_app_rate_limited', retryable: true, retryAfter: 60, meaning: 'App-level Graph API call limit' },
  '10': { status: 502, code: 'provider_permission_denied', retryable: false, meaning: 'Permission not granted or removed' },
  '100': { status: 422, code: 'provider_invalid_parameter', retryable: false, field: ['body'], meaning: 'Invalid parameter' },
  '100/33': { status: 404, code: 'provider_object_not_found', retryable: false, meaning: 'The object does not exist or is not visible to this token' },
  '190': { status: 502, code: 'provider_token_invalid', retryable: false, meaning: "The client's access token is invalid" },
  '190/463': { status: 502, code: 'provider_token_expired', retryable: false, meaning: "The client's access token expired" },
  '200': { status: 502, code: 'provider_permission_denied', retryable: false, meaning: 'Permission not granted (200-299)' },
  '368': { status: 409, code: 'temporarily_blocked_for_policy', retryable: false, meaning: 'Temporarily blocked for policy violations' },
  '80007': { status: 429, code: 'provider_waba_rate_limited', retryable: true, retryAfter: 60, meaning: 'Business account call limit' },
  '130429': { status: 429, code: 'provider_throughput_limited', retryable: true, retryAfter: 1, meaning: 'Throughput limit of the business number' },
  '130472': { status: 409, code: 'recipient_in_experiment', retryable: false, field: to, meaning: "User's number is part of a marketing experiment" },
  '131000': { status: 502, code: 'provider_internal_error', retryable: true, transient: true, meaning: 'Something went wrong at the provider' },
  '131005': { status: 502, code: 'provider_access_denied', retryable: false, meaning: 'Access denied (permission)' },
  '131008': { status: 422, code: 'provider_required_parameter_missing', retryable: false, field: ['body'], meaning: 'Required parameter missing' },
  '131009': { status: 422, code: 'provider_parameter_invalid', retryable: false, field: ['body'], meaning: 'Parameter value not valid' },
  '131016': { status: 503, code: 'provider_service_unavailable', retryable: true, transient: true, meaning: 'Provider service unavailable' },
  '131021': { status: 422, code: 'recipient_is_sender', retryable: false, field: to, meaning: 'Recipient cannot be the sender' },
  '131026': { status: 422, code: 'recipient_undeliverable', retryable: false, field: to, meaning: 'Message undeliverable to this recipient' },
  '131031': { status: 409, code: 'business_account_locked', retryable: false, meaning: 'Business account locked' },
  '131042': { status: 409, code: 'business_eligibility_payment_issue', retryable: false, meaning: 'Payment or business eligibility issue' },
  '131047': { status: 409, code: 'customer_service_window_closed', retryable: false, field: to, meaning: 'More than 24 hours since the user last wrote; only templates may be sent' },
  '131048': { status: 429, code: 'spam_rate_limited', retryable: false, meaning: 'Spam rate limit; check quality before sending more' },
  '131049': { status: 429, code: 'marketing_limit_reached', retryable: true, retryAfter: 86400, field: to, meaning: 'Per-user marketing limit; wait 24 hours' },
  '131050': { status: 409, code: 'recipient_opted_out_of_marketing', retryable: false, field: to, meaning: 'User stopped marketing messages' },
  '131051': { status: 422, code: 'unsupported_message_type', retryable: false, field: ['body'], meaning: 'Unsupported message type' },
  '131052': { status: 422, code: 'media_download_failed', retryable: false, field: ['body'], meaning: 'The provider could not download the media' },
  '131053': { status: 422, code: 'media_upload_failed', retryable: false, field: ['body'], meaning: 'The media cannot be used (type, size)' },
  '131056': { status: 429, code: 'pair_rate_limited', retryable: true, retryAfter: '4^n', field: to, meaning: 'Too many messages to this recipient' },
  '131057': { status: 503, code: 'provider_maintenance', retryable: true, retryAfter: 60, meaning: 'The business number is in maintenance mode' },
  '132000': { status: 422, code: 'template_param_count_mismatch', retryable: false, field: components, meaning: 'Template parameter count mismatch' },
  '132001': { status: 422, code: 'template_not_found', retryable: false, field: template, meaning: 'Template does not exist in this language or is not approved' },
  '132005': { status: 422, code: 'template_text_too_long', retryable: false, field: components, meaning: 'Hydrated template text too long' },
  '132007': { status: 422, code: 'template_policy_violation', retryable: false, field: components, meaning: 'Template content violates a policy' },
  '132012': { status: 422, code: 'template_param_format_mismatch', retryable: false, field: components, meaning: 'Template parameter format mismatch' },
  '132015': { status: 409, code: 'template_paused', retryable: false, field: template, meaning: 'Template paused' },
  '132016': { status: 409, code: 'template_disabled', retryable: false, field: template, meaning: 'Template disabled' },
  '133010': { status: 409, code: 'phone_number_not_registered', retryable: false, meaning: 'Business number not registered' },
  '133016': { status: 429, code: 'register_attempts_exceeded', retryable: false, meaning: 'Too many register/deregister attempts' },
  '138000': { status: 409, code: 'calling_not_enabled', retryable: false, meaning: 'Calling not enabled on this number' },
  '138001': { status: 422, code: 'call_receiver_invalid', retryable: false, field: ['body', 'call_id'], meaning: 'Receiver cannot be called' },
  '138002': { status: 429, code: 'concurrent_call_limit', retryable: true, meaning: 'Concurrent call limit of the number' },
  '138003': { status: 409, code: 'call_already_ongoing', retryable: false, meaning: 'A call with this user is already ongoing (or the call was already answered)' },
  '138004': { status: 502, code: 'call_connection_error', retryable: false, meaning: 'Call connection error' },
  '138005': { status: 429, code: 'call_rate_limited', retryable: true, meaning: 'Call rate limit' },
  '138006': { status: 409, code: 'call_permission_missing', retryable: false, meaning: 'No approved call permission from the user' },
  '138018': { status: 409, code: 'calling_cannot_be_enabled', retryable: false, meaning: 'Calling cannot be enabled' },
  '139000': { status: 409, code: 'flow_blocked_by_integrity', retryable: false, meaning: 'Flow blocked by integrity' },
  '139001': { status: 409, code: 'flow_not_draft', retryable: false, meaning: 'Flow cannot be updated (not a draft)' },
  '139002': { status: 409, code: 'flow_not_publishable', retryable: false, meaning: 'Flow cannot be published' },
  '139003': { status: 409, code: 'flow_not_published', retryable: false, meaning: 'Flow cannot be deprecated (not published)' },
  '139004': { status: 409, code: 'flow_not_draft', retryable: false, meaning: 'Published flow cannot be deleted' },
  '139100': { status: 502, code: 'block_users_failed', retryable: false, meaning: 'Some or all users could not be blocked/unblocked' },
  '139101': { status: 409, code: 'blocklist_full', retryable: false, meaning: 'Blocklist full' },
  '139102': { status: 409, code: 'blocklist_concurrent_update', retryable: true, meaning: 'Blocklist changed during paging' },
  '139103': { status: 503, code: 'provider_service_unavailable', retryable: true, transient: true, meaning: 'Internal blocklist error' },
};

/** Any other code: the provider refused, for a reason the gateway has no rule for. */
export const DEFAULT_RULE: ErrorRule = { status: 502, code: 'provider_error', retryable: false, meaning: 'Any other provider error' };

export function ruleFor(code: number | null, subcode: number | null): ErrorRule {
  if (code === null) return DEFAULT_RULE;
  if (subcode !== null && ERROR_RULES[`${code}/${subcode}`]) return ERROR_RULES[`${code}/${subcode}`];
  if (code >= 200 && code <= 299) return ERROR_RULES['200'];
  return ERROR_RULES[String(code)] ?? DEFAULT_RULE;
}
