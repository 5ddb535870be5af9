import { create, fromBinary, toBinary } from '@bufbuild/protobuf';
import { tenantDirectory } from './index';

describe('generated contracts', () => {
  it('round-trips a client with optional fields through the wire format', () => {
    const c = create(tenantDirectory.ClientSchema, { id: 'c1', tenantId: 't1', displayName: 'Shop', externalId: 'ext-1' });
    const back = fromBinary(tenantDirectory.ClientSchema, toBinary(tenantDirectory.ClientSchema, c));
    expect(back.externalId).toBe('ext-1');
    expect(back.webhookUrl).toBeUndefined();
    expect(tenantDirectory.TenantDirectoryService.typeName).toBe('tenant_directory.v1.TenantDirectoryService');
  });
});
