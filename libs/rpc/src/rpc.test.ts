import { AppError } from '@gateway/errors';
import { createLogger, currentRequestId, runWithContext } from '@gateway/logger';
import { health, tenantDirectory } from '@gateway/contracts';
import { closedAddress } from '@gateway/testing';
import { createServiceClient, defineService, startGrpcServer, type RunningGrpcServer, type ServiceImpl } from './index';

const { TenantDirectoryService } = tenantDirectory;
type Impl = ServiceImpl<typeof TenantDirectoryService>;

function implWith(overrides: Partial<Impl>): Impl {
  const base = Object.fromEntries(
    TenantDirectoryService.methods.map((m) => [
      m.localName,
      async () => {
        throw new AppError('internal', 'unimplemented', 'not in this test');
      },
    ]),
  );
  return { ...base, ...overrides } as Impl;
}

describe('rpc over real gRPC', () => {
  let server: RunningGrpcServer;
  let seenRequestId: string | undefined;
  const logger = createLogger({ name: 'rpc-test', level: 'silent' });

  beforeAll(async () => {
    server = await startGrpcServer({
      host: '127.0.0.1',
      port: 0,
      logger,
      services: [
        defineService(
          TenantDirectoryService,
          implWith({
            getTenant: async (req) => {
              seenRequestId = currentRequestId();
              if (req.tenantId === 'missing') throw AppError.notFound('tenant_not_found', 'Tenant not found');
              if (req.tenantId === 'invalid') {
                throw AppError.validation([{ loc: ['body', 'x'], msg: 'bad', type: 'string_type', input: 1, ctx: {} }]);
              }
              if (req.tenantId === 'crash') throw new Error('secret internals');
              if (req.tenantId === 'many-issues') {
                // what a provider says about 60 broken screens, one of them holding a 100 KB string
                throw AppError.validation(
                  Array.from({ length: 300 }, (_, i) => ({
                    loc: ['body', 'flow_json', 'screens', String(i)],
                    msg: `Screen ${i} is invalid: ${'why '.repeat(40)}`,
                    type: 'flow_validation_error',
                    input: i === 0 ? 'z'.repeat(100_000) : null,
                    ctx: { error: 'INVALID_PROPERTY', line_start: i },
                  })),
                );
              }
              if (req.tenantId === 'slow') await new Promise((r) => setTimeout(r, 500));
              // a plain init object, not a created message: the serializer must create() it
              return { tenant: { id: req.tenantId, name: 'Acme', activeWabas: 2, webhookSecret: 's' } };
            },
          }),
        ),
      ],
    });
  });
  afterAll(() => server.shutdown(1000));

  const client = () => createServiceClient(TenantDirectoryService, `127.0.0.1:${server.port}`);

  it('carries a validation error of any size to the caller with every issue (long strings bounded), never as unavailable', async () => {
    const err = await client()
      .getTenant({ tenantId: 'many-issues' })
      .catch((e: unknown) => e as AppError);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).kind).toBe('validation');
    const issues = (err as AppError).issues;
    expect(issues).toHaveLength(300);
    expect(issues[299]).toMatchObject({
      loc: ['body', 'flow_json', 'screens', '299'],
      type: 'flow_validation_error',
      ctx: { error: 'INVALID_PROPERTY', line_start: 299 },
    });
    expect(String(issues[0].input).length).toBeLessThanOrEqual(1001);
  });

  it('returns typed responses and carries the request id in metadata', async () => {
    const c = client();
    const res = await runWithContext({ requestId: 'req-42' }, () => c.getTenant({ tenantId: 't1' }));
    expect(res.tenant?.name).toBe('Acme');
    expect(res.tenant?.activeWabas).toBe(2);
    expect(seenRequestId).toBe('req-42');
    c.close();
  });

  it('carries AppError kind, code and details across the wire', async () => {
    const c = client();
    await expect(c.getTenant({ tenantId: 'missing' })).rejects.toMatchObject({ kind: 'not_found', code: 'tenant_not_found' });
    const err = await c.getTenant({ tenantId: 'invalid' }).catch((e: AppError) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).issues[0].loc).toEqual(['body', 'x']);
    c.close();
  });

  it('never leaks the message of an unexpected error', async () => {
    const c = client();
    const err = (await c.getTenant({ tenantId: 'crash' }).catch((e: AppError) => e)) as AppError;
    expect(err.kind).toBe('internal');
    expect(err.message).not.toContain('secret internals');
    c.close();
  });

  it('maps deadlines and unreachable services to timeout and unavailable', async () => {
    const c = client();
    await expect(c.getTenant({ tenantId: 'slow' }, { deadlineMs: 100 })).rejects.toMatchObject({ kind: 'timeout' });
    c.close();
    const dead = createServiceClient(TenantDirectoryService, await closedAddress());
    await expect(dead.getTenant({ tenantId: 't' }, { deadlineMs: 2000 })).rejects.toMatchObject({ kind: 'unavailable' });
    dead.close();
  });

  it('serves grpc.health.v1 for the server and each service', async () => {
    const h = createServiceClient(health.Health, `127.0.0.1:${server.port}`);
    const all = await h.check({ service: '' });
    expect(all.status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
    const svc = await h.check({ service: 'tenant_directory.v1.TenantDirectoryService' });
    expect(svc.status).toBe(health.HealthCheckResponse_ServingStatus.SERVING);
    await expect(h.check({ service: 'nope' })).rejects.toMatchObject({ kind: 'not_found' });
    h.close();
  });
});
