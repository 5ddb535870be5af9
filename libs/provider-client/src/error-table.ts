/**
 * How every provider error code of the provider reference reaches a tenant (provider-2026.md §11, with the calling
 * codes of §7.6, the business username codes of §2.4 and the Marketing Messages codes of §3.4; older ones from
 * provider-cloud-api.md §3, §4, §5.1, §8, §9 and the supplement): the HTTP status, a stable `code`, whether
 * retrying the same request later can succeed, and the `Retry-After` it should wait. `docs/provider-errors.md`
 * shows the same table; a test holds the two equal and drives every row through real HTTP.
 *
 * - `retryable`: the reference's R column: `Y` (backoff) and `L` (later, minutes to hours) are retryable, `N` never.
 *   `L` rows carry a `retryAfter` of the order the reference gives (the provider sends no header for them).
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
const HOUR = 3600;
const DAY = 86400;

/** Rules by provider code; `${code}/${subcode}` entries take precedence for that subcode. */
export const ERROR_RULES: Record<string, ErrorRule> = {
  '0': { status: 502, code: 'provider_auth_failed', retryable: false, meaning: 'The provider could not authenticate the app user' },
  '1': { status: 502, code: 'provider_unknown_error', retryable: true, transient: true, meaning: 'Unknown provider error' },
  '2': { status: 503, code: 'provider_service_unavailable', retryable: true, transient: true, meaning: 'Provider service temporarily unavailable' },
  '3': { status: 502, code: 'provider_capability_missing', retryable: false, meaning: 'The app lacks the capability or permission this method needs' },
  '4': { status: 429, code: 'provider_app_rate_limited', retryable: true, retryAfter: 60, meaning: 'App-level Graph API call limit' },
  '10': { status: 502, code: 'provider_permission_denied', retryable: false, meaning: 'Permission not granted or removed' },
  '33': { status: 404, code: 'provider_object_not_found', retryable: false, meaning: 'The object does not exist (a wrong id, or a deleted business account)' },
  '100': { status: 422, code: 'provider_invalid_parameter', retryable: false, field: ['body'], meaning: 'Invalid parameter' },
  '100/33': { status: 404, code: 'provider_object_not_found', retryable: false, meaning: 'The object does not exist or is not visible to this token' },
  '100/2388019': { status: 409, code: 'template_limit_reached', retryable: false, meaning: 'The business account has as many templates as it may have' },
  '100/2388040': {
    status: 422,
    code: 'template_field_too_long',
    retryable: false,
    field: components,
    meaning: 'A template text is longer than the provider allows',
  },
  '100/2388047': {
    status: 422,
    code: 'template_format_invalid',
    retryable: false,
    field: components,
    meaning: 'The header or body text is not in a format the provider takes',
  },
  '100/2388073': { status: 422, code: 'template_footer_invalid', retryable: false, field: components, meaning: 'The template footer is not valid' },
  '100/2388293': {
    status: 422,
    code: 'template_too_many_variables',
    retryable: false,
    field: components,
    meaning: 'Too many variables for the length of the text',
  },
  '100/2388299': {
    status: 422,
    code: 'template_variable_at_edge',
    retryable: false,
    field: components,
    meaning: 'A variable at the start or the end of a template text',
  },
  '100/2494191': { status: 409, code: 'thread_control_not_allowed', retryable: false, meaning: 'The thread control action is not allowed now' },
  '190': { status: 502, code: 'provider_token_invalid', retryable: false, meaning: "The client's access token is invalid" },
  '190/463': { status: 502, code: 'provider_token_expired', retryable: false, meaning: "The client's access token expired" },
  '200': { status: 502, code: 'provider_permission_denied', retryable: false, meaning: 'Permission not granted (200-299)' },
  '368': {
    status: 409,
    code: 'temporarily_blocked_for_policy',
    retryable: true,
    retryAfter: HOUR,
    meaning: 'Temporarily blocked for policy violations',
  },
  '613': { status: 429, code: 'call_permission_lookup_rate_limited', retryable: true, retryAfter: 60, meaning: 'Call permission lookup rate limit' },
  '80007': { status: 429, code: 'provider_waba_rate_limited', retryable: true, retryAfter: 60, meaning: 'Business account call limit' },
  '130429': { status: 429, code: 'provider_throughput_limited', retryable: true, retryAfter: 1, meaning: 'Throughput limit of the business number' },
  '130472': { status: 409, code: 'recipient_in_experiment', retryable: false, field: to, meaning: "User's number is part of a marketing experiment" },
  '130497': {
    status: 409,
    code: 'recipient_country_not_allowed',
    retryable: false,
    field: to,
    meaning: "The business account may not message users in the recipient's country",
  },
  '131000': { status: 502, code: 'provider_internal_error', retryable: true, transient: true, meaning: 'Something went wrong at the provider' },
  '131005': { status: 502, code: 'provider_access_denied', retryable: false, meaning: 'Access denied (permission)' },
  '131008': { status: 422, code: 'provider_required_parameter_missing', retryable: false, field: ['body'], meaning: 'Required parameter missing' },
  '131009': { status: 422, code: 'provider_parameter_invalid', retryable: false, field: ['body'], meaning: 'Parameter value not valid' },
  '131016': { status: 503, code: 'provider_service_unavailable', retryable: true, transient: true, meaning: 'Provider service unavailable' },
  '131021': { status: 422, code: 'recipient_is_sender', retryable: false, field: to, meaning: 'Recipient cannot be the sender' },
  '131026': { status: 422, code: 'recipient_undeliverable', retryable: false, field: to, meaning: 'Message undeliverable to this recipient' },
  '131030': {
    status: 409,
    code: 'recipient_not_in_allowed_list',
    retryable: false,
    field: to,
    meaning: "The recipient is not in the test number's allowed list",
  },
  '131031': { status: 409, code: 'business_account_locked', retryable: false, meaning: 'Business account locked' },
  '131037': { status: 409, code: 'display_name_not_approved', retryable: false, meaning: 'The business number has no approved display name' },
  '131042': { status: 409, code: 'business_eligibility_payment_issue', retryable: false, meaning: 'Payment or business eligibility issue' },
  '131044': { status: 409, code: 'payment_method_missing', retryable: false, meaning: 'No valid payment method on the business account (calling)' },
  '131045': {
    status: 409,
    code: 'phone_number_registration_error',
    retryable: false,
    meaning: 'Registration or certificate error of the business number; register it again',
  },
  '131047': {
    status: 409,
    code: 'customer_service_window_closed',
    retryable: false,
    field: to,
    meaning: 'More than 24 hours since the user last wrote; only templates may be sent',
  },
  '131048': { status: 429, code: 'spam_rate_limited', retryable: true, retryAfter: HOUR, meaning: 'Spam rate limit; check quality before sending more' },
  '131049': { status: 429, code: 'marketing_limit_reached', retryable: true, retryAfter: DAY, field: to, meaning: 'Per-user marketing limit; wait 24 hours' },
  '131050': { status: 409, code: 'recipient_opted_out_of_marketing', retryable: false, field: to, meaning: 'User stopped marketing messages' },
  '131051': { status: 422, code: 'unsupported_message_type', retryable: false, field: ['body'], meaning: 'Unsupported message type' },
  '131052': { status: 422, code: 'media_download_failed', retryable: false, field: ['body'], meaning: 'The provider could not download the media' },
  '131053': { status: 422, code: 'media_upload_failed', retryable: false, field: ['body'], meaning: 'The media cannot be used (type, size)' },
  '131055': {
    status: 409,
    code: 'provider_method_not_allowed',
    retryable: false,
    meaning: 'Method not allowed here (a non-marketing template on the Marketing Messages API; Graph calling on a SIP number)',
  },
  '131056': { status: 429, code: 'pair_rate_limited', retryable: true, retryAfter: '4^n', field: to, meaning: 'Too many messages to this recipient' },
  '131057': { status: 503, code: 'provider_maintenance', retryable: true, retryAfter: 60, meaning: 'The business number is in maintenance mode' },
  '131062': {
    status: 422,
    code: 'recipient_phone_required',
    retryable: false,
    field: to,
    meaning: 'This message needs a phone number recipient, not a business-scoped user id',
  },
  '131063': {
    status: 409,
    code: 'marketing_disabled_on_cloud_api',
    retryable: false,
    meaning: 'Marketing templates are disabled on the Cloud API for this account (use the Marketing Messages API)',
  },
  '131064': {
    status: 429,
    code: 'misclassification_limit_reached',
    retryable: true,
    retryAfter: DAY,
    meaning: 'Messaging limit hit after template misclassification',
  },
  '132000': { status: 422, code: 'template_param_count_mismatch', retryable: false, field: components, meaning: 'Template parameter count mismatch' },
  '132001': {
    status: 422,
    code: 'template_not_found',
    retryable: false,
    field: template,
    meaning: 'Template does not exist in this language or is not approved',
  },
  '132005': { status: 422, code: 'template_text_too_long', retryable: false, field: components, meaning: 'Hydrated template text too long' },
  '132007': { status: 422, code: 'template_policy_violation', retryable: false, field: components, meaning: 'Template content violates a policy' },
  '132008': { status: 422, code: 'template_param_value_invalid', retryable: false, field: components, meaning: 'Template parameter value not valid' },
  '132012': { status: 422, code: 'template_param_format_mismatch', retryable: false, field: components, meaning: 'Template parameter format mismatch' },
  '132015': { status: 409, code: 'template_paused', retryable: false, field: template, meaning: 'Template paused' },
  '132016': { status: 409, code: 'template_disabled', retryable: false, field: template, meaning: 'Template disabled' },
  '132018': {
    status: 422,
    code: 'template_param_config_invalid',
    retryable: false,
    field: components,
    meaning: 'Template parameter configuration not valid (Marketing Messages API)',
  },
  '132068': { status: 409, code: 'flow_blocked', retryable: false, meaning: 'The flow is blocked' },
  '132069': {
    status: 429,
    code: 'flow_throttled',
    retryable: true,
    retryAfter: HOUR,
    meaning: 'The flow is throttled (10 messages with it in the last hour)',
  },
  '133000': {
    status: 503,
    code: 'registration_incomplete',
    retryable: true,
    meaning: 'A previous deregistration of the number did not complete; deregister, then register again',
  },
  '133004': {
    status: 503,
    code: 'registration_temporarily_unavailable',
    retryable: true,
    transient: true,
    meaning: 'Registration server temporarily unavailable',
  },
  '133005': { status: 409, code: 'two_step_pin_mismatch', retryable: false, meaning: 'The two-step verification PIN does not match the one set on the number' },
  '133006': { status: 409, code: 'phone_reverification_required', retryable: false, meaning: 'The number must be verified again before it can be registered' },
  '133008': {
    status: 429,
    code: 'two_step_pin_guesses_exceeded',
    retryable: true,
    retryAfter: HOUR,
    meaning: 'Too many two-step verification PIN guesses for the number',
  },
  '133009': { status: 429, code: 'two_step_pin_too_fast', retryable: true, retryAfter: 60, meaning: 'Two-step verification PIN entered too quickly' },
  '133010': { status: 409, code: 'phone_number_not_registered', retryable: false, meaning: 'Business number not registered' },
  '133015': {
    status: 429,
    code: 'register_wait_required',
    retryable: true,
    retryAfter: 300,
    meaning: 'The number was deleted recently; wait before registering it',
  },
  '133016': {
    status: 429,
    code: 'register_attempts_exceeded',
    retryable: true,
    retryAfter: DAY,
    meaning: 'Too many register/deregister attempts for the number',
  },
  '134100': {
    status: 409,
    code: 'template_not_marketing',
    retryable: false,
    field: template,
    meaning: 'Not a marketing template: the Marketing Messages API sends marketing templates only',
  },
  '134101': {
    status: 409,
    code: 'template_syncing',
    retryable: true,
    retryAfter: 600,
    field: template,
    meaning: 'The template is still syncing to the Marketing Messages API',
  },
  '134102': {
    status: 409,
    code: 'template_or_user_ineligible',
    retryable: false,
    meaning: 'The template is unavailable, or the user ineligible, for the Marketing Messages API',
  },
  '135000': { status: 422, code: 'provider_generic_user_error', retryable: false, field: ['body'], meaning: 'Generic user error' },
  '137000': {
    status: 409,
    code: 'recipient_identity_changed',
    retryable: false,
    field: to,
    meaning: "The recipient's identity key hash does not match (the user's identity changed)",
  },
  '138000': { status: 409, code: 'calling_not_enabled', retryable: false, meaning: 'Calling not enabled on this number' },
  '138001': { status: 422, code: 'call_receiver_invalid', retryable: false, field: ['body', 'call_id'], meaning: 'Receiver cannot be called' },
  '138002': { status: 429, code: 'concurrent_call_limit', retryable: true, retryAfter: 60, meaning: 'Concurrent call limit of the number' },
  '138003': {
    status: 409,
    code: 'call_already_ongoing',
    retryable: false,
    meaning: 'A call with this user is already ongoing (or the call was already answered)',
  },
  '138004': { status: 502, code: 'call_connection_error', retryable: true, meaning: 'Call connection error (check the SDP)' },
  '138005': { status: 429, code: 'call_rate_limited', retryable: true, retryAfter: 60, meaning: 'Call rate limit' },
  '138006': { status: 409, code: 'call_permission_missing', retryable: false, meaning: 'No approved call permission from the user' },
  '138007': { status: 502, code: 'call_connect_timeout', retryable: true, meaning: 'Call connect timeout (the SDP was not applied in time)' },
  '138009': {
    status: 429,
    code: 'call_permission_request_limit',
    retryable: true,
    retryAfter: DAY,
    meaning: 'Call permission request limit for this user reached',
  },
  '138012': {
    status: 429,
    code: 'business_call_limit_reached',
    retryable: true,
    retryAfter: DAY,
    meaning: 'Limit of connected business-initiated calls to this user in 24 hours',
  },
  '138013': { status: 409, code: 'business_calling_unavailable', retryable: false, meaning: 'Business-initiated calling is not available' },
  '138014': { status: 409, code: 'calling_disabled_low_quality', retryable: false, meaning: 'Calling disabled for low quality' },
  '138015': { status: 409, code: 'calling_needs_messaging_limit', retryable: false, meaning: 'Calling cannot be enabled: the messaging limit is below 2,000' },
  '138017': { status: 409, code: 'call_permission_already_permanent', retryable: false, meaning: 'The user already granted a permanent call permission' },
  '138018': { status: 409, code: 'calling_cannot_be_enabled', retryable: false, meaning: 'Calling cannot be enabled' },
  '138019': { status: 502, code: 'call_setup_failed', retryable: false, meaning: 'Call setup failed (a call terminate webhook reports it)' },
  '138020': { status: 502, code: 'call_relay_failed', retryable: false, meaning: 'Call relay failed (a call terminate webhook reports it)' },
  '138021': {
    status: 502,
    code: 'call_media_receive_timeout',
    retryable: false,
    meaning: 'No call media received in time (a call terminate webhook reports it)',
  },
  '138022': { status: 502, code: 'call_media_send_timeout', retryable: false, meaning: 'No call media sent in time (a call terminate webhook reports it)' },
  '138023': {
    status: 502,
    code: 'call_accepted_without_media',
    retryable: false,
    meaning: 'The call was accepted but no media flowed (a call terminate webhook reports it)',
  },
  '139000': { status: 409, code: 'flow_blocked_by_integrity', retryable: false, meaning: 'Flow blocked by integrity' },
  '139001': { status: 409, code: 'flow_not_draft', retryable: false, meaning: 'Flow cannot be updated (not a draft)' },
  '139002': { status: 409, code: 'flow_not_publishable', retryable: false, meaning: 'Flow cannot be published' },
  '139003': { status: 409, code: 'flow_not_published', retryable: false, meaning: 'Flow cannot be deprecated (not published)' },
  '139004': { status: 409, code: 'flow_not_draft', retryable: false, meaning: 'Published flow cannot be deleted' },
  '139100': { status: 502, code: 'block_users_failed', retryable: false, meaning: 'Some or all users could not be blocked/unblocked' },
  '139101': { status: 409, code: 'blocklist_full', retryable: false, meaning: 'Blocklist full' },
  '139102': { status: 409, code: 'blocklist_concurrent_update', retryable: true, meaning: 'Blocklist changed during paging' },
  '139103': { status: 503, code: 'provider_service_unavailable', retryable: true, transient: true, meaning: 'Internal blocklist error' },
  '147001': { status: 409, code: 'username_unavailable', retryable: false, meaning: 'The business username is not available' },
  '147002': { status: 409, code: 'username_messaging_limit_too_low', retryable: false, meaning: 'The messaging limit is too low for a business username' },
  '147003': {
    status: 409,
    code: 'username_needs_facebook_page',
    retryable: false,
    meaning: 'Link the number to the Facebook Page that owns the username first',
  },
  '147004': {
    status: 409,
    code: 'username_needs_instagram_account',
    retryable: false,
    meaning: 'Link the number to the Instagram account that owns the username first',
  },
  '147005': {
    status: 409,
    code: 'username_used_by_other_number',
    retryable: false,
    meaning: 'Another number of the portfolio uses the username (transfer it with force_transfer)',
  },
  '1752041': {
    status: 409,
    code: 'marketing_messages_onboarding_already_requested',
    retryable: false,
    meaning: 'Marketing Messages API onboarding was already requested for this business',
  },
};

/** Any other code: the provider refused, for a reason the gateway has no rule for. */
export const DEFAULT_RULE: ErrorRule = { status: 502, code: 'provider_error', retryable: false, meaning: 'Any other provider error' };

export function ruleFor(code: number | null, subcode: number | null): ErrorRule {
  if (code === null) return DEFAULT_RULE;
  if (subcode !== null && ERROR_RULES[`${code}/${subcode}`]) return ERROR_RULES[`${code}/${subcode}`];
  if (code >= 200 && code <= 299) return ERROR_RULES['200'];
  return ERROR_RULES[String(code)] ?? DEFAULT_RULE;
}
