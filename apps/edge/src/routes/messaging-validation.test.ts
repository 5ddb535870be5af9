import { randomUUID } from 'node:crypto';
import type { ValidationIssue } from '@gateway/errors';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';

type Issue = ValidationIssue;

describe('messaging limits are enforced at the edge, before any service or provider call', () => {
  let stack: Stack;
  let api: ApiClient;
  const clientId = randomUUID();
  const to = '+16505551234';

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'messaging', 'edge'], sim: false });
    ({ api } = await stack.createTenant());
  });
  afterAll(() => stack.stop());

  const buttons = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `b${i}`, title: `Button ${i}` }));
  const validButtons = { client_id: clientId, to, body: { type: 'text', text: 'Pick one' }, buttons: buttons(2) };

  async function issues(path: string, body: unknown, headers?: Record<string, string>): Promise<Issue[]> {
    const res = await api.post(path, body, headers);
    expect(res.status).toBe(422);
    const detail = (res.json as { detail: Issue[] }).detail;
    for (const d of detail) expect(Object.keys(d).sort()).toEqual(['ctx', 'input', 'loc', 'msg', 'type']);
    return detail;
  }

  const cases: Array<[string, string, unknown, string[], string]> = [
    ['4 buttons', '/api/messaging/send-buttons', { ...validButtons, buttons: buttons(4) }, ['body', 'buttons'], 'too_many_items'],
    ['a 21-character button title', '/api/messaging/send-buttons', { ...validButtons, buttons: [{ id: 'a', title: 'x'.repeat(21) }] }, ['body', 'buttons', '0', 'title'], 'too_long'],
    ['duplicate button ids', '/api/messaging/send-buttons', { ...validButtons, buttons: [{ id: 'a', title: 'A' }, { id: 'a', title: 'B' }] }, ['body', 'buttons', '1', 'id'], 'duplicate_item'],
    ['duplicate button titles', '/api/messaging/send-buttons', { ...validButtons, buttons: [{ id: 'a', title: 'A' }, { id: 'b', title: 'A' }] }, ['body', 'buttons', '1', 'title'], 'duplicate_item'],
    ['no buttons', '/api/messaging/send-buttons', { ...validButtons, buttons: [] }, ['body', 'buttons'], 'too_short'],
    ['buttons as a string', '/api/messaging/send-buttons', { ...validButtons, buttons: 'yes,no' }, ['body', 'buttons'], 'list_type'],
    ['a 1025-character body', '/api/messaging/send-buttons', { ...validButtons, body: { type: 'text', text: 'x'.repeat(1025) } }, ['body', 'body', 'text'], 'too_long'],
    ['a 61-character text header', '/api/messaging/send-buttons', { ...validButtons, header: { type: 'text', text: 'x'.repeat(61) } }, ['body', 'header', 'text'], 'too_long'],
    ['a media header without url', '/api/messaging/send-buttons', { ...validButtons, header: { type: 'image' } }, ['body', 'header', 'url'], 'missing'],
    ['a filename on an image header', '/api/messaging/send-buttons', { ...validButtons, header: { type: 'image', url: 'https://x.test/a.png', filename: 'a.png' } }, ['body', 'header', 'filename'], 'extra_forbidden'],
    ['an http media header', '/api/messaging/send-buttons', { ...validButtons, header: { type: 'video', url: 'http://x.test/a.mp4' } }, ['body', 'header', 'url'], 'url_scheme'],
    ['a 61-character footer', '/api/messaging/send-buttons', { ...validButtons, footer: 'x'.repeat(61) }, ['body', 'footer'], 'too_long'],
    ['a recipient that is not a number', '/api/messaging/send-buttons', { ...validButtons, to: 'bob' }, ['body', 'to'], 'string_pattern_mismatch'],
    ['a client_id that is not a UUID', '/api/messaging/send-buttons', { ...validButtons, client_id: 'abc' }, ['body', 'client_id'], 'invalid_uuid'],
    [
      '11 list rows across sections',
      '/api/messaging/send-list',
      {
        client_id: clientId,
        to,
        body: 'Choose',
        sections: [
          { title: 'A', rows: Array.from({ length: 6 }, (_, i) => ({ id: `a${i}`, title: `A${i}` })) },
          { title: 'B', rows: Array.from({ length: 5 }, (_, i) => ({ id: `b${i}`, title: `B${i}` })) },
        ],
      },
      ['body', 'sections'],
      'too_many_items',
    ],
    [
      'a missing section title with two sections',
      '/api/messaging/send-list',
      { client_id: clientId, to, body: 'Choose', sections: [{ title: 'A', rows: [{ id: 'a', title: 'A' }] }, { rows: [{ id: 'b', title: 'B' }] }] },
      ['body', 'sections', '1', 'title'],
      'missing',
    ],
    [
      'a 25-character row title',
      '/api/messaging/send-list',
      { client_id: clientId, to, body: 'Choose', sections: [{ rows: [{ id: 'a', title: 'x'.repeat(25) }] }] },
      ['body', 'sections', '0', 'rows', '0', 'title'],
      'too_long',
    ],
    [
      'a 73-character row description',
      '/api/messaging/send-list',
      { client_id: clientId, to, body: 'Choose', sections: [{ rows: [{ id: 'a', title: 'A', description: 'x'.repeat(73) }] }] },
      ['body', 'sections', '0', 'rows', '0', 'description'],
      'too_long',
    ],
    [
      'a 21-character list button',
      '/api/messaging/send-list',
      { client_id: clientId, to, body: 'Choose', button_text: 'x'.repeat(21), sections: [{ rows: [{ id: 'a', title: 'A' }] }] },
      ['body', 'button_text'],
      'too_long',
    ],
    [
      '31 SKUs across sections',
      '/api/messaging/send-products',
      {
        client_id: clientId,
        to,
        title: 'Picks',
        body: 'Browse',
        sections: [
          { title: 'A', skus: Array.from({ length: 16 }, (_, i) => `a-${i}`) },
          { title: 'B', skus: Array.from({ length: 15 }, (_, i) => `b-${i}`) },
        ],
      },
      ['body', 'sections'],
      'too_many_items',
    ],
    ['a product message without title', '/api/messaging/send-products', { client_id: clientId, to, body: 'Browse', sections: [{ title: 'A', skus: ['a'] }] }, ['body', 'title'], 'missing'],
    ['a non-WebP sticker', '/api/messaging/send-sticker', { client_id: clientId, to, url: 'https://cdn.test/sticker.png' }, ['body', 'url'], 'not_webp'],
    ['an http sticker', '/api/messaging/send-sticker', { client_id: clientId, to, url: 'http://cdn.test/sticker.webp' }, ['body', 'url'], 'url_scheme'],
    ['latitude 91', '/api/messaging/send-location', { client_id: clientId, to, latitude: 91, longitude: 0 }, ['body', 'latitude'], 'less_than_equal'],
    ['longitude -181', '/api/messaging/send-location', { client_id: clientId, to, latitude: 0, longitude: -181 }, ['body', 'longitude'], 'greater_than_equal'],
    ['latitude as a string', '/api/messaging/send-location', { client_id: clientId, to, latitude: '45.1', longitude: 0 }, ['body', 'latitude'], 'number_type'],
    ['an empty users array', '/api/messaging/block-users', { client_id: clientId, users: [] }, ['body', 'users'], 'too_short'],
    ['an empty users array (unblock)', '/api/messaging/unblock-users', { client_id: clientId, users: [] }, ['body', 'users'], 'too_short'],
    ['duplicate users', '/api/messaging/block-users', { client_id: clientId, users: ['+16505551234', '+16505551234'] }, ['body', 'users', '1'], 'duplicate_item'],
    ['1001 users', '/api/messaging/block-users', { client_id: clientId, users: Array.from({ length: 1001 }, (_, i) => `+1650555${String(i).padStart(4, '0')}`) }, ['body', 'users'], 'too_many_items'],
    [
      'a flow_action_payload with data_exchange',
      '/api/messaging/send-flow',
      { client_id: clientId, to, body: 'Go', button_text: 'Open', flow_id: '123', flow_action: 'data_exchange', flow_action_payload: { screen: 'A' } },
      ['body', 'flow_action_payload'],
      'extra_forbidden',
    ],
    ['a 21-character flow button', '/api/messaging/send-flow', { client_id: clientId, to, body: 'Go', button_text: 'x'.repeat(21), flow_id: '123' }, ['body', 'button_text'], 'too_long'],
    ['an unknown flow mode', '/api/messaging/send-flow', { client_id: clientId, to, body: 'Go', button_text: 'Open', flow_id: '123', mode: 'live' }, ['body', 'mode'], 'enum'],
    ['a reaction without message_id', '/api/messaging/send-reaction', { client_id: clientId, to, emoji: '👍' }, ['body', 'message_id'], 'missing'],
    ['a template component without type', '/api/messaging/send-template', { client_id: clientId, to, template_name: 'hello', lang: 'en_US', components: [{ parameters: [] }] }, ['body', 'components', '0', 'type'], 'missing'],
    ['a button component without sub_type', '/api/messaging/send-template', { client_id: clientId, to, template_name: 'hello', lang: 'en_US', components: [{ type: 'button', index: '0' }] }, ['body', 'components', '0', 'sub_type'], 'missing'],
    ['mark-read without message_id', '/api/messaging/mark-read', { client_id: clientId }, ['body', 'message_id'], 'missing'],
    ['indicate-typing with a numeric message_id', '/api/messaging/indicate-typing', { client_id: clientId, message_id: 5 }, ['body', 'message_id'], 'string_type'],
    ['call accept without sdp', '/api/call/accept', { client_id: clientId, call_id: 'wacid.1' }, ['body', 'sdp'], 'missing'],
    ['a 4097-character text', '/api/messaging/send-text', { client_id: clientId, to, text: 'x'.repeat(4097) }, ['body', 'text'], 'too_long'],
    ['an empty text', '/api/messaging/send-text', { client_id: clientId, to, text: '' }, ['body', 'text'], 'string_too_short'],
    ['a text without text', '/api/messaging/send-text', { client_id: clientId, to }, ['body', 'text'], 'missing'],
    ['preview_url as a string', '/api/messaging/send-text', { client_id: clientId, to, text: 'hi', preview_url: 'yes' }, ['body', 'preview_url'], 'bool_type'],
    ['a caption on audio', '/api/messaging/send-media', { client_id: clientId, to, type: 'audio', url: 'https://cdn.test/a.ogg', caption: 'hi' }, ['body', 'caption'], 'extra_forbidden'],
    ['a caption on a sticker', '/api/messaging/send-media', { client_id: clientId, to, type: 'sticker', media_id: '123', caption: 'hi' }, ['body', 'caption'], 'extra_forbidden'],
    ['both url and media_id', '/api/messaging/send-media', { client_id: clientId, to, type: 'image', url: 'https://cdn.test/a.png', media_id: '123' }, ['body', 'url'], 'extra_forbidden'],
    ['neither url nor media_id', '/api/messaging/send-media', { client_id: clientId, to, type: 'image' }, ['body', 'url'], 'missing'],
    ['an http media url', '/api/messaging/send-media', { client_id: clientId, to, type: 'image', url: 'http://cdn.test/a.png' }, ['body', 'url'], 'url_scheme'],
    ['a filename on an image', '/api/messaging/send-media', { client_id: clientId, to, type: 'image', media_id: '123', filename: 'a.png' }, ['body', 'filename'], 'extra_forbidden'],
    ['a 1025-character caption', '/api/messaging/send-media', { client_id: clientId, to, type: 'document', media_id: '123', caption: 'x'.repeat(1025) }, ['body', 'caption'], 'too_long'],
    ['a sticker url that is not WebP', '/api/messaging/send-media', { client_id: clientId, to, type: 'sticker', url: 'https://cdn.test/s.png' }, ['body', 'url'], 'not_webp'],
    ['an unknown media type', '/api/messaging/send-media', { client_id: clientId, to, type: 'gif', media_id: '123' }, ['body', 'type'], 'enum'],
    ['a media_id with spaces', '/api/messaging/send-media', { client_id: clientId, to, type: 'image', media_id: '1 2' }, ['body', 'media_id'], 'string_pattern_mismatch'],
    ['11 contacts', '/api/messaging/send-contacts', { client_id: clientId, to, contacts: Array.from({ length: 11 }, (_, i) => ({ name: { formatted_name: `C${i}` } })) }, ['body', 'contacts'], 'too_many_items'],
    [
      '6 contacts (the OpenAPI file allows 5 where the pages say 10: the file wins)',
      '/api/messaging/send-contacts',
      { client_id: clientId, to, contacts: Array.from({ length: 6 }, (_, i) => ({ name: { formatted_name: `C${i}` } })) },
      ['body', 'contacts'],
      'too_many_items',
    ],
    ['no contacts', '/api/messaging/send-contacts', { client_id: clientId, to, contacts: [] }, ['body', 'contacts'], 'too_short'],
    ['a contact without formatted_name', '/api/messaging/send-contacts', { client_id: clientId, to, contacts: [{ name: { first_name: 'Ana' } }] }, ['body', 'contacts', '0', 'name', 'formatted_name'], 'missing'],
    [
      'a CELL phone type (the OpenAPI file allows HOME and WORK only: the file wins)',
      '/api/messaging/send-contacts',
      { client_id: clientId, to, contacts: [{ name: { formatted_name: 'Ana' }, phones: [{ phone: '+16505551234', type: 'CELL' }] }] },
      ['body', 'contacts', '0', 'phones', '0', 'type'],
      'enum',
    ],
    ['a contact email that is not one', '/api/messaging/send-contacts', { client_id: clientId, to, contacts: [{ name: { formatted_name: 'Ana' }, emails: [{ email: 'ana@' }] }] }, ['body', 'contacts', '0', 'emails', '0', 'email'], 'value_error.email'],
    ['a birthday that is no date', '/api/messaging/send-contacts', { client_id: clientId, to, contacts: [{ name: { formatted_name: 'Ana' }, birthday: '1990-02-30' }] }, ['body', 'contacts', '0', 'birthday'], 'date_invalid'],
    ['an unknown contact field', '/api/messaging/send-contacts', { client_id: clientId, to, contacts: [{ name: { formatted_name: 'Ana' }, nickname: 'A' }] }, ['body', 'contacts', '0', 'nickname'], 'extra_forbidden'],
    ['a 21-character CTA button', '/api/messaging/send-cta-url', { client_id: clientId, to, body: 'Go', button_text: 'x'.repeat(21), url: 'https://shop.test' }, ['body', 'button_text'], 'too_long'],
    ['an http CTA url', '/api/messaging/send-cta-url', { client_id: clientId, to, body: 'Go', button_text: 'Open', url: 'http://shop.test' }, ['body', 'url'], 'url_scheme'],
    ['a 1025-character CTA body', '/api/messaging/send-cta-url', { client_id: clientId, to, body: 'x'.repeat(1025), button_text: 'Open', url: 'https://shop.test' }, ['body', 'body'], 'too_long'],
    ['a 61-character CTA footer', '/api/messaging/send-cta-url', { client_id: clientId, to, body: 'Go', button_text: 'Open', url: 'https://shop.test', footer: 'x'.repeat(61) }, ['body', 'footer'], 'too_long'],
    ['an http CTA image header', '/api/messaging/send-cta-url', { client_id: clientId, to, body: 'Go', button_text: 'Open', url: 'https://shop.test', header: { type: 'image', url: 'http://cdn.test/a.png' } }, ['body', 'header', 'url'], 'url_scheme'],
    ['a CTA without url', '/api/messaging/send-cta-url', { client_id: clientId, to, body: 'Go', button_text: 'Open' }, ['body', 'url'], 'missing'],
    ['a 1025-character location request', '/api/messaging/send-location-request', { client_id: clientId, to, body: 'x'.repeat(1025) }, ['body', 'body'], 'too_long'],
    ['a location request without body', '/api/messaging/send-location-request', { client_id: clientId, to }, ['body', 'body'], 'missing'],
    ['an unknown field', '/api/messaging/send-catalog', { client_id: clientId, to, body: 'Browse', colour: 'red' }, ['body', 'colour'], 'extra_forbidden'],
  ];

  it.each(cases)('%s → 422 at the exact loc', async (_name, path, body, loc, type) => {
    const detail = await issues(path, body);
    expect(detail).toContainEqual(expect.objectContaining({ loc, type }));
  });

  it('lists every problem of a request at once', async () => {
    const detail = await issues('/api/messaging/send-buttons', {
      client_id: 'nope',
      to,
      body: { type: 'text', text: 'Pick' },
      buttons: [{ id: 'a', title: 'x'.repeat(21) }, { id: 'a', title: 'B' }, { id: 'c', title: 'C' }, { id: 'd', title: 'D' }],
    });
    expect(detail.map((d) => d.loc.join('.')).sort()).toEqual(['body.buttons', 'body.buttons.0.title', 'body.buttons.1.id', 'body.client_id'].sort());
    const location = await issues('/api/messaging/send-location', { client_id: clientId, latitude: '1', longitude: 200 });
    expect(location.map((d) => [d.loc.join('.'), d.type])).toEqual(
      expect.arrayContaining([
        ['body.to', 'missing'],
        ['body.latitude', 'number_type'],
        ['body.longitude', 'less_than_equal'],
      ]),
    );
  });

  it('reports the offending input and the limit', async () => {
    const [issue] = await issues('/api/messaging/send-buttons', { ...validButtons, buttons: [{ id: 'a', title: 'x'.repeat(21) }] });
    expect(issue).toMatchObject({ loc: ['body', 'buttons', '0', 'title'], input: 'x'.repeat(21), ctx: { limit: 20 } });
    const [dup] = await issues('/api/messaging/send-buttons', { ...validButtons, buttons: [{ id: 'a', title: 'A' }, { id: 'a', title: 'B' }] });
    expect(dup).toMatchObject({ input: 'a', ctx: { field: 'id', first_index: 0 } });
  });

  it('refuses an Idempotency-Key longer than 255 characters, together with body problems', async () => {
    const detail = await issues('/api/messaging/send-location', { client_id: clientId, to, latitude: 91, longitude: 0 }, { 'Idempotency-Key': 'k'.repeat(256) });
    expect(detail).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ loc: ['header', 'idempotency-key'], type: 'too_long' }),
        expect.objectContaining({ loc: ['body', 'latitude'] }),
      ]),
    );
  });

  it('validates GET /api/messages/{id} query', async () => {
    const res = await api.get('/api/messages/wamid.x?client_id=nope');
    expect(res.status).toBe(422);
    expect((res.json as { detail: Issue[] }).detail[0]).toMatchObject({ loc: ['query', 'client_id'], type: 'invalid_uuid' });
  });
});
