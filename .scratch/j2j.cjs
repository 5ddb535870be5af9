"use strict";
var __create = Object.create;
var __defProp = Object.defineProperty;
var __getOwnPropDesc = Object.getOwnPropertyDescriptor;
var __getOwnPropNames = Object.getOwnPropertyNames;
var __getProtoOf = Object.getPrototypeOf;
var __hasOwnProp = Object.prototype.hasOwnProperty;
var __copyProps = (to, from, except, desc) => {
  if (from && typeof from === "object" || typeof from === "function") {
    for (let key of __getOwnPropNames(from))
      if (!__hasOwnProp.call(to, key) && key !== except)
        __defProp(to, key, { get: () => from[key], enumerable: !(desc = __getOwnPropDesc(from, key)) || desc.enumerable });
  }
  return to;
};
var __toESM = (mod, isNodeMode, target) => (target = mod != null ? __create(__getProtoOf(mod)) : {}, __copyProps(
  // If the importer is in node compatibility mode or this is not an ESM
  // file that has been converted to a CommonJS file using a Babel-
  // compatible transform (i.e. "__esModule" has not been set), then set
  // "default" to the CommonJS "module.exports" for node compatibility.
  isNodeMode || !mod || !mod.__esModule ? __defProp(target, "default", { value: mod, enumerable: true }) : target,
  mod
));

// apps/edge/src/zz-j2j.ts
var import_joi_to_json = __toESM(require("joi-to-json"));

// apps/edge/src/schemas/messaging.ts
var import_joi2 = __toESM(require("joi"));

// apps/edge/src/schemas/common.ts
var import_joi = __toESM(require("joi"));
var httpUrl = import_joi.default.string().max(2048).uri({ scheme: ["http", "https"] });
var httpsUrl = import_joi.default.string().max(2048).uri({ scheme: ["https"] });
var uuid = import_joi.default.string().guid({ version: ["uuidv4", "uuidv5", "uuidv7", "uuidv1"] });
var clientId = uuid.required();
var phone = import_joi.default.string().pattern(/^\+?\d{7,15}$/, "phone number");
var providerId = import_joi.default.string().pattern(/^[A-Za-z0-9_.:-]{1,128}$/, "identifier");

