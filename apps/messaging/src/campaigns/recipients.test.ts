import { storageBackends } from '@gateway/store/testing';
import type { Db } from '@gateway/store';
import { migrations } from '../store/migrations';
import { SqlCampaignRepository } from './store';
import { testCampaign } from './testing';

/* Adding a campaign's recipients (issue 26): one statement per list, on both backends. */
describe.each(storageBackends('messaging', migrations))('campaign recipients added on %s', (_name, make) => {
  const backend = make();
  let db: Db;
  let repo: SqlCampaignRepository;

  beforeAll(async () => {
    db = await backend.open();
    repo = new SqlCampaignRepository(db);
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  const campaign = () => testCampaign(repo, { status: 'draft' });

  it('keeps the order and the values, drops a duplicate (in the list or already there) and counts it', async () => {
    const id = await campaign();
    // values a literal of an array would have to escape: quotes, backslashes, commas, braces, NULL, unicode
    const odd = ['a "quoted", {braced} value', 'back\\slash \\" end\\', 'NULL', '', 'ünï ✓'];
    expect(await repo.addRecipients(id, [])).toEqual({ added: 0, duplicates: 0 });
    expect(
      await repo.addRecipients(id, [
        { to: '15550000001', params: odd },
        { to: '15550000002', params: { name: 'x,"y"' } },
        { to: '15550000001', params: ['second'] },
        { to: 'AB.user1', params: null },
      ]),
    ).toEqual({ added: 3, duplicates: 1 });
    expect(
      await repo.addRecipients(id, [
        { to: '15550000002', params: null },
        { to: '15550000003', params: ['c'] },
      ]),
    ).toEqual({ added: 1, duplicates: 1 });

    const rows = await repo.recipients(id, { limit: 10 });
    expect(rows.map((r) => [r.to_user, r.params, r.status])).toEqual([
      ['15550000001', odd, 'queued'],
      ['15550000002', { name: 'x,"y"' }, 'queued'],
      ['AB.user1', null, 'queued'],
      ['15550000003', ['c'], 'queued'],
    ]);
    // in the order added
    const seqs = rows.map((r) => Number(r.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect((await repo.counts(id)).total).toBe(4);
  });

  it('adds a long list in one call, and two lists added at once both get every row', async () => {
    const id = await campaign();
    const list = (from: number, n: number) => Array.from({ length: n }, (_, i) => ({ to: String(16_000_000_000 + from + i), params: [String(i)] }));
    const [a, b] = await Promise.all([repo.addRecipients(id, list(0, 3000)), repo.addRecipients(id, list(2000, 3000))]);
    // 1,000 numbers are in both lists: whichever came second dropped them
    expect(a.added + b.added).toBe(5000);
    expect(a.duplicates + b.duplicates).toBe(1000);
    expect((await repo.counts(id)).total).toBe(5000);
  });
});
