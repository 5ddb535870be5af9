import Joi from 'joi';
import { clientId } from './common';

/** Categories the provider accepts for a flow (provider reference §5). */
export const FLOW_CATEGORIES = [
  'SIGN_UP',
  'SIGN_IN',
  'APPOINTMENT_BOOKING',
  'LEAD_GENERATION',
  'CONTACT_US',
  'CUSTOMER_SUPPORT',
  'SURVEY',
  'OTHER',
  'SHOPPING',
] as const;

/** Provider flow ids are numeric strings (provider reference §0). */
const flowId = Joi.string().pattern(/^\d{1,64}$/, 'flow id');
/**
 * Any JSON object; the provider validates its content and the service answers its errors. Its few top-level
 * properties (version, screens, routing_model...) are far below the bound; what lies below them is the
 * provider's to check (the body limit and depth bound it here).
 */
const flowJson = Joi.object().unknown(true).max(64);

export const flowPath = Joi.object({ flow_id: flowId.required() });
export const clientQuery = Joi.object({ client_id: clientId });
/** GET /api/flows: a page of the client's flows (the cursor is the previous page's next_cursor, sealed by the edge). */
export const listFlowsQuery = Joi.object({ client_id: clientId, limit: Joi.number().integer().min(1).max(100).default(20), cursor: Joi.string().max(512) });
export const clientBody = Joi.object({ client_id: clientId }).required();
export const flowJsonBody = Joi.object({ client_id: clientId, flow_json: flowJson.required() }).required();
export const createFlowBody = Joi.object({
  client_id: clientId,
  // names are unique per business account at the provider
  name: Joi.string().min(1).max(200).pattern(/\S/, 'not blank').required(),
  categories: Joi.array()
    .items(Joi.string().valid(...FLOW_CATEGORIES))
    .min(1)
    .max(FLOW_CATEGORIES.length)
    .unique()
    .required(),
  flow_json: flowJson,
  clone_flow_id: flowId,
  // the provider calls a flow's data endpoint over HTTPS only
  endpoint_uri: Joi.string()
    .max(2048)
    .uri({ scheme: ['https'] }),
}).required();