// apps/edge/src/schemas/messaging.ts
var opaqueId = import_joi2.default.string().trim().max(512);
var text = (max) => import_joi2.default.string().max(max);
var trimmed = (max) => import_joi2.default.string().trim().max(max);
var httpsUrl2 = import_joi2.default.string().max(2048).uri({ scheme: ["https"] });
var webpUrl = httpsUrl2.custom((v, helpers) => URL.canParse(v) && /\.webp$/i.test(new URL(v).pathname) ? v : helpers.error("custom.not_webp")).messages({ "custom.not_webp": "{{#label}} must point to a WebP image (its path must end in .webp)" });
function uniqueBy(field) {
  return (items, helpers) => {
    const state = helpers.state;
    const seen = /* @__PURE__ */ new Map();
    for (let i = 0; i < items.length; i++) {
      const v = items[i]?.[field];
      if (typeof v !== "string") continue;
      if (seen.has(v)) {
        return helpers.error("custom.duplicate_item", { value: v, field, first_index: seen.get(v) }, state.localize([...state.path, i, field]));
      }
      seen.set(v, i);
    }
    return items;
  };
}
function totalAtMost(field, limit) {
  return (sections, helpers) => {
    const count = sections.reduce((n, s) => n + (Array.isArray(s?.[field]) ? s[field].length : 0), 0);
    return count > limit ? helpers.error("custom.too_many_items", { limit, count, field }) : sections;
  };
}
var duplicateMessage = { "custom.duplicate_item": "{{#label}} must be unique: {{#field}} {{#value}} is already used by item {{#first_index}}" };
var totalMessage = { "custom.too_many_items": "{{#label}} may hold at most {{#limit}} {{#field}} in total across sections, got {{#count}}" };
var mediaHeader = import_joi2.default.object({
  type: import_joi2.default.string().valid("text", "image", "video", "document").required(),
  text: import_joi2.default.when("type", { is: "text", then: text(60).required(), otherwise: import_joi2.default.forbidden() }),
  url: import_joi2.default.when("type", { is: import_joi2.default.valid("image", "video", "document"), then: httpsUrl2.required(), otherwise: import_joi2.default.forbidden() }),
  filename: import_joi2.default.when("type", { is: "document", then: text(240), otherwise: import_joi2.default.forbidden() })
});
var textHeader = import_joi2.default.alternatives().conditional(import_joi2.default.string(), {
  then: text(60),
  otherwise: import_joi2.default.object({ type: import_joi2.default.string().valid("text").required(), text: text(60).required() })
});
var footer = text(60);
var send = {
  client_id: clientId,
  to: phone.required(),
  reply_to: opaqueId
};
var sendButtonsBody = import_joi2.default.object({
  ...send,
  header: mediaHeader,
  body: import_joi2.default.object({ type: import_joi2.default.string().valid("text").required(), text: text(1024).required() }).required(),
  footer,
  buttons: import_joi2.default.array().items(import_joi2.default.object({ id: trimmed(256).required(), title: trimmed(20).required() })).min(1).max(3).required().custom(uniqueBy("id")).custom(uniqueBy("title")).messages(duplicateMessage)
}).required();
var sendListBody = import_joi2.default.object({
  ...send,
  body: text(4096).required(),
  button_text: trimmed(20).default("Options"),
  header: textHeader,
  footer,
  sections: import_joi2.default.array().items(
    import_joi2.default.object({
      // required when there is more than one section
      title: text(24).when(import_joi2.default.ref("/sections"), { is: import_joi2.default.array().min(2), then: import_joi2.default.required() }),
      rows: import_joi2.default.array().items(import_joi2.default.object({ id: trimmed(200).required(), title: text(24).required(), description: text(72) })).min(1).max(10).required()
    })
  ).min(1).max(10).required().custom(totalAtMost("rows", 10)).messages(totalMessage)
}).required();
var sendProductsBody = import_joi2.default.object({
  ...send,
  title: text(60).required(),
  body: text(1024).required(),
  footer,
  catalog_id: trimmed(128),
  sections: import_joi2.default.array().items(
    import_joi2.default.object({
      title: text(24).when(import_joi2.default.ref("/sections"), { is: import_joi2.default.array().min(2), then: import_joi2.default.required() }),
      skus: import_joi2.default.array().items(trimmed(256)).min(1).max(30).required()
    })
  ).min(1).max(10).required().custom(totalAtMost("skus", 30)).messages(totalMessage)
}).required();
var sendFlowBody = import_joi2.default.object({
  ...send,
  body: text(1024).required(),
  button_text: trimmed(20).required(),
  flow_id: trimmed(128).required(),
  flow_token: text(1024),
  flow_action: import_joi2.default.string().valid("navigate", "data_exchange").default("navigate"),
  flow_action_payload: import_joi2.default.when("flow_action", {
    is: "data_exchange",
    then: import_joi2.default.forbidden(),
    otherwise: import_joi2.default.object({ screen: trimmed(128).required(), data: import_joi2.default.object().min(1).unknown(true) })
  }),
  mode: import_joi2.default.string().valid("published", "draft").default("published"),
  header: mediaHeader,
  footer
}).required();
var sendReactionBody = import_joi2.default.object({
  ...send,
  message_id: opaqueId.required(),
  // "" removes the reaction
  emoji: import_joi2.default.string().max(32).allow("").required()
}).required();
var templateComponent = import_joi2.default.object({
  type: import_joi2.default.string().valid("header", "body", "button", "footer", "carousel", "limited_time_offer").required(),
  sub_type: import_joi2.default.when("type", { is: "button", then: import_joi2.default.string().max(64).required(), otherwise: import_joi2.default.forbidden() }),
  // the provider wants the button's position as a string ("0")
  index: import_joi2.default.when("type", { is: "button", then: import_joi2.default.string().pattern(/^\d{1,2}$/, "index").required(), otherwise: import_joi2.default.forbidden() }),
  parameters: import_joi2.default.array().items(import_joi2.default.object({ type: import_joi2.default.string().valid("text", "currency", "date_time", "image", "video", "document", "location", "payload", "action", "coupon_code", "limited_time_offer", "product").required() }).unknown(true)).max(100)
}).unknown(true);
var sendTemplateBody = import_joi2.default.object({
  ...send,
  template_name: import_joi2.default.string().pattern(/^[a-z0-9_]{1,512}$/, "template name").required(),
  lang: import_joi2.default.string().pattern(/^[A-Za-z]{2,3}([_-][A-Za-z0-9]{2,8})?$/, "language code").required(),
  components: import_joi2.default.array().items(templateComponent).max(20)
}).required();
var sendLocationBody = import_joi2.default.object({
  ...send,
  latitude: import_joi2.default.number().min(-90).max(90).required(),
  longitude: import_joi2.default.number().min(-180).max(180).required(),
  name: text(1e3),
  address: text(1e3)
}).required();
var sendStickerBody = import_joi2.default.object({
  ...send,
  url: webpUrl.required()
}).required();
var sendCatalogBody = import_joi2.default.object({
  ...send,
  body: text(1024).required(),
  footer,
  thumbnail_product_retailer_id: trimmed(256)
}).required();
var sendTextBody = import_joi2.default.object({
  ...send,
  text: text(4096).required(),
  preview_url: import_joi2.default.boolean().default(false)
}).required();
var MEDIA_TYPES = ["image", "video", "audio", "document", "sticker"];
var sendMediaBody = import_joi2.default.object({
  ...send,
  type: import_joi2.default.string().valid(...MEDIA_TYPES).required(),
  url: import_joi2.default.when("media_id", {
    is: import_joi2.default.exist(),
    then: import_joi2.default.forbidden().messages({ "any.unknown": "{{#label}} is not allowed together with media_id: give exactly one of them" }),
    otherwise: import_joi2.default.when("type", { is: "sticker", then: webpUrl, otherwise: httpsUrl2 }).required().messages({ "any.required": "{{#label}} or media_id is required" })
  }),
  media_id: providerId,
  caption: import_joi2.default.when("type", {
    is: import_joi2.default.valid("audio", "sticker"),
    then: import_joi2.default.forbidden().messages({ "any.unknown": "{{#label}} is not allowed for audio or sticker messages" }),
    otherwise: text(1024)
  }),
  filename: import_joi2.default.when("type", {
    is: "document",
    then: text(240),
    otherwise: import_joi2.default.forbidden().messages({ "any.unknown": "{{#label}} is only allowed for documents" })
  })
}).required();
var contactType = import_joi2.default.string().valid("HOME", "WORK");
var isoDate = import_joi2.default.string().pattern(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD").custom((v, helpers) => (/* @__PURE__ */ new Date(`${v}T00:00:00Z`)).toISOString().startsWith(v) ? v : helpers.error("custom.date_invalid")).messages({ "custom.date_invalid": "{{#label}} is not a calendar date" });
var contactCard = import_joi2.default.object({
  name: import_joi2.default.object({
    formatted_name: text(512).required(),
    first_name: text(256),
    last_name: text(256),
    middle_name: text(256),
    suffix: text(64),
    prefix: text(64)
  }).required(),
  phones: import_joi2.default.array().items(import_joi2.default.object({ phone: import_joi2.default.string().max(64).required(), type: contactType, wa_id: import_joi2.default.string().pattern(/^\d{5,20}$/, "WhatsApp id") })).max(20),
  emails: import_joi2.default.array().items(import_joi2.default.object({ email: import_joi2.default.string().max(320).email({ tlds: { allow: false } }).required(), type: contactType })).max(20),
  urls: import_joi2.default.array().items(import_joi2.default.object({ url: httpUrl.required(), type: contactType })).max(20),
  addresses: import_joi2.default.array().items(
    import_joi2.default.object({
      street: text(512),
      city: text(256),
      state: text(256),
      zip: text(64),
      country: text(256),
      country_code: import_joi2.default.string().pattern(/^[A-Za-z]{2}$/, "two-letter country code"),
      type: contactType
    })
  ).max(20),
  org: import_joi2.default.object({ company: text(256), department: text(256), title: text(256) }),
  birthday: isoDate
});
var sendContactsBody = import_joi2.default.object({
  ...send,
  contacts: import_joi2.default.array().items(contactCard).min(1).max(5).required()
}).required();
var sendCtaUrlBody = import_joi2.default.object({
  ...send,
  body: text(1024).required(),
  button_text: trimmed(20).required(),
  url: httpsUrl2.required(),
  header: mediaHeader,
  footer
}).required();
var sendLocationRequestBody = import_joi2.default.object({
  ...send,
  body: text(1024).required()
}).required();
var usersBody = import_joi2.default.object({
  client_id: clientId,
  users: import_joi2.default.array().items(phone.required()).min(1).max(1e3).unique().required()
}).required();
var messageIdBody = import_joi2.default.object({
  client_id: clientId,
  message_id: opaqueId.required()
}).required();
var acceptCallBody = import_joi2.default.object({
  client_id: clientId,
  call_id: opaqueId.required(),
  sdp: import_joi2.default.string().max(256 * 1024).required()
}).required();
var idempotencyHeaders = import_joi2.default.object({
  "idempotency-key": import_joi2.default.string().min(1).max(255).pattern(/^[\x20-\x7e]+$/, "printable ASCII")
}).unknown(true);
var messageQuery = import_joi2.default.object({ client_id: clientId });
var messagePath = import_joi2.default.object({ message_id: opaqueId.required() });

// apps/edge/src/schemas/clients.ts
var import_joi3 = __toESM(require("joi"));

// libs/bus/src/bus.ts
var import_nats = require("nats");

// libs/logger/src/logger.ts
var import_pino = __toESM(require("pino"));

// libs/logger/src/context.ts
var import_node_async_hooks = require("node:async_hooks");
var storage = new import_node_async_hooks.AsyncLocalStorage();

// libs/logger/src/logger.ts
var SECRET_KEYS = [
  "authorization",
  "access_token",
  "accessToken",
  "token",
  "api_key",
  "apiKey",
  "secret",
  "webhook_secret",
  "webhookSecret",
  "client_secret",
  "password",
  "pin",
  "sdp",
  "encrypted_token",
  "admin_token",
  "adminToken",
  "secretsKey",
  "appSecret",
  "app_secret",
  "signature"
];
var redactPaths = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  ...SECRET_KEYS.map((k) => `*.*.${k}`),
  "req.headers.authorization",
  'req.headers["x-hub-signature-256"]',
  "headers.authorization",
  'headers["x-signature-256"]'
];

// libs/bus/src/bus.ts
var enc = new TextEncoder();

// libs/bus/src/consumer.ts
var import_nats4 = require("nats");

// libs/bus/src/dead-letter.ts
var import_nats3 = require("nats");

// libs/bus/src/streams.ts
var import_nats2 = require("nats");
var DAY_MS = 24 * 36e5;
function gatewayStream(name2, subject) {
  return {
    name: name2,
    subjects: [subject],
    retention: import_nats2.RetentionPolicy.Limits,
    storage: import_nats2.StorageType.File,
    max_age: (0, import_nats2.nanos)(7 * DAY_MS),
    duplicate_window: (0, import_nats2.nanos)(10 * 6e4),
    max_msg_size: 4 * 1024 * 1024,
    discard: import_nats2.DiscardPolicy.Old
  };
}
var STREAMS = {
  providerInbound: {
    name: "PROVIDER_INBOUND",
    subjects: ["provider.inbound.>"],
    retention: import_nats2.RetentionPolicy.Limits,
    storage: import_nats2.StorageType.File,
    // the provider retries for days; keep a week so nothing is lost while a consumer is down
    max_age: (0, import_nats2.nanos)(7 * DAY_MS),
    // the provider redelivers the same body; Nats-Msg-Id (a hash of the body) drops repeats
    duplicate_window: (0, import_nats2.nanos)(30 * 6e4),
    max_msg_size: 4 * 1024 * 1024,
    discard: import_nats2.DiscardPolicy.Old
  },
  events: gatewayStream("EVENTS", "events.>"),
  webhookRetries: gatewayStream("WEBHOOK_RETRIES", "webhook.retry.>"),
  // kept a month: long enough for an operator to notice, fix the cause and replay
  deadLetter: { ...gatewayStream("DEAD_LETTER", "dead_letter.>"), max_age: (0, import_nats2.nanos)(30 * DAY_MS) },
  // read from "now" by every process that caches directory data; a notice matters for seconds, so an hour is ample
  directoryChanges: { ...gatewayStream("DIRECTORY_CHANGES", "directory.changed.>"), max_age: (0, import_nats2.nanos)(36e5), max_msg_size: 64 * 1024 }
};

// libs/events/src/envelope.ts
var EVENT_TYPES = ["chat", "signup_completed", "template_status", "flow_completion", "test"];

// apps/edge/src/schemas/clients.ts
var webhookEvents = import_joi3.default.array().items(import_joi3.default.string().valid(...EVENT_TYPES)).max(EVENT_TYPES.length).unique().allow(null);
var registerBody = import_joi3.default.object({
  display_name: import_joi3.default.string().trim().min(1).max(200).required(),
  external_id: import_joi3.default.string().max(255),
  webhook_url: httpUrl,
  success_redirect_url: httpUrl,
  failure_redirect_url: httpUrl,
  business_account_id: providerId,
  phone_number_id: providerId,
  access_token: import_joi3.default.string().min(1).max(4096),
  provider_business_id: providerId,
  catalog_id: providerId
}).and("business_account_id", "phone_number_id", "access_token").required();
var patchBody = import_joi3.default.object({
  display_name: import_joi3.default.string().trim().min(1).max(200),
  external_id: import_joi3.default.string().max(255).allow(null),
  webhook_url: httpUrl.allow(null),
  webhook_events: webhookEvents,
  // "active" enables a disabled webhook again; "disabled" stops deliveries on purpose
  webhook_status: import_joi3.default.string().valid("active", "disabled"),
  is_active: import_joi3.default.boolean()
}).required();
var idPath = import_joi3.default.object({ id: uuid.required() });
var listQuery = import_joi3.default.object({ limit: import_joi3.default.number().integer().min(1).max(100).default(20), cursor: import_joi3.default.string().max(512) });

// apps/edge/src/schemas/templates.ts
var import_joi4 = __toESM(require("joi"));
var TEMPLATE_CATEGORIES = ["MARKETING", "UTILITY", "AUTHENTICATION"];
var TEMPLATE_STATUSES = ["APPROVED", "PENDING", "REJECTED", "PAUSED", "DISABLED", "IN_APPEAL", "PENDING_DELETION", "DELETED", "LIMIT_EXCEEDED", "ARCHIVED", "FLAGGED", "LOCKED", "REINSTATED"];
var templateId = import_joi4.default.string().pattern(/^\d{1,64}$/, "template id");
var name = import_joi4.default.string().max(512).pattern(/^[a-z0-9_]+$/, "lowercase letters, digits and underscores");
var language = import_joi4.default.string().pattern(/^[a-z]{2,3}(_[A-Z]{2,4})?$/, "language code");
var variables = (text3) => typeof text3 === "string" ? new Set([...text3.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map((m) => m[1])).size : 0;
var messages = {
  "custom.example_missing": "{{#label}} uses {{#count}} variable(s): example.{{#key}} must give a value for each",
  "custom.too_many_variables": "{{#label}} may use at most {{#limit}} variable(s)",
  "custom.component_count": "components must hold {{#expected}} {{#type}} component",
  "custom.too_many_buttons": "at most {{#limit}} {{#type}} buttons"
};
function examplesFor(key, maxVariables) {
  return (c, helpers) => {
    const n = variables(c.text);
    if (maxVariables !== void 0 && n > maxVariables) return helpers.error("custom.too_many_variables", { limit: maxVariables });
    if (!n) return c;
    const ex = c.example?.[key];
    const row = key === "body_text" && Array.isArray(ex) ? ex[0] : ex;
    if (!Array.isArray(row) || row.length < n) return helpers.error("custom.example_missing", { count: n, key });
    return c;
  };
}
var text2 = (max) => import_joi4.default.string().min(1).max(max);
var header = import_joi4.default.object({
  type: import_joi4.default.string().valid("HEADER").required(),
  format: import_joi4.default.string().valid("TEXT", "IMAGE", "VIDEO", "DOCUMENT", "LOCATION").required(),
  text: text2(60).when("format", { is: "TEXT", then: import_joi4.default.required(), otherwise: import_joi4.default.forbidden() }),
  example: import_joi4.default.object({ header_text: import_joi4.default.array().items(import_joi4.default.string()).max(1), header_handle: import_joi4.default.array().items(import_joi4.default.string()).min(1) }).when("format", {
    is: import_joi4.default.valid("IMAGE", "VIDEO", "DOCUMENT"),
    then: import_joi4.default.object({ header_handle: import_joi4.default.required() }).required()
  })
}).custom(examplesFor("header_text", 1)).messages(messages);
var body = import_joi4.default.object({
  type: import_joi4.default.string().valid("BODY").required(),
  text: text2(1024).required(),
  example: import_joi4.default.object({ body_text: import_joi4.default.array().items(import_joi4.default.array().items(import_joi4.default.string())).min(1), body_text_named_params: import_joi4.default.array() })
}).custom(examplesFor("body_text")).messages(messages);
var footer2 = import_joi4.default.object({
  type: import_joi4.default.string().valid("FOOTER").required(),
  text: text2(60).pattern(/^[^{}]*$/, "text without variables").required()
});
var button = import_joi4.default.object({
  type: import_joi4.default.string().valid("QUICK_REPLY", "URL", "PHONE_NUMBER", "COPY_CODE", "OTP", "FLOW").required(),
  text: text2(25).when("type", { is: import_joi4.default.valid("OTP", "COPY_CODE"), then: import_joi4.default.optional(), otherwise: import_joi4.default.required() }),
  url: import_joi4.default.string().max(2e3).pattern(/^https?:\/\/[^{}]*(\{\{\s*[A-Za-z0-9_]+\s*\}\})?$/, "URL ending in at most one variable").when("type", { is: "URL", then: import_joi4.default.required(), otherwise: import_joi4.default.forbidden() }),
  example: import_joi4.default.array().items(import_joi4.default.string()).min(1).when("url", { is: import_joi4.default.string().pattern(/\{\{/).required(), then: import_joi4.default.required() }),
  phone_number: import_joi4.default.string().pattern(/^\+?\d{7,20}$/, "phone number").when("type", { is: "PHONE_NUMBER", then: import_joi4.default.required(), otherwise: import_joi4.default.forbidden() })
}).unknown(true);
function buttonLimits(c, helpers) {
  const count = (t) => c.buttons.filter((b) => b.type === t).length;
  if (count("URL") > 2) return helpers.error("custom.too_many_buttons", { limit: 2, type: "URL" });
  if (count("PHONE_NUMBER") > 1) return helpers.error("custom.too_many_buttons", { limit: 1, type: "PHONE_NUMBER" });
  return c;
}
var buttons = import_joi4.default.object({ type: import_joi4.default.string().valid("BUTTONS").required(), buttons: import_joi4.default.array().items(button).min(1).max(10).required() }).custom(buttonLimits).messages(messages);
var component = import_joi4.default.alternatives().conditional(".type", {
  switch: [
    { is: "HEADER", then: header },
    { is: "BODY", then: body },
    { is: "FOOTER", then: footer2 },
    { is: "BUTTONS", then: buttons }
  ],
  otherwise: import_joi4.default.object({ type: import_joi4.default.string().valid("HEADER", "BODY", "FOOTER", "BUTTONS").required() }).unknown(true)
});
function componentCounts(list, helpers) {
  const count = (t) => list.filter((c) => c.type === t).length;
  if (count("BODY") !== 1) return helpers.error("custom.component_count", { expected: "exactly one", type: "BODY" });
  for (const t of ["HEADER", "FOOTER", "BUTTONS"]) if (count(t) > 1) return helpers.error("custom.component_count", { expected: "at most one", type: t });
  return list;
}
var createTemplateBody = import_joi4.default.object({
  client_id: clientId,
  name: name.required(),
  language: language.required(),
  category: import_joi4.default.string().valid(...TEMPLATE_CATEGORIES).required(),
  components: import_joi4.default.array().items(component).min(1).max(10).required().custom(componentCounts).messages(messages)
}).required();
var listTemplatesQuery = import_joi4.default.object({
  client_id: clientId,
  status: import_joi4.default.string().valid(...TEMPLATE_STATUSES),
  name: import_joi4.default.string().max(512),
  limit: import_joi4.default.number().integer().min(1).max(100).default(20),
  cursor: import_joi4.default.string().max(2048)
});
var templatePath = import_joi4.default.object({ template_id: templateId.required() });
var templateClientQuery = import_joi4.default.object({ client_id: clientId });
var syncTemplatesBody = import_joi4.default.object({ client_id: clientId }).required();
var deleteTemplatesQuery = import_joi4.default.object({ client_id: clientId, name, template_id: templateId }).or("name", "template_id");

// apps/edge/src/zz-j2j.ts
for (const [n, s] of Object.entries({ buttons: sendButtonsBody, media: sendMediaBody, list: sendListBody, flow: sendFlowBody, reg: registerBody, patch: patchBody, tpl: createTemplateBody, idem: idempotencyHeaders })) {
  console.log(n, JSON.stringify((0, import_joi_to_json.default)(s, "open-api-3.1")).slice(0, 1500));
}
