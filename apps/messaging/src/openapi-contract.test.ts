import { EXAMPLE_CLIENT, EXAMPLE_TO as to, MESSAGE_KINDS, messageKind, type MessageKind } from '@gateway/message-kinds';
import { acceptCallBody, blockUsersBody, callActionBody, connectCallBody, markReadBody } from '@gateway/provider-client';
import { messageValidator, requestExample, requestValidator } from '@gateway/testing';

const MESSAGES = '/{Version}/{Phone-Number-ID}/messages';
const CLIENT_ID = '4a1f3c52-8d1e-4f7a-9a53-0c6f1b2d9e10';
const kinds: readonly MessageKind[] = MESSAGE_KINDS;

/** Every message body messaging sends: each kind's valid examples, built by the kind's real builder. */
const messages = kinds.flatMap((kind) =>
  kind.examples.valid.map((example) => {
    const body = kind.prepare(kind.parse({ client_id: CLIENT_ID, ...example.body }));
    return { name: `${kind.name}: ${example.name}`, expected: example.payload, built: kind.build(body, EXAMPLE_CLIENT) };
  }),
);

/**
 * Where the provider's OpenAPI file is stricter than the provider itself or plainly wrong, each exception is
 * named by its kind (`providerFileGaps`) with the reference's reason. An error is excused only when its payload,
 * instance path, keyword and schema path all match: anything else the file says is binding.
 */
const KNOWN_WRONG = kinds.flatMap((kind) =>
  kind.providerFileGaps.map((gap) => ({
    ...gap,
    applies: (name: string) => name.startsWith(`${kind.name}: `) && (gap.examples?.test(name.slice(kind.name.length + 2)) ?? true),
  })),
);

type Problem = { instancePath: string; keyword: string; schemaPath: string; message?: string };

function unexcused(name: string, errors: Problem[]): Problem[] {
  return errors.filter(
    (e) => !KNOWN_WRONG.some((k) => k.applies(name) && k.instancePath.test(e.instancePath) && k.keyword === e.keyword && k.schemaPath.test(e.schemaPath)),
  );
}

/** The message is checked against the branch its `type` selects (the OpenAPI discriminator), then as a whole request body. */
function problemsOf(name: string, body: Record<string, unknown>): Problem[] {
  const branch = messageValidator(String(body.type));
  return branch(body) ? [] : unexcused(name, (branch.errors ?? []) as Problem[]);
}

