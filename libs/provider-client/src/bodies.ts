/*
 * Request bodies of the provider operations that take fixed fields, each built here only and sent by
 * ProviderClient (provider-cloud-api.md §2–§4). Message bodies are the sender's: messaging builds them.
 */

type Json = Record<string, unknown>;

/** §2: mark read, optionally with the typing indicator. */
export function markReadBody(messageId: string, typing: boolean): Json {
  return { messaging_product: 'whatsapp', status: 'read', message_id: messageId, ...(typing ? { typing_indicator: { type: 'text' } } : {}) };
}

/** §3: the body of POST (block) and DELETE (unblock) /block_users. */
export function blockUsersBody(users: string[]): Json {
  return { messaging_product: 'whatsapp', block_users: users.map((user) => ({ user })) };
}

/** §4: accept a user-initiated call with the agent's SDP answer. */
export function acceptCallBody(callId: string, sdp: string): Json {
  return { messaging_product: 'whatsapp', call_id: callId, action: 'accept', session: { sdp_type: 'answer', sdp } };
}
