import Ajv2020 from 'ajv/dist/2020';
import { eventPayloadSchemas } from '@gateway/events';
import { flowCompletions, statusUpdates, templateStatus } from './derive';

describe('events derived from provider changes', () => {
  it('flow_completion: token from flow_token inside response_json, response is the rest', () => {
    const change = {
      field: 'messages',
      value: {
        messages: [
          {
            from: '16505551234',
            id: 'wamid.F',
            type: 'interactive',
            interactive: {
              type: 'nfm_reply',
              nfm_reply: { name: 'flow', body: 'Sent', response_json: '{"flow_token":"tok-1","date":"2026-12-01","party":2}' },
            },
          },
          { from: '16505551234', id: 'wamid.T', type: 'text', text: { body: 'hi' } },
          { from: '16505551234', id: 'wamid.B', type: 'interactive', interactive: { type: 'nfm_reply', nfm_reply: { response_json: 'not json' } } },
        ],
      },
    };
    expect(flowCompletions(change)).toEqual([{ message_id: 'wamid.F', from: '16505551234', token: 'tok-1', response: { date: '2026-12-01', party: 2 } }]);
  });

  it('template_status: the fields of spec 6.2, with reason NONE as null', () => {
    const value = {
      event: 'APPROVED',
      message_template_id: 1689556908129832,
      message_template_name: 'order_confirmation',
      message_template_language: 'en-US',
      reason: 'NONE',
    };
    expect(templateStatus({ field: 'message_template_status_update', value })).toEqual({
      template_id: '1689556908129832',
      template_name: 'order_confirmation',
      language: 'en-US',
      status: 'APPROVED',
      reason: null,
    });
    expect(templateStatus({ field: 'message_template_status_update', value: { ...value, event: 'REJECTED', reason: 'INVALID_FORMAT' } })).toMatchObject({
      status: 'REJECTED',
      reason: 'INVALID_FORMAT',
    });
    expect(templateStatus({ field: 'messages', value })).toBeUndefined();
  });

  it('status updates keep the conversation (expiry as ISO 8601) and the pricing', () => {
    const change = {
      field: 'messages',
      value: {
        statuses: [
          {
            id: 'wamid.2',
            status: 'sent',
            timestamp: '1750857384',
            conversation: { id: 'c1', expiration_timestamp: '1750943820', origin: { type: 'service' } },
            pricing: { billable: false, pricing_model: 'PMP', category: 'service', type: 'free_customer_service' },
          },
        ],
      },
    };
    expect(statusUpdates(change)).toEqual([
      {
        messageId: 'wamid.2',
        status: 'sent',
        at: new Date(1750857384000),
        conversation: { id: 'c1', origin_type: 'service', expires_at: new Date(1750943820000).toISOString() },
        pricing: { category: 'service', billable: false, pricing_model: 'PMP', type: 'free_customer_service' },
      },
    ]);
  });

  it('status updates with their time and errors, played included (a voice message); unknown statuses are ignored', () => {
    const errors = [{ code: 131026, title: 'Message undeliverable' }];
    const change = {
      field: 'messages',
      value: {
        statuses: [
          { id: 'wamid.1', status: 'delivered', timestamp: '1750857384' },
          { id: 'wamid.1', status: 'failed', timestamp: '1750857385', errors },
          { id: 'wamid.2', status: 'played', timestamp: '1750857386' },
          { id: 'wamid.1', status: 'deleted', timestamp: '1' },
        ],
      },
    };
    expect(statusUpdates(change)).toEqual([
      { messageId: 'wamid.1', status: 'delivered', at: new Date(1750857384000) },
      { messageId: 'wamid.1', status: 'failed', at: new Date(1750857385000), errors },
      { messageId: 'wamid.2', status: 'played', at: new Date(1750857386000) },
    ]);
  });

  it("a failure's errors given only in the value's errors are the failure's; the status's own win", () => {
    const valueErrors = [{ code: 131047, title: 'Re-engagement message' }];
    const own = [{ code: 131026, title: 'Message undeliverable' }];
    const change = (status: Record<string, unknown>) => ({
      field: 'messages',
      value: { statuses: [{ id: 'wamid.1', timestamp: '1750857385', ...status }], errors: valueErrors },
    });
    expect(statusUpdates(change({ status: 'failed' }))[0].errors).toEqual(valueErrors);
    expect(statusUpdates(change({ status: 'failed', errors: own }))[0].errors).toEqual(own);
    expect(statusUpdates(change({ status: 'sent' }))[0].errors).toBeUndefined();
  });
});

describe('derived payloads match the published event schemas (@gateway/events)', () => {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  const flow = ajv.compile(eventPayloadSchemas.flow_completion);
  const template = ajv.compile(eventPayloadSchemas.template_status);

  it('flow_completion, also from a reply without id, sender or token', () => {
    const messages = [
      {
        from: '16505551234',
        id: 'wamid.F',
        type: 'interactive',
        interactive: { type: 'nfm_reply', nfm_reply: { response_json: '{"flow_token":"tok-1","date":"2026-12-01","party":{"adults":2}}' } },
      },
      { type: 'interactive', interactive: { type: 'nfm_reply', nfm_reply: { response_json: '{"flow_token":7}' } } },
    ];
    const payloads = flowCompletions({ field: 'messages', value: { messages } });
    expect(payloads).toHaveLength(2);
    for (const p of payloads) expect([flow(p), ajv.errorsText(flow.errors)]).toEqual([true, 'No errors']);
  });

  it('template_status, also from an update missing its id, name, language and event', () => {
    for (const value of [
      {
        event: 'APPROVED',
        message_template_id: 1689556908129832,
        message_template_name: 'order_confirmation',
        message_template_language: 'en-US',
        reason: 'NONE',
      },
      { event: 'REJECTED', message_template_id: '1', message_template_name: 'x', message_template_language: 'de', reason: 'INVALID_FORMAT' },
      {},
    ]) {
      const p = templateStatus({ field: 'message_template_status_update', value });
      expect([template(p), ajv.errorsText(template.errors)]).toEqual([true, 'No errors']);
    }
  });
});
