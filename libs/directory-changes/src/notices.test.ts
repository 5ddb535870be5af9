import { connectBus, STREAMS, type Bus } from '@gateway/bus';
import { createLogger } from '@gateway/logger';
import { startNatsServer, waitFor, type TestNatsServer } from '@gateway/testing';
import Ajv2020 from 'ajv/dist/2020';
import { directoryChangeMessage, directoryChangeSchema, followDirectoryChanges, type DirectoryChange } from './index';

const logger = createLogger({ name: 'changes-test', level: 'silent' });

describe('directory change notices', () => {
  let nats: TestNatsServer;
  let bus: Bus;
  beforeAll(async () => {
    nats = await startNatsServer();
    bus = await connectBus({ url: nats.url, name: 'changes-test', logger, streams: [STREAMS.directoryChanges] });
  });
  afterAll(async () => {
    await bus.close();
    await nats.dispose();
  });

  const publish = (c: DirectoryChange) => {
    const m = directoryChangeMessage(c);
    return bus.publish(m.subject, m.body, { msgId: m.id, headers: m.headers });
  };

  it('every follower gets every notice published after it started, in order, and none from before', async () => {
    await publish({ kind: 'tenant', tenantId: 'before' });
    const a: DirectoryChange[] = [];
    const b: DirectoryChange[] = [];
    const fa = await followDirectoryChanges({ bus, logger, onChange: (c) => a.push(c), onGap: () => undefined });
    const fb = await followDirectoryChanges({ bus, logger, onChange: (c) => b.push(c), onGap: () => undefined });
    await publish({ kind: 'client', tenantId: 't1', clientId: 'c1', phoneNumberIds: ['pn'] });
    await publish({ kind: 'api_key', tenantId: 't1' });
    await waitFor(() => a.length === 2 && b.length === 2, { timeoutMs: 30_000, what: 'both notices at both followers' });
    expect(a).toEqual([
      { kind: 'client', tenantId: 't1', clientId: 'c1', phoneNumberIds: ['pn'] },
      { kind: 'api_key', tenantId: 't1' },
    ]);
    expect(b).toEqual(a);
    await fa.stop();
    await fb.stop();
  });

  it('after the bus comes back, the follower reports a gap (caches drop everything) and keeps following', async () => {
    const got: DirectoryChange[] = [];
    let gaps = 0;
    const f = await followDirectoryChanges({ bus, logger, onChange: (c) => got.push(c), onGap: () => (gaps += 1) });
    await nats.stop();
    await nats.start();
    await waitFor(() => gaps >= 1, { timeoutMs: 15_000, what: 'a gap reported after the reconnect' });
    await waitFor(
      async () => {
        await publish({ kind: 'tenant', tenantId: 'after' }).catch(() => undefined);
        return got.some((c) => c.tenantId === 'after');
      },
      { timeoutMs: 15_000, intervalMs: 500, what: 'notices followed after the reconnect' },
    );
    await f.stop();
  });
});

describe('directory change notice schema', () => {
  const validate = new Ajv2020({ strict: true, allErrors: true }).compile(directoryChangeSchema);

  it('describes every notice body directoryChangeMessage writes, and nothing else', () => {
    const changes: DirectoryChange[] = [
      { kind: 'tenant', tenantId: 't1' },
      { kind: 'api_key', tenantId: 't1' },
      { kind: 'client', tenantId: 't1', clientId: 'c1', phoneNumberIds: ['pn1', 'pn2'], businessAccountIds: [] },
    ];
    for (const c of changes) expect([validate(JSON.parse(directoryChangeMessage(c).body)), validate.errors]).toEqual([true, null]);
    expect(validate({ kind: 'webhook', tenantId: 't1' })).toBe(false);
    expect(validate({ kind: 'client', tenantId: 't1', clientIds: ['c1'] })).toBe(false);
    expect(validate({ kind: 'tenant' })).toBe(false);
  });
});
