import { acceptCallBody } from '../schemas/messaging';
import type { RegisterRoutes } from './context';
import { messagingOperation, operationHandler, type Operation } from './messaging';

const accept: Operation<{ client_id: string; call_id: string; sdp: string }> = {
  schema: acceptCallBody,
  summary: "Accept an inbound call with the agent's SDP answer",
  call: async (svc, caller, b) => ({ replayed: (await svc.messaging.acceptCall({ caller, callId: b.call_id, sdp: b.sdp })).replayed }),
};

/** POST /api/call/accept (spec 4.4): answers an inbound call with the agent's SDP. */
export const registerCallRoutes: RegisterRoutes = (router, { services }) => {
  router.post('/api/call/accept', messagingOperation('acceptCall', accept, ['Calls']), operationHandler(services, '/api/call/accept', accept));
};
