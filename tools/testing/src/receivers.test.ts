import { startOtlpReceiver } from './otlp-receiver';
import { startWebhookReceiver } from './webhook-receiver';

/**
 * The test receivers leave closing an idle keep-alive socket to their client (the dispatcher, an exporter): a
 * receiver closing one itself races a request reusing it, a reset attempt or lost spans. Node announces (and
 * enforces) a 5 s idle timeout unless it is turned off.
 */
describe('test receivers', () => {
  const announcedIdleTimeout = async (url: string, body: string) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    await res.arrayBuffer();
    return [res.headers.get('connection'), res.headers.get('keep-alive')];
  };

  it('the webhook receiver keeps idle connections for its client to close', async () => {
    const receiver = await startWebhookReceiver();
    try {
      expect(await announcedIdleTimeout(receiver.url, '{}')).toEqual(['keep-alive', null]);
    } finally {
      await receiver.close();
    }
  });

  it('the OTLP receiver keeps idle connections for its client to close', async () => {
    const receiver = await startOtlpReceiver();
    try {
      expect(await announcedIdleTimeout(`${receiver.endpoint}/v1/traces`, '{"resourceSpans":[]}')).toEqual(['keep-alive', null]);
    } finally {
      await receiver.close();
    }
  });
});