describe("provider requests validate against the provider's OpenAPI description", () => {
  it.each(messages.map((m) => [m.name, m] as const))('POST /{phone}/messages: %s (exactly its example payload)', (name, { expected, built }) => {
    expect(built).toEqual(expected);
    expect(problemsOf(name, built)).toEqual([]);
  });

  it('covers every message kind', () => {
    expect(new Set(messages.map((m) => m.name.split(':')[0]))).toEqual(new Set(kinds.map((k) => k.name)));
  });

  it('excuses only what it names: each exception is really met by a payload', () => {
    const met = new Set<string>();
    for (const { name, built } of messages) {
      const v = messageValidator(String(built.type));
      if (v(built)) continue;
      for (const e of (v.errors ?? []) as Problem[]) {
        KNOWN_WRONG.forEach((k, i) => {
          if (k.applies(name) && k.instancePath.test(e.instancePath) && k.keyword === e.keyword && k.schemaPath.test(e.schemaPath)) met.add(String(i));
        });
      }
    }
    expect([...met].sort()).toEqual(KNOWN_WRONG.map((_, i) => String(i)).sort());
  });

  it('rejects what the provider rejects (the validators are live)', () => {
    expect(problemsOf('x', { messaging_product: 'whatsapp', to, type: 'text', text: { body: 1 } })).not.toEqual([]);
    expect(problemsOf('x', { messaging_product: 'whatsapp', to, type: 'location', location: { latitude: '1', longitude: '2' }, bogus: true })).not.toEqual([]);
    const template = messages.find((m) => m.name.startsWith('template: '))!.built as { template: Record<string, unknown> };
    expect(problemsOf('template: x', { ...template, template: { ...template.template, name: undefined } })).not.toEqual([]);
    // the excused cta_url branch still has its header and body checked by the file
    const cta = messageKind('cta_url').build(
      { client_id: CLIENT_ID, to, body: 'x'.repeat(1025), button_text: 'Go', url: 'https://x.test', header: { type: 'text', text: 'y'.repeat(61) } },
      EXAMPLE_CLIENT,
    );
    expect(
      problemsOf('cta_url: x', cta)
        .map((p) => p.instancePath)
        .sort(),
    ).toEqual(['/interactive/body/text', '/interactive/header/text']);
  });

  it("mark read and typing match the shape of the file's own example (the file gives no schema for them)", () => {
    const example = requestExample(MESSAGES, 'post', 'Send typing indicator and read receipt') as Record<string, unknown>;
    const typing = markReadBody('wamid.IN', true);
    expect(Object.keys(typing).sort()).toEqual(Object.keys(example).sort());
    expect({ ...typing, message_id: example.message_id }).toEqual(example);
    const read = markReadBody('wamid.IN', false);
    const { typing_indicator: _t, ...readExample } = example;
    expect({ ...read, message_id: example.message_id }).toEqual(readExample);
  });

  it('block and unblock users', () => {
    const v = requestValidator('/{Version}/{Phone-Number-ID}/block_users', 'post');
    expect(v(blockUsersBody(['+16505551234'])) ? [] : v.errors).toEqual([]);
  });

  it('call accept: every field the file defines for the call body, with call_id where the file says to', () => {
    const v = requestValidator('/{Version}/{Phone-Number-ID}/calls', 'post');
    const body = acceptCallBody('wacid.X', 'v=0') as Record<string, unknown>;
    // provider-cloud-api.md 4 [conflict]: the file's accept example uses `to`; the calling guide and every
    // client library use `call_id`, which the real provider requires. Checked with `to` standing in for it,
    // everything else (action, session.sdp_type "answer", sdp) must satisfy the file as written.
    const { call_id: callId, ...rest } = body;
    expect(callId).toBe('wacid.X');
    const asFileExpects = { ...rest, to: '+16505551234' };
    const errors = v(asFileExpects)
      ? []
      : ((v.errors ?? []) as Problem[]).filter((e) => !(e.schemaPath.includes('CallTerminateRequestPayload') || e.keyword === 'oneOf'));
    expect(errors).toEqual([]);
  });

  it('the other call actions and a business-initiated connect satisfy the file (call_id standing as `to`, as for accept)', () => {
    const v = requestValidator('/{Version}/{Phone-Number-ID}/calls', 'post');
    const check = (body: Record<string, unknown>) => {
      const { call_id: _c, ...rest } = body;
      const asFileExpects = 'to' in body ? body : { ...rest, to: '+16505551234' };
      return v(asFileExpects)
        ? []
        : ((v.errors ?? []) as Problem[]).filter(
            (e) => e.keyword !== 'oneOf' && !/Call(Terminate|Connect|Accept|PreAccept|Reject)\w*RequestPayload/.test(e.schemaPath),
          );
    };
    expect(callActionBody('wacid.X', 'accept', { sdp: 'v=0' })).toEqual(acceptCallBody('wacid.X', 'v=0'));
    for (const body of [
      callActionBody('wacid.X', 'pre_accept', { sdp: 'v=0' }),
      callActionBody('wacid.X', 'reject'),
      callActionBody('wacid.X', 'terminate'),
      connectCallBody({ to: '+16505551234' }, 'v=0', 'ticket-1'),
    ])
      expect([body.action, check(body)]).toEqual([body.action, []]);
    // the check is live: an action the file does not define is a problem
    expect(check({ ...callActionBody('wacid.X', 'terminate'), action: 'hang_up' })).not.toEqual([]);
  });
});
