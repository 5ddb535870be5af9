import { isStorableText } from '@gateway/storable-text';
import type { Identity, IdentityChange, LoggedMessage } from '../store/conversations';
import type { RoutedClient } from './client-lookup';
import type { WebhookChange } from './webhook-body';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);
/** A short string PostgreSQL can store; anything else is left out. */
const str = (v: unknown, max = 512): string | undefined =>
  typeof v === 'string' && v && v.length <= max && isStorableText(v) ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined;
const isMessageId = (v: unknown): v is string => typeof v === 'string' && /^[\x21-\x7e]{1,256}$/.test(v);
/** A stored value must be storable as jsonb: no NUL, no lone surrogate. */
const isStorableJson = (v: unknown): boolean => !/\\u0000|\\ud[89a-f]/i.test(JSON.stringify(v));
const MAX_TEXT = 4096;

/** The identity of a `contacts[]` entry (provider-2026.md §2: `wa_id` only when the phone may be shared). */
function contactIdentity(c: unknown): Identity {
  if (!isObj(c)) return {};
  const profile = isObj(c.profile) ? c.profile : {};
  return clean({
    waId: str(c.wa_id, 32),
    userId: str(c.user_id, 160),
    parentUserId: str(c.parent_user_id, 160),
    username: str(profile.username, 64),
    profileName: str(profile.name, 256),
  });
}

function clean(i: Identity): Identity {
  return Object.fromEntries(Object.entries(i).filter(([, v]) => v !== undefined)) as Identity;
}

/** The text of a message of any type, as far as it has one. */
function textOf(m: Obj): string | null {
  const part = isObj(m[String(m.type)]) ? (m[String(m.type)] as Obj) : {};
  let t: unknown;
  switch (m.type) {
    case 'text':
    case 'system':
      t = part.body;
      break;
    case 'reaction':
      t = part.emoji;
      break;
    case 'button':
      t = part.text;
      break;
    case 'interactive': {
      const reply = (isObj(part.button_reply) && part.button_reply) || (isObj(part.list_reply) && part.list_reply) || (isObj(part.nfm_reply) && part.nfm_reply);
      t = reply ? (reply.title ?? reply.body) : undefined;
      break;
    }
    case 'location':
      t = part.name ?? part.address;
      break;
    default:
      t = part.caption;
  }
  return typeof t === 'string' && isStorableText(t) ? t.slice(0, MAX_TEXT) : null;
}

/** The message a message replies to (`context.id`) or reacts to (`reaction.message_id`). */
function contextOf(m: Obj): string | null {
  if (m.type === 'reaction' && isObj(m.reaction) && isMessageId(m.reaction.message_id)) return m.reaction.message_id;
  return isObj(m.context) && isMessageId(m.context.id) ? m.context.id : null;
}

/** The identity change a system message announces (provider-2026.md §2.3). */
function identityChangeOf(m: Obj, from: Identity): IdentityChange | undefined {
  if (m.type !== 'system' || !isObj(m.system)) return undefined;
  const s = m.system;
  if (s.type === 'user_changed_number') {
    const newWaId = str(s.wa_id, 32) ?? str(s.new_wa_id, 32);
    return newWaId ? { previous: from, newWaId, newUserId: str(s.user_id, 160) } : undefined;
  }
  if (s.type === 'user_changed_user_id') {
    const newUserId = str(s.user_id, 160);
    const previous = clean({ waId: from.waId, userId: from.userId ?? str(s.previous_user_id, 160) });
    return newUserId ? { previous, newUserId, newParentUserId: str(s.parent_user_id, 160) } : undefined;
  }
  return undefined;
}

/**
 * The messages of a `messages` change to keep in a client's log: every inbound message (all types: media
 * ids, reactions, interactive replies, system messages) with the user's identity from `contacts[]`, and the
 * echoes of sends from the business app (`smb_message_echoes`). `user_id_update` changes become identity
 * changes of a system-like log entry. Parts of the wrong shape are left out.
 */
export function loggedMessages(change: WebhookChange, client: RoutedClient, at: Date): LoggedMessage[] {
  const value = change.value;
  if (!isObj(value)) return [];
  const metadata: Obj = isObj(value.metadata) ? value.metadata : {};
  const business = str(metadata.display_phone_number, 32) ?? str(metadata.phone_number_id, 128) ?? '';
  const contacts = Array.isArray(value.contacts) ? value.contacts.map(contactIdentity) : [];
  const base = { tenantId: client.tenantId, clientId: client.id, at };
  const out: LoggedMessage[] = [];
  const identityFor = (waId?: string, userId?: string): Identity => {
    const known = contacts.find((c) => (userId && c.userId === userId) || (waId && c.waId === waId)) ?? (contacts.length === 1 ? contacts[0] : {});
    return clean({ ...known, waId: waId ?? known.waId, userId: userId ?? known.userId });
  };

  if (change.field === 'messages' && Array.isArray(value.messages)) {
    for (const m of value.messages as unknown[]) {
      if (!isObj(m) || !isMessageId(m.id) || typeof m.type !== 'string' || !isStorableJson(m)) continue;
      const waId = str(m.from, 32);
      const userId = str(m.from_user_id, 160);
      const identity = clean({ ...identityFor(waId, userId), parentUserId: str(m.from_parent_user_id, 160) ?? identityFor(waId, userId).parentUserId });
      out.push({
        ...base,
        id: m.id,
        direction: 'in',
        kind: str(m.type, 64) ?? 'unknown',
        from: waId ?? userId ?? '',
        to: business,
        text: textOf(m),
        content: m,
        contextId: contextOf(m),
        identity,
        identityChange: identityChangeOf(m, identity),
      });
    }
  }
  if (change.field === 'smb_message_echoes' && Array.isArray(value.message_echoes)) {
    for (const m of value.message_echoes as unknown[]) {
      if (!isObj(m) || !isMessageId(m.id) || typeof m.type !== 'string' || !isStorableJson(m)) continue;
      const waId = str(m.to, 32);
      const userId = str(m.to_user_id, 160);
      out.push({
        ...base,
        id: m.id,
        direction: 'out',
        kind: str(m.type, 64) ?? 'unknown',
        from: str(m.from, 32) ?? business,
        to: waId ?? userId ?? '',
        text: textOf(m),
        content: m,
        contextId: contextOf(m),
        identity: identityFor(waId, userId),
      });
    }
  }
  return out;
}

/** `user_id_update` changes (provider-2026.md §2.3): a user's BSUID changed; applied to the contact, not logged. */
export function userIdUpdates(change: WebhookChange): IdentityChange[] {
  const value = change.value;
  if (change.field !== 'user_id_update' || !isObj(value) || !Array.isArray(value.user_id_update)) return [];
  const out: IdentityChange[] = [];
  for (const u of value.user_id_update as unknown[]) {
    if (!isObj(u) || !isObj(u.user_id)) continue;
    const previous = clean({ waId: str(u.wa_id, 32), userId: str(u.user_id.previous, 160) });
    const newUserId = str(u.user_id.current, 160);
    const newParentUserId = isObj(u.parent_user_id) ? str(u.parent_user_id.current, 160) : undefined;
    if (newUserId) out.push({ previous, newUserId, newParentUserId });
  }
  return out;
}
