import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';
import { EXAMPLE_NAMED_TEMPLATE } from '@gateway/message-kinds';
import { SimControl, startWebhookReceiver, waitFor, type WebhookReceiver } from '@gateway/testing';

/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON */

/*
 * The provider's own documented create bodies, copied as its pages and files give them (issue 25): each must be
 * accepted through the gateway and reach the provider byte for byte (plus nothing but what the tenant sent), and
 * what the provider refuses must be a 422 naming the field, with no provider call.
 */

/** Custom marketing templates page, "Example request" (named parameters, lower-case enums): the kinds' own example. */
const NAMED_MARKETING = EXAMPLE_NAMED_TEMPLATE;

/** provider-2026.md §6.1: a named utility template with a named header variable. */
const NAMED_UTILITY = {
  name: 'order_ready',
  language: 'en_US',
  category: 'UTILITY',
  parameter_format: 'NAMED',
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Order {{order_id}}', example: { header_text_named_params: [{ param_name: 'order_id', example: 'SKB-1' }] } },
    {
      type: 'BODY',
      text: 'Hi {{first_name}}, order {{order_id}} is ready.',
      example: {
        body_text_named_params: [
          { param_name: 'first_name', example: 'Jo' },
          { param_name: 'order_id', example: 'SKB-1' },
        ],
      },
    },
  ],
};

/** Authentication templates pages (and their SDK copies): one per OTP button type. */
const AUTH_COPY_CODE = {
  name: 'authentication_code_copy_code_button',
  language: 'en_US',
  category: 'AUTHENTICATION',
  message_send_ttl_seconds: 60,
  components: [
    { type: 'BODY', add_security_recommendation: true },
    { type: 'FOOTER', code_expiration_minutes: 5 },
    { type: 'BUTTONS', buttons: [{ type: 'OTP', otp_type: 'COPY_CODE', text: 'Copy Code' }] },
  ],
};
const AUTH_ONE_TAP = {
  name: 'authentication_code_autofill_button',
  language: 'en_US',
  category: 'AUTHENTICATION',
  message_send_ttl_seconds: 60,
  components: [
    { type: 'BODY', add_security_recommendation: true },
    { type: 'FOOTER', code_expiration_minutes: 10 },
    {
      type: 'BUTTONS',
      buttons: [
        {
          type: 'OTP',
          otp_type: 'ONE_TAP',
          text: 'Copy Code',
          autofill_text: 'Autofill',
          supported_apps: [
            { package_name: 'com.example.luckyshrub', signature_hash: 'K8a/AINcGX7' },
            { package_name: 'com.example.luckyshrub', signature_hash: 'K8a/AINcGX7' },
          ],
        },
      ],
    },
  ],
};
/** provider-2026.md §6.2's example (zero tap). */
const AUTH_ZERO_TAP = {
  name: 'otp_login',
  language: 'en_US',
  category: 'AUTHENTICATION',
  message_send_ttl_seconds: 60,
  components: [
    { type: 'BODY', add_security_recommendation: true },
    { type: 'FOOTER', code_expiration_minutes: 10 },
    {
      type: 'BUTTONS',
      buttons: [
        {
          type: 'OTP',
          otp_type: 'ZERO_TAP',
          text: 'Copy code',
          autofill_text: 'Autofill',
          zero_tap_terms_accepted: true,
          supported_apps: [{ package_name: 'com.example.app', signature_hash: 'K8a/AINcGX7' }],
        },
      ],
    },
  ],
};
/** The provider's OpenAPI file, "Create authentication template w/ OTP one-tap autofill button": the older one-app form. */
const AUTH_ONE_TAP_OPENAPI = {
  category: 'AUTHENTICATION',
  components: [
    { add_security_recommendation: true, type: 'BODY' },
    { code_expiration_minutes: 10, type: 'FOOTER' },
    {
      buttons: [
        {
          autofill_text: 'Autofill',
          otp_type: 'ONE_TAP',
          package_name: 'com.example.luckyshrub',
          signature_hash: 'K8a%2FAINcGX7',
          text: 'Copy Code',
          type: 'OTP',
        },
      ],
      type: 'BUTTONS',
    },
  ],
  language: 'en_US',
  name: 'authentication_code_autofill_button_openapi',
};
/** The provider's OpenAPI file, "Create multi-product message template" (a positional marketing template with an MPM button). */
const MULTI_PRODUCT = {
  category: 'MARKETING',
  components: [
    { example: { header_text: ['Pablo'] }, format: 'TEXT', text: 'Forget something {{1}}?', type: 'HEADER' },
    {
      example: { body_text: [['10OFF']] },
      text: 'Looks like you left some items in your cart! Use code {{1}} and you can get 10% off of all of them!',
      type: 'BODY',
    },
    { buttons: [{ text: 'View items', type: 'MPM' }], type: 'BUTTONS' },
  ],
  language: 'en_US',
  name: 'abandoned_cart',
};
/** The provider's OpenAPI file: a document header, a positional body, a phone number and a URL button (utility). */
const ORDER_CONFIRMATION = {
  category: 'UTILITY',
  components: [
    {
      example: { header_handle: ['4::YXBwbGljYXRpb24vcGRm:ARZVv4zuogJMxmAdS3_6T4o_K4ll2806avA7rWpikisTzYPsXXUeKk0REjS-hIM1rYrizHD7rQXj951TKgUFblgd'] },
      format: 'DOCUMENT',
      type: 'HEADER',
    },
    {
      example: { body_text: [['Mark', '860198-230332']] },
      text: 'Thank you for your order, {{1}}! Your order number is {{2}}. Tap the PDF linked above to view your receipt. If you have any questions, please use the buttons below to contact support. Thanks again!',
      type: 'BODY',
    },
    {
      buttons: [
        { phone_number: '16467043595', text: 'Call', type: 'PHONE_NUMBER' },
        { text: 'Contact Support', type: 'URL', url: 'https://www.examplesite.com/support' },
      ],
      type: 'BUTTONS',
    },
  ],
  language: 'en_US',
  name: 'order_confirmation_document',
};

