import type { MessageInitShape } from '@bufbuild/protobuf';
import type { flows as f } from '@gateway/contracts';
import type { FlowRecord } from './store/repository';

export type FlowMessage = MessageInitShape<typeof f.FlowSchema>;

/** A flow record on the wire; JSON values travel serialized (empty flow_json: none). */
export function presentFlow(r: FlowRecord): FlowMessage {
  return {
    id: r.flow_id,
    clientId: r.client_id,
    tenantId: r.tenant_id,
    name: r.name,
    status: r.status,
    categories: r.categories,
    flowJson: r.flow_json === null || r.flow_json === undefined ? '' : JSON.stringify(r.flow_json),
    validationErrorsJson: JSON.stringify(r.validation_errors),
    createdAt: r.created_at.toISOString(),
    updatedAt: r.updated_at.toISOString(),
  };
}
