import { storageBackends } from '@gateway/store/testing';
import type { Db } from '@gateway/store';
import { migrations } from '../store/migrations';
import { messagingLimitOf, portfolioOf, PortfolioWindows } from './messaging-limit';
import { SqlCampaignRepository } from './store';
import { testCampaign } from './testing';

describe('messagingLimitOf: the unique users per 24 hours a client record allows', () => {
  it('reads the provider tiers, the old ones, and a plain number; unlimited or unreported is none', () => {
    expect(['TIER_50', 'TIER_250', 'TIER_1K', 'TIER_2K', 'TIER_10K', 'TIER_100K'].map((t) => messagingLimitOf({ messagingLimit: t }))).toEqual([
      50, 250, 1000, 2000, 10_000, 100_000,
    ]);
    expect(messagingLimitOf({ messagingLimit: '5' })).toBe(5);
    expect(
      [{ messagingLimit: 'TIER_UNLIMITED' }, {}, { messagingLimit: '' }, { messagingLimit: '-1' }, { messagingLimit: 'TIER_X' }].map(messagingLimitOf),
    ).toEqual([undefined, undefined, undefined, undefined, undefined]);
  });

  it('keys the window by the portfolio, else the business account, else the number', () => {
    expect(portfolioOf({ id: 'c', providerBusinessId: 'b', businessAccountId: 'w', phoneNumberId: 'p' })).toBe('b');
    expect(portfolioOf({ id: 'c', businessAccountId: 'w', phoneNumberId: 'p' })).toBe('w');
    expect(portfolioOf({ id: 'c', phoneNumberId: 'p' })).toBe('p');
  });
});

describe.each(storageBackends('messaging', migrations))('portfolio windows on %s', (_name, make) => {
  const backend = make();
  let db: Db;
  let windows: PortfolioWindows;
  let repo: SqlCampaignRepository;

  beforeAll(async () => {
    db = await backend.open();
    windows = new PortfolioWindows(db);
    repo = new SqlCampaignRepository(db);
  });
  afterAll(async () => {
    await db.close();
    await backend.cleanup();
  });

  const campaign = (users: string[]) => testCampaign(repo, { users });

  it('lets new users in while the window has room, users already in it cost nothing, and says when it frees', async () => {
    const first = await windows.take('p1', 3, ['u1', 'u2']);
    expect([...first.allowed]).toEqual(['u1', 'u2']);
    const second = await windows.take('p1', 3, ['u3', 'u1', 'u4', 'u2']);
    expect([...second.allowed].sort()).toEqual(['u1', 'u2', 'u3']);
    expect(second.freesAt.getTime()).toBeGreaterThan(Date.now() + 23 * 3600_000);
    expect(await windows.used('p1')).toBe(3);
    // another portfolio has its own window
    expect([...(await windows.take('p2', 1, ['u4'])).allowed]).toEqual(['u4']);
    // two replicas at once never let more in than the room
    const both = await Promise.all([windows.take('p3', 2, ['a', 'b']), windows.take('p3', 2, ['c', 'd'])]);
    expect(both.reduce((n, r) => n + r.allowed.size, 0)).toBe(2);
    // a user reached more than 24 hours ago is out of the window
    await db.query(`UPDATE portfolio_reach SET last_at = now() - interval '25 hours' WHERE portfolio_id = 'p1' AND user_id = 'u1'`);
    expect(await windows.used('p1')).toBe(2);
    expect([...(await windows.take('p1', 3, ['u4'])).allowed]).toEqual(['u4']);
  });

  it('queues deferred recipients again when their time comes, or as many as the window has room for', async () => {
    const id = await campaign(['r1', 'r2', 'r3', 'r4']);
    const claimed = await repo.claim(id, 'me', 10);
    await windows.defer(
      id,
      claimed.map((r) => String(r.seq)),
      new Date(Date.now() + 3600_000),
      'me',
    );
    expect((await repo.counts(id)).deferred).toBe(4);
    // the window is full: nothing yet
    await windows.take('p4', 2, ['x', 'y']);
    expect(await windows.release(id, 'p4', 2)).toBe(0);
    // the limit rose by one: one goes, in order
    expect(await windows.release(id, 'p4', 3)).toBe(1);
    expect((await repo.recipients(id, { statuses: ['queued'], limit: 10 })).map((r) => r.to_user)).toEqual(['r1']);
    // the window freed (the deferral's time came): the rest go
    await db.query(`UPDATE campaign_recipients SET deferred_until = now() - interval '1 second' WHERE campaign_id = $1 AND status = 'deferred'`, [id]);
    expect(await windows.release(id, 'p4', 2)).toBe(3);
    expect((await repo.counts(id)).queued).toBe(4);
  });

  it("defers a recipient the provider refused with 131049 for 24 hours, whether the status or the send's record came first", async () => {
    const id = await campaign(['s1', 's2']);
    const [a, b] = await repo.claim(id, 'me', 10);
    await repo.finishMany(id, [
      { seq: String(a.seq), status: 'sent', messageId: 'wamid.a' },
      { seq: String(b.seq), status: 'sent', messageId: 'wamid.b' },
    ]);
    expect(await windows.deferRefused('wamid.a')).toBe(true);
    expect(await windows.deferRefused('wamid.none')).toBe(false);
    // the failed status reached the message record before the recipient had its message id
    await db.query(
      `INSERT INTO messages (id, tenant_id, client_id, to_number, kind, status, status_history, errors) VALUES ('wamid.b', 't1', 'c1', 's2', 'template', 'failed', '[]', $1::jsonb)`,
      [JSON.stringify([{ code: 131049, title: 'x' }])],
    );
    expect(await windows.deferRefusedOf(id)).toBe(1);
    const rows = await repo.recipients(id, { limit: 10 });
    expect(rows.map((r) => [r.status, r.error_code, r.reason])).toEqual([
      ['deferred', '131049', 'provider_131049'],
      ['deferred', '131049', 'provider_131049'],
    ]);
    // not before 24 hours
    expect(await windows.release(id, 'p5', undefined)).toBe(0);
  });

  it("defers, never fails, a recipient whose 131049 came before its send's record and is taken up with its batch", async () => {
    const id = await campaign(['r1']);
    const [a] = await repo.claim(id, 'me', 10);
    await db.query(
      `INSERT INTO messages (id, tenant_id, client_id, to_number, kind, status, status_history, errors) VALUES ('wamid.r1', 't1', 'c1', 'r1', 'template', 'failed', '[]', $1::jsonb)`,
      [JSON.stringify([{ code: 131049, title: 'x' }])],
    );
    await repo.finishMany(id, [{ seq: String(a.seq), status: 'sent', messageId: 'wamid.r1' }]);
    // the batch's own reconcile, right after its records (runner.ts)
    expect(await repo.reconcileStatuses(id, [String(a.seq)])).toBe(1);
    const [row] = await repo.recipients(id, { limit: 10 });
    expect([row.status, row.error_code, row.reason]).toEqual(['deferred', '131049', 'provider_131049']);
    expect(await windows.release(id, 'p6', undefined)).toBe(0);
  });
});
