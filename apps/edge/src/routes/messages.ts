import { tenantOf } from '../auth';
import { Message, respond } from '../presenters';
import { messagePath, messageQuery } from '../schemas/messaging';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';

/** GET /api/messages/{message_id}?client_id= : a sent message and its status history. */
export const registerMessageRoutes: RegisterRoutes = (router, { services }) => {
  router.get(
    '/api/messages/:message_id',
    operation({
      operationId: 'getMessage',
      summary: 'A sent message and its status history',
      tags: ['Messaging'],
      request: { path: messagePath, query: messageQuery },
      responses: { 200: json('The message.', Message) },
      errors: [404],
    }),
    async (ctx) => {
      const { path, query } = validateParts<{ path: { message_id: string }; query: { client_id: string } }>({
        path: [messagePath, ctx.params],
        query: [messageQuery, ctx.query],
      });
      const res = await services.messaging.getMessage({ tenantId: tenantOf(ctx), clientId: query.client_id, messageId: path.message_id });
      respond(ctx, Message, res.message);
    },
  );
};
