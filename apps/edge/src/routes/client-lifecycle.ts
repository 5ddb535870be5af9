import { tenantOf } from '../auth';
import { Client, respond } from '../presenters';
import { idPath } from '../schemas/clients';
import { validateParts } from '../validation';
import { json, operation } from '../openapi/operation';
import type { RegisterRoutes } from './context';

/** A client's lifecycle (issue 28): delete (at the provider too), deactivate and activate. */
export const registerClientLifecycleRoutes: RegisterRoutes = (router, { services }) => {
  router.delete(
    '/api/clients/:id',
    operation({
      operationId: 'deleteClient',
      summary: 'Delete a client',
      description:
        "The gateway deregisters the client's number at the provider, unsubscribes the app from its business account (unless another client uses that account), erases the client's provider token and stops its deliveries. Its message and delivery records follow the retention settings. A provider refusal (its classified error, e.g. `502`; docs/provider-errors.md) deletes nothing: repeat once it is resolved. Cannot be undone.",
      tags: ['Clients'],
      request: { path: idPath },
      responses: { 204: { description: 'Deleted.' } },
      errors: [404, 429, 502],
    }),
    async (ctx) => {
      const { path } = validateParts<{ path: { id: string } }>({ path: [idPath, ctx.params] });
      await services.clientLifecycle.deleteClient({ tenantId: tenantOf(ctx), clientId: path.id });
      ctx.status = 204;
    },
  );

  for (const [action, isActive] of [
    ['deactivate', false],
    ['activate', true],
  ] as const) {
    router.post(
      `/api/clients/:id/${action}`,
      operation({
        operationId: `${action}Client`,
        summary: isActive ? 'Activate a client' : 'Deactivate a client (sends refused, nothing deleted)',
        description: isActive
          ? 'Only a client whose signup is completed (`409 signup_not_completed`).'
          : 'Sends through it are refused with `409` until it is activated again.',
        tags: ['Clients'],
        request: { path: idPath },
        responses: { 200: json('The client.', Client) },
        errors: [404, 409],
      }),
      async (ctx) => {
        const { path } = validateParts<{ path: { id: string } }>({ path: [idPath, ctx.params] });
        const res = await services.directory.updateClient({ tenantId: tenantOf(ctx), clientId: path.id, isActive, clearFields: [], webhookEvents: [] });
        respond(ctx, Client, res.client);
      },
    );
  }
};
