import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STREAMS } from '@gateway/bus';
import { EVENT_HEADERS, EVENT_TYPES } from '@gateway/events';
import { parse } from 'yaml';
import { BusContract, parseAsyncApi, problems, ROOT } from './contract';
import { ASYNCAPI_FILE, buildAsyncApiDocument, renderAsyncApiYaml } from './document';

const committed = () => readFileSync(join(ROOT, ASYNCAPI_FILE), 'utf8');

/** NATS subject matching: `*` one token, `>` the rest. */
const subjectMatches = (filter: string, subject: string) => {
  const f = filter.split('.');
  const s = subject.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return s.length > i;
    if (i >= s.length || (f[i] !== '*' && f[i] !== s[i])) return false;
  }
  return f.length === s.length;
};

describe('asyncapi.yaml, the AsyncAPI 3.0 document of the bus', () => {
  it('is the document the code generates (run `npm run asyncapi:generate` after changing streams, subjects, headers or event schemas)', () => {
    expect(committed()).toBe(renderAsyncApiYaml());
  });

  it('parses with @asyncapi/parser without errors or warnings', async () => {
    const { document, diagnostics } = await parseAsyncApi();
    expect(problems(diagnostics)).toEqual([]);
    expect(document?.version()).toBe('3.0.0');
  });

  it('the parser refuses a broken document (the check above can fail)', async () => {
    const broken = committed().replace('address: events.chat.{tenantId}.{clientId}', 'address: events.chat.{tenantId}.{client}');
    expect(broken).not.toBe(committed());
    expect(problems((await parseAsyncApi(broken)).diagnostics).join('\n')).toMatch(/asyncapi3-channel-parameters/);
  });

  it('has a channel on every stream of libs/bus, each address inside its stream, and one channel per event type', () => {
    const doc = parse(committed()) as { channels: Record<string, { address: string; 'x-jetstream': { stream: string; subjects: string[] } }> };
    const channels = Object.values(doc.channels);
    for (const stream of Object.values(STREAMS)) {
      const on = channels.filter((c) => c['x-jetstream'].stream === stream.name);
      expect({ stream: stream.name, channels: on.length > 0 }).toEqual({ stream: stream.name, channels: true });
      for (const c of on) {
        expect(c['x-jetstream'].subjects).toEqual(stream.subjects);
        const sample = c.address.replace(/\{[^}]+\}/g, 'x');
        expect(stream.subjects.some((f) => subjectMatches(f, sample))).toBe(true);
      }
    }
    expect(
      channels
        .filter((c) => c['x-jetstream'].stream === STREAMS.events.name)
        .map((c) => c.address.split('.')[1])
        .sort(),
    ).toEqual([...EVENT_TYPES].sort());
  });

  it("every message's examples match its own headers and payload schemas, as the parser reads them", async () => {
    const contract = await BusContract.load();
    const doc = buildAsyncApiDocument() as {
      components: { messages: Record<string, { examples?: Array<{ headers: Record<string, string>; payload: unknown }> }> };
    };
    let checked = 0;
    for (const channel of contract.document.channels().all()) {
      for (const message of channel.messages().all()) {
        for (const example of message.examples().all()) {
          const address = channel
            .address()!
            .replace(/\{tenantId\}/, '5b0c7a2e-8a51-4d8e-9a43-0f3c2d1e6b77')
            .replace(/\{clientId\}/, '0e9f6c1a-3b7d-4c2e-8f5a-6d4b2a1c9e88')
            .replace(/\{kind\}/, 'client');
          const result = contract.check(address, example.headers() as Record<string, string>, JSON.stringify(example.payload()));
          expect({ channel: channel.id(), errors: result.errors }).toEqual({ channel: channel.id(), errors: [] });
          checked++;
        }
      }
    }
    const examples = Object.values(doc.components.messages).reduce((n, m) => n + (m.examples?.length ?? 0), 0);
    expect(checked).toBe(examples);
    expect(checked).toBeGreaterThanOrEqual(EVENT_TYPES.length + 1);
  });

  it('refuses messages the code would not publish: wrong type on a subject, a missing or undocumented header, a changed envelope', async () => {
    const contract = await BusContract.load();
    const tenant = '5b0c7a2e-8a51-4d8e-9a43-0f3c2d1e6b77';
    const client = '0e9f6c1a-3b7d-4c2e-8f5a-6d4b2a1c9e88';
    const headers = {
      [EVENT_HEADERS.id]: 'e1',
      [EVENT_HEADERS.type]: 'test',
      [EVENT_HEADERS.tenant]: tenant,
      [EVENT_HEADERS.client]: client,
      'Nats-Msg-Id': 'e1',
      'X-Delivery-Id': '6a0f4c1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b',
    };
    const body = { type: 'test', client_id: client, external_id: null, payload: { test: true, requested_at: '2026-11-23T12:00:00.000Z' } };
    const ok = contract.check(`events.test.${tenant}.${client}`, headers, JSON.stringify(body));
    expect(ok).toEqual({ channel: 'testEvents', parameters: { tenantId: tenant, clientId: client }, message: 'test', errors: [] });

    expect(contract.check(`events.chat.${tenant}.${client}`, { ...headers, [EVENT_HEADERS.type]: 'chat' }, JSON.stringify(body)).errors.join()).toMatch(
      /payload/,
    );
    const { [EVENT_HEADERS.tenant]: _dropped, ...missing } = headers;
    expect(contract.check(`events.test.${tenant}.${client}`, missing, JSON.stringify(body)).errors.join()).toMatch(/X-Tenant-Id/);
    expect(contract.check(`events.test.${tenant}.${client}`, { ...headers, 'X-Secret': 'x' }, JSON.stringify(body)).errors.join()).toMatch(
      /additional properties/,
    );
    // the delivery id is the test events' alone
    const chat = { ...body, type: 'chat', payload: { object: 'whatsapp_business_account', entry: [] } };
    expect(contract.check(`events.chat.${tenant}.${client}`, { ...headers, [EVENT_HEADERS.type]: 'chat' }, JSON.stringify(chat)).errors.join()).toMatch(
      /additional properties.*X-Delivery-Id/,
    );
    const { 'X-Delivery-Id': _delivery, ...chatHeaders } = headers;
    expect(contract.check(`events.chat.${tenant}.${client}`, { ...chatHeaders, [EVENT_HEADERS.type]: 'chat' }, JSON.stringify(chat)).errors).toEqual([]);
    expect(contract.check(`events.test.${tenant}.${client}`, headers, JSON.stringify({ ...body, event_id: 'e1' })).errors.join()).toMatch(
      /additional properties/,
    );
    expect(contract.check('events.order_paid.t.c', headers, '{}').errors).toEqual(['no channel of the document has an address matching events.order_paid.t.c']);
  });
});
