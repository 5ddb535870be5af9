import { AppError } from '@gateway/errors';
import type { MessageKind } from './kind';
import { buttonsKind } from './kinds/buttons';
import { callPermissionRequestKind } from './kinds/call-permission-request';
import { catalogKind } from './kinds/catalog';
import { contactsKind } from './kinds/contacts';
import { ctaUrlKind } from './kinds/cta-url';
import { flowKind } from './kinds/flow';
import { listKind } from './kinds/list';
import { locationKind } from './kinds/location';
import { locationRequestKind } from './kinds/location-request';
import { mediaKind } from './kinds/media';
import { productsKind } from './kinds/products';
import { reactionKind } from './kinds/reaction';
import { stickerKind } from './kinds/sticker';
import { templateKind } from './kinds/template';
import { textKind } from './kinds/text';

/**
 * Every message kind the gateway sends, in the API description's order. The edge's routes and OpenAPI
 * operations, the messaging service's `Send` and the example-driven tests are derived from this list: a new kind
 * is a module under `kinds/` and one line here.
 */
export const MESSAGE_KINDS = [
  buttonsKind,
  listKind,
  productsKind,
  flowKind,
  reactionKind,
  templateKind,
  locationKind,
  stickerKind,
  catalogKind,
  textKind,
  mediaKind,
  contactsKind,
  ctaUrlKind,
  locationRequestKind,
  callPermissionRequestKind,
] as const;

export type AnyMessageKind = (typeof MESSAGE_KINDS)[number];
export type KindName = AnyMessageKind['name'];
/** The validated body of the kind named `N`. */
export type BodyOf<N extends KindName> = Extract<AnyMessageKind, { name: N }> extends MessageKind<N, infer B> ? B : never;

const BY_NAME: ReadonlyMap<string, MessageKind> = new Map(MESSAGE_KINDS.map((k): [string, MessageKind] => [k.name, k]));

/** The kind named `name`, with its own body type (`messageKind('template').build({...})`). */
export function messageKind<N extends KindName>(name: N): Extract<AnyMessageKind, { name: N }> {
  const kind = MESSAGE_KINDS.find((k): k is Extract<AnyMessageKind, { name: N }> => k.name === name);
  if (!kind) throw new Error(`no message kind ${name}`);
  return kind;
}

/** The kind named `name`; a name this build does not know is a stable `503 message_kind_unknown` (see docs/conventions.md). */
export function kindNamed(name: string): MessageKind {
  const kind = BY_NAME.get(name);
  if (!kind) {
    throw new AppError(
      'unavailable',
      'message_kind_unknown',
      `This messaging service does not send ${JSON.stringify(name.slice(0, 64))} messages yet (it is older than the edge): retry once it is updated`,
      { details: { kind: name.slice(0, 64) } },
    );
  }
  return kind;
}
