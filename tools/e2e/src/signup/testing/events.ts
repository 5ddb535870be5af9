import { eventSubject, STREAMS, type Bus } from '@gateway/bus';

/** How many signup_completed events the EVENTS stream holds for one client. */
export async function signupEventCount(bus: Bus, tenantId: string, clientId: string): Promise<number> {
  const subject = eventSubject('signup_completed', tenantId, clientId);
  const info = await bus.jsm.streams.info(STREAMS.events.name, { subjects_filter: subject });
  return (info.state.subjects as Record<string, number> | undefined)?.[subject] ?? 0;
}

/** The envelope of the client's signup_completed event (spec 6.1). */
export async function signupEvent(bus: Bus, tenantId: string, clientId: string): Promise<Record<string, unknown>> {
  const msg = await bus.jsm.streams.getMessage(STREAMS.events.name, { last_by_subj: eventSubject('signup_completed', tenantId, clientId) });
  return JSON.parse(new TextDecoder().decode(msg.data)) as Record<string, unknown>;
}
