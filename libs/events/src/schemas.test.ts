import Ajv2020 from 'ajv/dist/2020';
import AjvDraft07 from 'ajv';
import { buildEvent, EVENT_TYPES, type EventInput, type EventType } from './envelope';
import { eventEnvelopeSchema, eventHeadersSchema, eventPayloadSchemas, eventSchema, type JsonSchema } from './schemas';

const TENANT = '5b0c7a2e-8a51-4d8e-9a43-0f3c2d1e6b77';
const CLIENT = '0e9f6c1a-3b7d-4c2e-8f5a-6d4b2a1c9e88';

/** A payload of each type as the code that emits it writes it (adding a type without one fails to compile). */
const SAMPLES: Record<EventType, EventInput['payload']> = {
  chat: {
    raw: JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '102290129340398',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
                contacts: [{ profile: { name: 'Sheena Nelson' }, wa_id: '16505551234' }],
                messages: [
                  {
                    from: '16505551234',
                    id: 'wamid.HBgLMTY1MDM4Nzk0MzkVAgASGBQzQTRBNjU5OUFFRTAzODEwMTQ0RgA=',
                    timestamp: '1749416383',
                    type: 'text',
                    text: { body: 'Does it come in another color?' },
                  },
                ],
              },
            },
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550783881', phone_number_id: '106540352242922' },
                statuses: [
                  {
                    id: 'wamid.HBgLMTY1MDUwNzY1MjAVAgARGBI5QTNDQTVCM0Q0Q0Q2RTY3RTcA',
                    status: 'delivered',
                    timestamp: '1750263773',
                    recipient_id: '16505551234',
                  },
                ],
              },
            },
          ],
        },
      ],
    }),
  },
  signup_completed: {
    business_account_id: '102290129340398',
    phone_number_id: '106540352242922',
    catalog_id: null,
    provider_business_id: '2729063490586005',
    signup_status: 'completed',
  },
  template_status: { template_id: '806312974732579', template_name: 'order_confirmation', language: 'en_US', status: 'REJECTED', reason: 'INVALID_FORMAT' },
  flow_completion: {
    message_id: 'wamid.HBgLMTY0NjcwNDM1OTUVAgASGBQzQUFFQjg5QjRGNzk3NjI1NUE1RQA=',
    from: '16505551234',
    token: 'booking-42',
    response: { date: '2026-12-01', guests: 2 },
  },
  test: { test: true, requested_at: new Date().toISOString() },
  campaign_status: {
    campaign_id: '0b7c1e0e-4f43-4b4e-9a43-7b1f2f0b5a11',
    name: 'Spring sale',
    event: 'completed',
    status: 'completed',
    counts: { total: 3, queued: 0, sent: 0, delivered: 1, read: 1, failed: 0, skipped: 1, deferred: 0, unknown: 0 },
  },
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
function validators() {
  // both dialects the schemas are used in: 2020-12 (OpenAPI 3.1 webhooks) and draft-07 (AsyncAPI 3.0's default)
  return [new Ajv2020({ strict: true, allErrors: true }), new AjvDraft07({ strict: true, allErrors: true })].map((ajv) => {
    ajv.addFormat('uuid', UUID);
    ajv.addFormat('date-time', {
      validate: (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s) && !Number.isNaN(Date.parse(s)),
    });
    return ajv;
  });
}

const event = (type: EventType, payload = SAMPLES[type], externalId: string | null = 'crm-7') =>
  buildEvent({ type, tenantId: TENANT, clientId: CLIENT, externalId, payload });

