import { connectBus, DEAD_LETTER_HEADERS, deadLetterSubject, STREAMS, type Bus } from '@gateway/bus';
import { createLogger } from '@gateway/logger';
import { startStack, type ApiClient, type Stack } from '@gateway/test-stack';

interface Letter {
  seq: number;
  source: { stream: string; seq: number };
  data_preview: string;
}
interface Page {
  data: Letter[];
  next_cursor: string | null;
}

/** More than the largest page, so the operator API must page to show them all. */
const EVENT_LETTERS = 1005;
const INBOUND_LETTERS = 3;

describe('the operator pages through every dead letter', () => {
  let stack: Stack;
  let bus: Bus;
  let admin: ApiClient;

  /** A letter as runConsumer sets it aside: the original bytes, where it came from and why. */
  const setAside = (stream: string, n: number) =>
    bus.publish(deadLetterSubject(stream), JSON.stringify({ n }), {
      headers: {
        [DEAD_LETTER_HEADERS.stream]: stream,
        [DEAD_LETTER_HEADERS.subject]: stream === 'EVENTS' ? 'events.test.t1.c1' : 'provider.inbound.webhook',
        [DEAD_LETTER_HEADERS.seq]: String(n),
        [DEAD_LETTER_HEADERS.consumer]: 'paging-test',
        [DEAD_LETTER_HEADERS.deliveries]: '10',
        [DEAD_LETTER_HEADERS.error]: 'poison',
        [DEAD_LETTER_HEADERS.at]: new Date().toISOString(),
      },
    });

  /** Every page of a listing, walked with its cursors. */
  const walk = async (query: string): Promise<Page[]> => {
    const pages: Page[] = [];
    let cursor: string | null = null;
    do {
      const res: { status: number; json: Page } = await admin.get<Page>(`/admin/dead-letters?${query}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      pages.push(res.json);
      cursor = res.json.next_cursor;
    } while (cursor);
    return pages;
  };

  beforeAll(async () => {
    stack = await startStack({ services: ['tenant-directory', 'edge'], sim: false });
    admin = stack.admin();
    bus = await connectBus({
      url: stack.nats.url,
      name: 'dead-letters-test',
      logger: createLogger({ name: 'dead-letters-test', level: 'silent' }),
      streams: [STREAMS.events, STREAMS.providerInbound, STREAMS.deadLetter],
    });
    for (let n = 1; n <= EVENT_LETTERS; n++) {
      await setAside('EVENTS', n);
      if (n <= INBOUND_LETTERS) await setAside('PROVIDER_INBOUND', n);
    }
  }, 120_000);
  afterAll(async () => {
    await bus?.close();
    await stack?.stop();
  });

  it('lists more than a page of letters, oldest first, each once, and the last page says so', async () => {
    const pages = await walk('limit=1000');
    expect(pages.map((p) => p.data.length)).toEqual([1000, EVENT_LETTERS + INBOUND_LETTERS - 1000]);
    expect(pages[1].next_cursor).toBeNull();
    const seqs = pages.flatMap((p) => p.data.map((l) => l.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(EVENT_LETTERS + INBOUND_LETTERS);

    // a page of one stream's letters, and small pages
    const inbound = await walk('stream=PROVIDER_INBOUND&limit=2');
    expect(inbound.map((p) => p.data.map((l) => [l.source.stream, l.source.seq]))).toEqual([
      [
        ['PROVIDER_INBOUND', 1],
        ['PROVIDER_INBOUND', 2],
      ],
      [['PROVIDER_INBOUND', 3]],
    ]);
  });

  it('refuses a cursor of another stream filter, an altered one and one it never issued with a 422 naming cursor', async () => {
    const first = (await admin.get<Page>('/admin/dead-letters?limit=10')).json;
    const refused = async (query: string) => {
      const res = await admin.get<{ detail: unknown[] }>(`/admin/dead-letters?${query}`);
      expect([query, res.status]).toEqual([query, 422]);
      expect(res.json.detail).toEqual([expect.objectContaining({ loc: ['query', 'cursor'], type: 'cursor_invalid' })]);
    };
    await refused(`stream=EVENTS&cursor=${first.next_cursor}`);
    const c = first.next_cursor!;
    await refused(`cursor=${c.slice(0, 5)}${c[5] === 'A' ? 'B' : 'A'}${c.slice(6)}`);
    await refused(`cursor=${first.data[9].seq}`);
  });

  it('replays a letter wherever it is in the stream, past the first page too', async () => {
    const pages = await walk('stream=EVENTS&limit=1000');
    const late = pages[1].data[0];
    expect(JSON.parse(late.data_preview)).toEqual({ n: 1001 });
    const replay = await admin.post<{ replayed: number; failed: number }>('/admin/dead-letters/replay', { seqs: [late.seq] });
    expect(replay.json).toEqual({ replayed: 1, failed: 0 });
    const after = (await walk('stream=EVENTS&limit=1000')).flatMap((p) => p.data.map((l) => l.seq));
    expect(after).toHaveLength(EVENT_LETTERS - 1);
    expect(after).not.toContain(late.seq);
  });
});
