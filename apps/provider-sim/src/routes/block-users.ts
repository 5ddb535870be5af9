import type Router from '@koa/router';
import { GraphError, invalidParameter } from '../errors';
import { normalize, type SimState } from '../state';
import { arr, obj, str } from '../validate/checks';
import { jsonBody, phoneFor } from './graph';

/** POST (block), DELETE (unblock) and GET (list) /{phone_number_id}/block_users, §3. */
export function registerBlockUsers(router: Router, state: SimState): void {
  const handle = (block: boolean) => async (ctx: Parameters<Parameters<Router['post']>[1]>[0]) => {
    const phone = phoneFor(ctx, state, ctx.params.phoneId);
    const b = jsonBody(ctx);
    if (b.messaging_product !== 'whatsapp') throw invalidParameter('messaging_product must be "whatsapp"');
    const users = arr(b.block_users, 'block_users', { min: 1, max: 1000 }).map((u, i) => str(obj(u, `block_users[${i}]`).user, `block_users[${i}].user`)!);
    const list = state.blocked.get(phone.id) ?? new Set<string>();
    state.blocked.set(phone.id, list);
    const done: Array<{ input: string; wa_id: string }> = [];
    const failed: Array<{ input: string; errors: unknown[] }> = [];
    for (const input of users) {
      const wa = normalize(input);
      if (block && !state.messagedWithin24h(phone.id, wa)) {
        failed.push({
          input,
          errors: [
            {
              message: 'Re-engagement message',
              code: 131047,
              error_data: { details: 'The user has not sent a message to this business phone number in the last 24 hours.' },
            },
          ],
        });
        continue;
      }
      if (wa === normalize(phone.display)) {
        failed.push({
          input,
          errors: [{ message: 'Recipient cannot be sender', code: 131021, error_data: { details: 'A business phone number cannot block itself.' } }],
        });
        continue;
      }
      if (block) list.add(wa);
      else list.delete(wa);
      done.push({ input, wa_id: wa });
    }
    const key = block ? 'added_users' : 'removed_users';
    if (done.length === 0 && failed.length > 0) {
      const e = new GraphError(400, 139100, '(#139100) Failed to block/unblock users', {
        details: failed.map((f) => `${f.input}: ${(f.errors[0] as { message: string }).message}`).join('; '),
      });
      ctx.status = 400;
      ctx.body = { ...e.body(), block_users: { [key]: [], failed_users: failed } };
      return;
    }
    ctx.body = {
      messaging_product: 'whatsapp',
      block_users: { [key]: done, ...(failed.length ? { failed_users: failed } : {}) },
      ...(failed.length
        ? {
            errors: {
              message: '(#139100) Failed to block/unblock some users',
              type: 'OAuthException',
              code: 139100,
              error_data: { details: 'Some users could not be blocked or unblocked' },
            },
          }
        : {}),
    };
  };
  router.post('/:phoneId/block_users', handle(true));
  router.delete('/:phoneId/block_users', handle(false));
  router.get('/:phoneId/block_users', async (ctx) => {
    const phone = phoneFor(ctx, state, ctx.params.phoneId);
    ctx.body = {
      data: [...(state.blocked.get(phone.id) ?? [])].map((wa_id) => ({ messaging_product: 'whatsapp', wa_id })),
      paging: { cursors: { before: '', after: '' } },
    };
  });
}
