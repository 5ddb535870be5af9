import { SERVICES } from './services';
import { startStack } from './stack';

describe('test stack', () => {
  it('runs every service behind the edge and keeps data across a restart on the same storage', async () => {
    const first = await startStack();
    let second: Awaited<ReturnType<typeof startStack>> | undefined;
    try {
      const ready = await first.api().get<{ checks: Record<string, string> }>('/readyz');
      for (const name of [...Object.keys(SERVICES).filter((n) => n !== 'edge'), 'bus']) expect([name, ready.json.checks[name]]).toEqual([name, 'ok']);
      const { api, tenant } = await first.createTenant({ name: 'Kept' });
      const created = await api.post('/api/clients/', { display_name: 'Before restart' });
      expect(created.status).toBe(200);
      await first.stop({ keepStorage: true });
      second = await startStack({ reuse: { db: first.db, nats: first.nats, dataDir: first.dataDir, secretsKey: first.env.SECRETS_KEY } });
      const again = second.api(api.token);
      const got = await again.get(`/api/clients/${(created.json as { id: string }).id}`);
      expect(got.status).toBe(200);
      expect(got.json).toMatchObject({ display_name: 'Before restart', tenant_id: tenant.id });
    } finally {
      await second?.stop();
      await first.stop({ keepStorage: true });
      await first.nats.dispose();
      await first.db.cleanup();
    }
  }, 90_000);
});