const DOCUMENTED: Array<[string, Record<string, unknown>, string]> = [
  ['named marketing (custom marketing templates page)', NAMED_MARKETING, 'NAMED'],
  ['named utility with a named header (provider-2026.md §6.1)', NAMED_UTILITY, 'NAMED'],
  ['authentication, COPY_CODE button', AUTH_COPY_CODE, 'POSITIONAL'],
  ['authentication, ONE_TAP button with two apps', AUTH_ONE_TAP, 'POSITIONAL'],
  ['authentication, ZERO_TAP button (provider-2026.md §6.2)', AUTH_ZERO_TAP, 'POSITIONAL'],
  ["authentication, ONE_TAP with the OpenAPI file's one app on the button", AUTH_ONE_TAP_OPENAPI, 'POSITIONAL'],
  ['marketing multi-product (OpenAPI file)', MULTI_PRODUCT, 'POSITIONAL'],
  ['utility with a document header (OpenAPI file)', ORDER_CONFIRMATION, 'POSITIONAL'],
];

describe("templates of every documented shape: the provider's examples go through unchanged, what it refuses is a 422 first", () => {
  let stack: Stack;
  let sim: SimControl;
  let receiver: WebhookReceiver;
  let api: ApiClient;
  let phone: { phone_number_id: string; waba_id: string; access_token: string };
  let clientId: string;
  const to = '+16505551234';

  const createCalls = async () => (await sim.calls(`/${phone.waba_id}/message_templates`)).filter((c) => c.method === 'POST');
  const approved = async (id: string) => {
    await sim.setTemplateStatus(id, 'APPROVED');
    await waitFor(async () => ((await api.get(`/api/templates/${id}?client_id=${clientId}`)).json as any).status === 'APPROVED', {
      what: 'the APPROVED record',
    });
  };
  const send = (body: Record<string, unknown>) => api.post('/api/messaging/send-template', { client_id: clientId, to, lang: 'en_US', ...body });

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'dispatcher', 'edge'] });
    sim = new SimControl(stack.sim!.url);
    receiver = await startWebhookReceiver();
    ({ api } = await stack.createTenant({ webhook_url: receiver.url }));
    phone = await sim.phoneNumber();
    const client = await api.post('/api/clients/', {
      display_name: 'Lucky Shrub',
      business_account_id: phone.waba_id,
      phone_number_id: phone.phone_number_id,
      access_token: phone.access_token,
    });
    clientId = (client.json as any).id;
    await sim.templateReview({ mode: 'manual' });
  }, 90_000);
  afterAll(async () => {
    await receiver?.close();
    await stack?.stop();
  });
  beforeEach(() => sim.reset());

  it.each(DOCUMENTED)('%s: accepted, and the provider receives exactly the example', async (_name, example, format) => {
    const res = await api.post('/api/templates', { client_id: clientId, ...example });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      name: example.name,
      category: String(example.category).toUpperCase(),
      status: 'PENDING',
      parameter_format: format,
      components: example.components,
    });
    const [call] = await createCalls();
    // nothing added, renamed, dropped or re-cased on the way; the components byte for byte, their keys' order included
    expect(call.body).toStrictEqual(example);
    expect(JSON.stringify((call.body as any).components)).toBe(JSON.stringify(example.components));
  });

  it.each([
    [
      'variables not numbered 1 to n',
      {
        name: 'gaps',
        language: 'en_US',
        category: 'UTILITY',
        components: [{ type: 'BODY', text: 'Hi {{1}}, see {{3}}', example: { body_text: [['a', 'b']] } }],
      },
      ['body', 'components', '0', 'text'],
      'variables_not_sequential',
    ],
    [
      'named variables without parameter_format',
      { ...NAMED_UTILITY, name: 'named_unmarked', parameter_format: undefined },
      ['body', 'parameter_format'],
      'named_variables_need_parameter_format',
    ],
    [
      'an authentication body with a text of its own',
      { ...AUTH_COPY_CODE, name: 'auth_text', components: [{ type: 'BODY', text: 'Your code is {{1}}' }, AUTH_COPY_CODE.components[2]] },
      ['body', 'components', '0', 'text'],
      'authentication_body_text',
    ],
    [
      'an authentication template without an OTP button',
      { ...AUTH_COPY_CODE, name: 'auth_no_button', components: [AUTH_COPY_CODE.components[0], AUTH_COPY_CODE.components[1]] },
      ['body', 'components'],
      'otp_button_missing',
    ],
    [
      'a named variable without its example',
      {
        ...NAMED_UTILITY,
        name: 'named_missing_example',
        components: [
          { type: 'BODY', text: 'Hi {{first_name}}, order {{order_id}}', example: { body_text_named_params: [{ param_name: 'first_name', example: 'Jo' }] } },
        ],
      },
      ['body', 'components', '0', 'example', 'body_text_named_params'],
      'named_example_mismatch',
    ],
    [
      'a zero-tap button without the zero-tap terms accepted',
      {
        ...AUTH_ZERO_TAP,
        name: 'zero_tap_terms',
        components: [
          AUTH_ZERO_TAP.components[0],
          { type: 'BUTTONS', buttons: [{ type: 'OTP', otp_type: 'ZERO_TAP', supported_apps: [{ package_name: 'a.b', signature_hash: 'K8a/AINcGX7' }] }] },
        ],
      },
      ['body', 'components', '1', 'buttons', '0', 'zero_tap_terms_accepted'],
      'missing',
    ],
    [
      'an OTP button on a marketing template',
      {
        ...MULTI_PRODUCT,
        name: 'otp_marketing',
        components: [MULTI_PRODUCT.components[1], { type: 'BUTTONS', buttons: [{ type: 'OTP', otp_type: 'COPY_CODE' }] }],
      },
      ['body', 'components', '1', 'buttons', '0', 'type'],
      'otp_button_not_allowed',
    ],
    [
      "an authentication template's time-to-live over 15 minutes",
      { ...AUTH_COPY_CODE, name: 'auth_ttl', message_send_ttl_seconds: 3600 },
      ['body', 'message_send_ttl_seconds'],
      'ttl_out_of_range',
    ],
  ])('%s is a 422 naming the field, with no provider call', async (_name, body, loc, type) => {
    const res = await api.post('/api/templates', { client_id: clientId, ...body });
    expect(res.status).toBe(422);
    expect((res.json as any).detail[0]).toMatchObject({ loc, type });
    expect(await createCalls()).toHaveLength(0);
  });

  it('a NAMED template is sent with parameter_name in any order; wrong or missing names are a 422 before the provider', async () => {
    const created = (await api.post('/api/templates', { client_id: clientId, ...NAMED_UTILITY, name: 'order_ready_send' })).json as any;
    await approved(created.id);
    await sim.inboundMessage(phone.phone_number_id, to, 'text', { body: 'hi' });
    const components = [
      { type: 'header', parameters: [{ type: 'text', parameter_name: 'order_id', text: 'SKB-1' }] },
      {
        type: 'body',
        parameters: [
          { type: 'text', parameter_name: 'order_id', text: 'SKB-1' },
          { type: 'text', parameter_name: 'first_name', text: 'Jo' },
        ],
      },
    ];
    const ok = await send({ template_name: 'order_ready_send', components });
    expect(ok.status).toBe(200);
    const [message] = await sim.calls('/messages');
    expect((message.body as any).template.components).toEqual(components);

    await sim.reset();
    const misnamed = await send({
      template_name: 'order_ready_send',
      components: [components[0], { type: 'body', parameters: [components[1].parameters[0], { type: 'text', parameter_name: 'name', text: 'Jo' }] }],
    });
    expect(misnamed.status).toBe(422);
    expect(misnamed.json).toMatchObject({
      code: 'template_param_name_mismatch',
      detail: [{ loc: ['body', 'components', '1', 'parameters', '1', 'parameter_name'], type: 'template_param_name_mismatch' }],
    });
    const positional = await send({
      template_name: 'order_ready_send',
      components: [
        { type: 'header', parameters: [{ type: 'text', text: 'SKB-1' }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Jo' },
            { type: 'text', text: 'SKB-1' },
          ],
        },
      ],
    });
    expect([positional.status, (positional.json as any).code]).toEqual([422, 'template_param_name_mismatch']);
    // mixing both in one component is refused by the edge itself
    const mixed = await send({
      template_name: 'order_ready_send',
      components: [components[0], { type: 'body', parameters: [components[1].parameters[0], { type: 'text', text: 'Jo' }] }],
    });
    expect((mixed.json as any).detail[0]).toMatchObject({ loc: ['body', 'components', '1', 'parameters', '1'], type: 'parameter_names_mixed' });
    expect(await sim.calls('/messages')).toHaveLength(0);
  });

  it('an authentication template sends its code in the body and its OTP button, before and after a sync shows the button as a URL', async () => {
    const created = (await api.post('/api/templates', { client_id: clientId, ...AUTH_ZERO_TAP, name: 'otp_login_send' })).json as any;
    await approved(created.id);
    const code = [
      { type: 'body', parameters: [{ type: 'text', text: '482910' }] },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '482910' }] },
    ];
    // templates go outside the 24-hour window: this recipient never wrote
    const first = await send({ to: '+16505550777', template_name: 'otp_login_send', components: code });
    expect(first.status).toBe(200);
    const noButton = await send({ to: '+16505550777', template_name: 'otp_login_send', components: [code[0]] });
    expect([noButton.status, (noButton.json as any).code]).toEqual([422, 'template_param_count_mismatch']);
    // a code is at most 15 characters (provider-2026.md §6.2)
    const long = '1234567890123456';
    const tooLong = await send({
      to: '+16505550777',
      template_name: 'otp_login_send',
      components: [
        { type: 'body', parameters: [{ type: 'text', text: long }] },
        { ...code[1], parameters: [{ type: 'text', text: long }] },
      ],
    });
    expect(tooLong.status).toBe(422);
    expect((tooLong.json as any).detail[0]).toMatchObject({
      loc: ['body', 'components', '0', 'parameters', '0', 'text'],
      type: 'template_param_value_invalid',
    });

    expect((await api.post('/api/templates/sync', { client_id: clientId })).status).toBe(200);
    const synced = (await api.get(`/api/templates/${created.id}?client_id=${clientId}`)).json as any;
    expect(synced.components[2].buttons[0]).toMatchObject({ type: 'URL', url: expect.stringMatching(/otp_type=ZERO_TAP.*\{\{1\}\}$/) });
    expect(synced.components[0].text).toMatch(/is your verification code/);
    expect((await send({ to: '+16505550777', template_name: 'otp_login_send', components: code })).status).toBe(200);
    expect((await sim.calls('/messages')).filter((c) => c.method === 'POST')).toHaveLength(2);
  });

  it("classifies the provider's template creation limit (100 an hour per business account): a 429 with Retry-After", async () => {
    await sim.templateReview({ creations_per_hour: 1 });
    try {
      const res = await api.post('/api/templates', { client_id: clientId, ...NAMED_UTILITY, name: 'over_the_limit' });
      expect(res.status).toBe(429);
      expect(res.json).toMatchObject({ code: 'provider_waba_rate_limited', retryable: true, provider_error: { code: 80007 } });
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await sim.templateReview({ creations_per_hour: 100 });
    }
  });
});
