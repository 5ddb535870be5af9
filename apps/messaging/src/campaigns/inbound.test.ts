import { storageBackends } from '@gateway/store/testing';
import type { Db } from '@gateway/store';
import { migrations } from '../store/migrations';
import { CampaignInbound } from './inbound';
import type { OptOutSignal } from './opt-out-signals';
import { SqlCampaignRepository } from './store';

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

  it('two signals of one user handled at once end as the later one says; one without a timestamp counts as handled now', async () => {
    await Promise.all([inbound.applyOptOuts([signal('u3', 'resume', 500_000)]), inbound.applyOptOuts([signal('u3', 'stop', 400_000)])]);
    await Promise.all([inbound.applyOptOuts([signal('u4', 'stop', 500_000)]), inbound.applyOptOuts([signal('u4', 'resume', 400_000)])]);
    expect(await listed()).toEqual(['u1', 'u4']);
    await inbound.applyOptOuts([signal('u4', 'resume')]);
    expect(await listed()).toEqual(['u1']);
  });
});
