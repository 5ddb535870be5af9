import { storageBackends } from '@gateway/store/testing';
import type { Db } from '@gateway/store';
import { migrations } from '../store/migrations';
import { CampaignInbound } from './inbound';
import type { OptOutSignal } from './opt-out-signals';
import { SqlCampaignRepository } from './store';
import { testCampaign } from './testing';

describe.each(storageBackends('messaging', migrations))('opt-out signals applied by the provider’s timestamps on %s', (_name, make) => {
  const backend = make();
  let db: Db;
  let repo: SqlCampaignRepository;
  let inbound: CampaignInbound;

  beforeAll(async () => {
    db = await backend.open();
    repo = new SqlCampaignRepository(db);
    inbound = new CampaignInbound(repo, undefined, db);
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  const signal = (user: string, value: OptOutSignal['value'], at?: number) => ({
    clientId: 'c1',
    user,
    value,
    source: 'user_preferences' as const,
    ...(at === undefined ? {} : { at }),
  });
  const listed = async () => (await repo.listOptOuts('c1', 100)).map((o) => o.user_id).sort();

  it('a later resume is not undone by an earlier stop handled after it; a later stop applies', async () => {
    await inbound.applyOptOuts([signal('u1', 'stop', 100_000)]);
    await inbound.applyOptOuts([signal('u1', 'resume', 300_000)]);
    expect(await listed()).toEqual([]);
    // the stop of before the resume, handled after it
    await inbound.applyOptOuts([signal('u1', 'stop', 200_000)]);
    expect(await listed()).toEqual([]);
    await inbound.applyOptOuts([signal('u1', 'stop', 400_000)]);
    expect(await listed()).toEqual(['u1']);
    // a resume handled first, its earlier stop after: never listed
    await inbound.applyOptOuts([signal('u2', 'resume', 300_000), signal('u2', 'stop', 100_000)]);
    expect(await listed()).toEqual(['u1']);
  });

  it('the statuses of many messages at once move their recipients as applying them one by one does', async () => {
    // two campaigns with the same recipients and messages: one takes the statuses one by one, the other at once
    const statuses = (prefix: string) => [
      { messageId: `${prefix}.1`, status: 'delivered' },
      { messageId: `${prefix}.2`, status: 'read' },
      // a message's statuses in the order given: delivered then read ends read; read then delivered stays read
      { messageId: `${prefix}.3`, status: 'delivered' },
      { messageId: `${prefix}.4`, status: 'read' },
      { messageId: `${prefix}.3`, status: 'read' },
      { messageId: `${prefix}.4`, status: 'delivered' },
      { messageId: `${prefix}.5`, status: 'failed', errors: [{ code: 131026, title: 'Message undeliverable' }] },
      // the user stopped marketing messages: failed, and on the client's list when the message is known
      { messageId: `${prefix}.6`, status: 'failed', errors: [{ code: 131050, title: 'stopped' }] },
      // changes nothing of a recipient
      { messageId: `${prefix}.7`, status: 'sent' },
      // no campaign's message
      { messageId: `${prefix}.unknown`, status: 'delivered' },
      // a failure after read changes nothing
      { messageId: `${prefix}.2`, status: 'failed', errors: [{ code: 131026 }] },
    ];
    const campaign = async (prefix: string) => {
      const id = await testCampaign(repo, { name: prefix, users: [1, 2, 3, 4, 5, 6, 7].map((i) => `1555000000${i}`) });
      const rows = await repo.recipients(id, { limit: 10 });
      await repo.finishMany(
        id,
        rows.map((r, i) => ({ seq: String(r.seq), status: 'sent', messageId: `${prefix}.${i + 1}` })),
      );
      return id;
    };
    const outcome = async (id: string) => (await repo.recipients(id, { limit: 10 })).map((r) => [r.to_user, r.status, r.error_code]);
    const one = await campaign('wamid.one');
    for (const s of statuses('wamid.one')) await inbound.applyStatus(s.messageId, s.status, s.errors);
    const many = await campaign('wamid.many');
    await inbound.applyStatuses(statuses('wamid.many'));
    expect(await outcome(many)).toEqual(await outcome(one));
    expect(await outcome(many)).toEqual([
      ['15550000001', 'delivered', null],
      ['15550000002', 'read', null],
      ['15550000003', 'read', null],
      ['15550000004', 'read', null],
      ['15550000005', 'failed', '131026'],
      ['15550000006', 'failed', '131050'],
      ['15550000007', 'sent', null],
    ]);
  });

  it('two signals of one user handled at once end as the later one says; one without a timestamp counts as handled now', async () => {
    await Promise.all([inbound.applyOptOuts([signal('u3', 'resume', 500_000)]), inbound.applyOptOuts([signal('u3', 'stop', 400_000)])]);
    await Promise.all([inbound.applyOptOuts([signal('u4', 'stop', 500_000)]), inbound.applyOptOuts([signal('u4', 'resume', 400_000)])]);
    expect(await listed()).toEqual(['u1', 'u4']);
    await inbound.applyOptOuts([signal('u4', 'resume')]);
    expect(await listed()).toEqual(['u1']);
  });
});
