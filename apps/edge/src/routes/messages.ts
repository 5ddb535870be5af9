import type { messaging } from '@gateway/contracts';
import { tenantOf } from '../auth';
import { messagePath, messageQuery } from '../schemas/messaging';
import { validateParts } from '../validation';
import type { RegisterRoutes } from './context';

/** Message record of decisions.md "Message status". */
export function messageJson(r: messaging.MessageRecord | undefined) {
  if (!r) return null;
  return {
    id: r.id,
    client_id: r.clientId,
    to: r.to,
    kind: r.kind,
    status: r.status,
    status_history: r.statusHistory.map((h) => ({ status: h.status, at: h.at, ...(h.errorsJson ? { errors: JSON.parse(h.errorsJson) as unknown } : {}) })),
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}

/** GET /api/messages/{message_id}?client_id= : a sent message and its status history. */
export const registerMessageRoutes: RegisterRoutes = (router, { services }) => {
  router.get('/api/messages/:message_id', async (ctx) => {
    const { path, query } = validateParts<{ path: { message_id: string }; query: { client_id: string } }>({
      path: [messagePath, ctx.params],
      query: [messageQuery, ctx.query],
    });
    const res = await services.messaging.getMessage({ tenantId: tenantOf(ctx), clientId: query.client_id, messageId: path.message_id });
    ctx.body = messageJson(res.message);
  });
};
