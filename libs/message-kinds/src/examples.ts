import type { SendingClient } from './kind';

/*
 * The world every kind's examples are written for. The end-to-end test builds it in the provider simulator (a
 * number whose account links this catalog, a media of that number with this id, these flows, these templates
 * approved, the recipient inside the 24-hour window), so each example's payload is exactly what the provider receives.
 */

/** The recipient of every example. */
export const EXAMPLE_TO = '+16505551234';

/** The client every example is sent by. */
export const EXAMPLE_CLIENT: Required<SendingClient> = { catalogId: '900000000000001' };

/** A media id of the sending number (uploaded or received). */
export const EXAMPLE_MEDIA_ID = '1234567890';

/** The flows of the sending number's business account the examples send: one published, one draft. */
export const EXAMPLE_FLOWS = { published: '1197715005513101', draft: '1197715005513102' } as const;

/** The approved template the examples send, as the provider holds it (`POST /{waba-id}/message_templates`). */
export const EXAMPLE_TEMPLATE = {
  name: 'order_confirmation',
  language: 'en_US',
  category: 'UTILITY',
  components: [
    { type: 'BODY', text: 'Thanks {{1}}', example: { body_text: [['Ann']] } },
    { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Track it' }] },
  ],
};

/**
 * The named-parameter template of the examples: the provider's own custom marketing example
 * (`welcome_discount_template`, provider-2026.md §6.1), as created, with an image header.
 */
export const EXAMPLE_NAMED_TEMPLATE = {
  name: 'welcome_discount_template',
  language: 'en_US',
  category: 'marketing',
  parameter_format: 'named',
  components: [
    { type: 'header', format: 'image', example: { header_handle: ['4::aW...'] } },
    {
      type: 'body',
      text: 'Welcome to Lucky Shrub, {{first_name}}!\n\nUse code *{{discount_code}}* to get {{discount_amount}} off of your first purchase!',
      example: {
        body_text_named_params: [
          { param_name: 'first_name', example: 'Pablo' },
          { param_name: 'discount_code', example: 'WELCOME20' },
          { param_name: 'discount_amount', example: '20%' },
        ],
      },
    },
    { type: 'footer', text: 'Lucky Shrub: Your gateway to succulents!' },
    {
      type: 'buttons',
      buttons: [
        { type: 'url', text: 'View deals', url: 'https://www.luckyshrub.com/deals' },
        { type: 'phone_number', text: 'Call us', phone_number: '+15550051310' },
        { type: 'quick_reply', text: 'Unsubscribe' },
      ],
    },
  ],
};

/** The authentication template of the examples: the provider's copy-code example (provider-2026.md §6.2). */
export const EXAMPLE_AUTH_TEMPLATE = {
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

/** The fields every example message starts with. */
export const EXAMPLE_ENVELOPE = { messaging_product: 'whatsapp', recipient_type: 'individual', to: EXAMPLE_TO } as const;