describe.each(validators().map((ajv) => [ajv.constructor.name, ajv] as const))('event schemas under %s', (_name, ajv) => {
  const check = (schema: JsonSchema, data: unknown) => {
    const validate = ajv.compile(schema);
    const ok = validate(data);
    return { ok, errors: ajv.errorsText(validate.errors) };
  };

  it.each([...EVENT_TYPES])('a real %s event (body and bus headers) matches its schema, the envelope and its payload schema', (type) => {
    for (const externalId of ['crm-7', null]) {
      const e = event(type, SAMPLES[type], externalId);
      const body = JSON.parse(e.body) as { payload: unknown };
      for (const [schema, data] of [
        [eventSchema(type), body],
        [eventEnvelopeSchema, body],
        [eventPayloadSchemas[type], body.payload],
        [eventHeadersSchema, e.headers],
      ] as const) {
        expect(check(schema, data)).toEqual({ ok: true, errors: 'No errors' });
      }
    }
  });

  it('an event of one type does not pass as another', () => {
    for (const type of EVENT_TYPES) {
      for (const other of EVENT_TYPES.filter((t) => t !== type)) {
        expect(check(eventSchema(other), JSON.parse(event(type).body)).ok).toBe(false);
      }
    }
  });

  it('refuses what the code does not write: missing and extra fields, wrong types, unknown types', () => {
    const body = (type: EventType) => JSON.parse(event(type).body) as Record<string, unknown> & { payload: Record<string, unknown> };
    const cases: Array<[EventType, (b: ReturnType<typeof body>) => void, string]> = [
      ['signup_completed', (b) => delete b.payload.phone_number_id, "must have required property 'phone_number_id'"],
      ['signup_completed', (b) => (b.payload.signup_status = 'pending'), 'must be equal to constant'],
      ['template_status', (b) => (b.payload.rejected_at = 'now'), 'must NOT have additional properties'],
      ['template_status', (b) => (b.payload.reason = 7), 'must be string,null'],
      ['flow_completion', (b) => (b.payload.response = '{"a":1}'), 'must be object'],
      ['test', (b) => (b.payload.requested_at = 'yesterday'), 'must match format "date-time"'],
      ['chat', (b) => delete b.payload.entry, "must have required property 'entry'"],
      ['chat', (b) => (b.payload.entry = {}), 'must be array'],
      ['chat', (b) => (b.client_id = 'not-a-uuid'), 'must match format "uuid"'],
      ['chat', (b) => delete b.external_id, "must have required property 'external_id'"],
      ['chat', (b) => (b.event_id = 'x'), 'must NOT have additional properties'],
    ];
    for (const [type, mutate, message] of cases) {
      const b = body(type);
      mutate(b);
      const result = check(eventSchema(type), b);
      expect(result.ok).toBe(false);
      expect(result.errors).toContain(message);
    }
    const unknownType = { ...body('test'), type: 'order_paid' };
    expect(check(eventEnvelopeSchema, unknownType).errors).toContain('must be equal to one of the allowed values');
    const headers = { ...event('test').headers };
    delete headers['X-Event-Id'];
    expect(check(eventHeadersSchema, headers).errors).toContain("must have required property 'X-Event-Id'");
  });
});

describe('event schemas as shared values', () => {
  it('cover exactly the event types the gateway emits', () => {
    expect(Object.keys(eventPayloadSchemas).sort()).toEqual([...EVENT_TYPES].sort());
    expect((eventEnvelopeSchema.properties as { type: { enum: string[] } }).type.enum).toEqual([...EVENT_TYPES]);
  });

  it('are frozen, and eventSchema hands out copies', () => {
    expect(() => ((eventPayloadSchemas.test as { title: string }).title = 'x')).toThrow(TypeError);
    const a = eventSchema('test') as { title: string };
    a.title = 'changed';
    expect((eventSchema('test') as { title: string }).title).toBe('TestEvent');
  });

  it('use no keyword that would tie them to one document (refs, ids, dialect)', () => {
    const text = JSON.stringify([eventEnvelopeSchema, eventHeadersSchema, ...EVENT_TYPES.map(eventSchema)]);
    expect(text).not.toMatch(/"\$(ref|id|schema|defs|anchor|dynamicRef)"/);
  });
});
