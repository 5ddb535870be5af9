import { rmSync } from 'node:fs';
import { postgresServerUrl } from '@gateway/testing';
import { startStack } from '@gateway/test-stack';

const backends: Array<'pglite' | 'postgres'> = ['pglite', 'postgres'];
// Two stack starts on PGlite cost ~16 CPU-s (measured: its WASM cluster initialised, then reopened), 1-3 s on
// PostgreSQL. Under load that took 48-60 s (the jest default of 60 s failed once with two suites on 2 cores), so
// the bound allows a tenth of a core.
const TIMEOUT_MS = 180_000;

describe.each(backends)('restart on %s storage', (storage) => {
  it(
    'keeps tenants, keys and clients when the whole stack is stopped and started again',
    async () => {
      if (storage === 'postgres' && !postgresServerUrl()) throw new Error('TEST_DATABASE_URL is not set: run `npm test`');
      const first = await startStack({ services: ['tenant-directory', 'edge'], sim: false, storage });
      const { tenant, apiKey, api } = await first.createTenant({ name: 'Durable' });
      await api.put('/api/tenants/webhook-url', { webhook_url: 'https://durable.test/hook' });
      const client = (await api.post('/api/clients/', { display_name: 'Kept', business_account_id: '9', phone_number_id: '99', access_token: 'tok' })).json as {
        id: string;
      };
      await first.stop({ keepStorage: true });

      const second = await startStack({
        services: ['tenant-directory', 'edge'],
        sim: false,
        reuse: { db: first.db, nats: first.nats, dataDir: first.dataDir },
        env: { SECRETS_KEY: first.env.SECRETS_KEY },
      });
      try {
        const again = second.api(apiKey);
        const read = await again.get(`/api/clients/${client.id}`);
        expect(read.status).toBe(200);
        expect(read.json).toMatchObject({ id: client.id, display_name: 'Kept', is_active: true, phone_number_id: '99' });
        const t = await second.admin().get(`/admin/tenants/${tenant.id}`);
        expect(t.json).toMatchObject({ webhook_url: 'https://durable.test/hook', webhook_secret: tenant.webhook_secret, active_wabas: 1 });
      } finally {
        await second.stop();
        await first.nats.dispose();
        await first.db.cleanup();
        rmSync(first.dataDir, { recursive: true, force: true });
      }
    },
    TIMEOUT_MS,
  );
});
