import { acceptCallBody } from '../schemas/messaging';
import type { RegisterRoutes } from './context';
import { operationHandler } from './messaging';

/** POST /api/call/accept (spec 4.4): answers an inbound call with the agent's SDP. */
export const registerCallRoutes: RegisterRoutes = (router, { services }) => {
  router.post(
    '/api/call/accept',
    operationHandler(services, '/api/call/accept', {
      schema: acceptCallBody,
      call: async (svc, caller, b) => ({ replayed: (await svc.messaging.acceptCall({ caller, callId: b.call_id, sdp: b.sdp })).replayed }),
    }),
  );
};
