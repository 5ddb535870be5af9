import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { camelCase, isSecretField, SECRET_FIELDS } from './secret-fields';
import { normalizeRequestId, runWithContext } from './context';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(JSON.parse(chunk.toString()));
      cb();
    },
  });
  return { lines, destination };
}

describe('logger', () => {
  it('adds the request id of the async context', async () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: 't', destination });
    await runWithContext({ requestId: 'req-1' }, async () => {
      await Promise.resolve();
      log.info('inside');
    });
    log.info('outside');
    expect(lines[0]).toMatchObject({ msg: 'inside', request_id: 'req-1', service: 't', level: 'info' });
    expect(lines[1].request_id).toBeUndefined();
  });

  it('never writes secrets', () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: 't', destination });
    log.info({ access_token: 'EAAG-secret', client: { webhook_secret: 'whsec', name: 'ok' }, headers: { authorization: 'Bearer x' } }, 'm');
    const text = JSON.stringify(lines[0]);
    expect(text).not.toContain('EAAG-secret');
    expect(text).not.toContain('whsec');
    expect(text).not.toContain('Bearer x');
    expect(text).toContain('"name":"ok"');
  });

  it('redacts every field of SECRET_FIELDS, in snake_case and camelCase, up to two levels deep', () => {
    const { lines, destination } = capture();
    const log = createLogger({ name: 't', destination });
    for (const name of SECRET_FIELDS.flatMap((n) => [n, camelCase(n)])) {
      const v = `secret-of-${name}`;
      log.info({ [name]: v, a: { [name]: v }, b: { c: { [name]: v } } }, name);
    }
    expect(lines).toHaveLength(SECRET_FIELDS.length * 2);
    for (const line of lines) expect([line.msg, JSON.stringify(line).includes('secret-of-')]).toEqual([line.msg, false]);
  });

  it('tells secret fields apart in any spelling, as the edge does for its 422 answers', () => {
    for (const key of ['sdp', 'access_token', 'accessToken', 'X-Api-Key', 'flow_token', 'pins', 'webhookSecret', 'client_credentials', 'hub.verify_token'])
      expect([key, isSecretField(key)]).toEqual([key, true]);
    for (const key of ['display_name', 'phone_number_id', 'shipping', 'call_id', 'to', 'body']) expect([key, isSecretField(key)]).toEqual([key, false]);
  });

  it('keeps well-formed request ids and replaces others', () => {
    expect(normalizeRequestId('abc-123')).toBe('abc-123');
    expect(normalizeRequestId('bad id with spaces')).toMatch(/^[0-9a-f-]{36}$/);
    expect(normalizeRequestId(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
