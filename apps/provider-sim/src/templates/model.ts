type Json = Record<string, unknown>;

export const TEMPLATE_STATUSES = [
  'APPROVED',
  'PENDING',
  'REJECTED',
  'PAUSED',
  'DISABLED',
  'IN_APPEAL',
  'PENDING_DELETION',
  'DELETED',
  'LIMIT_EXCEEDED',
  'ARCHIVED',
  'FLAGGED',
  'LOCKED',
  'REINSTATED',
] as const;
export type TemplateStatus = (typeof TEMPLATE_STATUSES)[number];
export const TEMPLATE_CATEGORIES = ['MARKETING', 'UTILITY', 'AUTHENTICATION'] as const;
export const REJECTION_REASONS = ['ABUSIVE_CONTENT', 'INCORRECT_CATEGORY', 'INVALID_FORMAT', 'NONE', 'PROMOTIONAL', 'SCAM', 'TAG_CONTENT_MISMATCH'] as const;

/** A message template of a business account (supplement §4). */
export interface SimTemplate {
  id: string;
  wabaId: string;
  name: string;
  language: string;
  category: string;
  /** `POSITIONAL` or `NAMED` (provider-2026.md §6.1): how sends give the parameters. */
  parameterFormat: 'POSITIONAL' | 'NAMED';
  messageSendTtlSeconds: number | null;
  components: Json[];
  status: TemplateStatus;
  rejectedReason: string | null;
  quality: 'GREEN' | 'YELLOW' | 'RED' | 'UNKNOWN';
}

/** How new templates are reviewed: automatically after `delayMs` (approved), or only through the control API. */
export interface TemplateReview {
  mode: 'auto' | 'manual';
  delayMs: number;
}

/** The variables `{{1}}` / `{{name}}` of a text, distinct, in order of first use. */
export function variablesOf(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return [...new Set([...text.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map((m) => m[1]))];
}

/** The parameters of one component of a send: how many, and their names in a NAMED template. */
export interface Slot {
  count: number;
  names: string[] | null;
}

/** What a send of the template must carry: parameters of the body, the header and each button with a variable. */
export interface ExpectedParams {
  body: Slot;
  header: { kind: 'text' | 'media'; slot: Slot } | null;
  /** Button index → parameters (URL with a variable, COPY_CODE, OTP). */
  buttons: Map<number, number>;
}

const slotOf = (text: unknown, named: boolean): Slot => {
  const vars = variablesOf(text);
  return { count: vars.length, names: named ? vars : null };
};

export function expectedParams(t: Pick<SimTemplate, 'components' | 'category' | 'parameterFormat'>): ExpectedParams {
  const named = t.parameterFormat === 'NAMED';
  const auth = t.category === 'AUTHENTICATION';
  const out: ExpectedParams = { body: { count: 0, names: null }, header: null, buttons: new Map() };
  for (const c of t.components) {
    const type = String(c.type).toUpperCase();
    // an authentication template's body is the provider's "{{1}} is your verification code.": the code
    if (type === 'BODY') out.body = auth ? { count: 1, names: null } : slotOf(c.text, named);
    if (type === 'HEADER') {
      const format = String(c.format ?? 'TEXT').toUpperCase();
      if (format === 'TEXT') {
        const slot = slotOf(c.text, named);
        if (slot.count) out.header = { kind: 'text', slot };
      } else if (format !== 'LOCATION') out.header = { kind: 'media', slot: { count: 1, names: null } };
    }
    if (type === 'BUTTONS' && Array.isArray(c.buttons)) {
      (c.buttons as Json[]).forEach((b, i) => {
        const bt = String(b.type).toUpperCase();
        // OTP buttons (any otp_type) are sent as a url button with the code (provider-2026.md §6.2)
        if ((bt === 'URL' && variablesOf(b.url).length) || bt === 'COPY_CODE' || bt === 'OTP') out.buttons.set(i, 1);
      });
    }
  }
  return out;
}

/** Why a send's components do not fit the template (132000), or undefined when they do. */
export function paramMismatch(expected: ExpectedParams, sent: unknown): string | undefined {
  const comps = Array.isArray(sent) ? (sent as Json[]) : [];
  const params = (type: string, index?: number): Json[] => {
    const c = comps.find((x) => String(x.type).toLowerCase() === type && (index === undefined || Number(x.index) === index));
    return Array.isArray(c?.parameters) ? (c.parameters as Json[]) : [];
  };
  const check = (what: string, slot: Slot, given: Json[]): string | undefined => {
    if (given.length !== slot.count) return `${what}: expected ${slot.count} parameters, got ${given.length}`;
    const names = given.map((p) => p.parameter_name);
    if (slot.names === null) {
      if (names.some((n) => n !== undefined)) return `${what}: parameter_name is only for templates with named parameters`;
      return undefined;
    }
    const missing = slot.names.filter((n) => !names.includes(n));
    if (missing.length || names.some((n) => typeof n !== 'string')) return `${what}: expected the named parameters ${slot.names.join(', ')}`;
    return undefined;
  };
  const body = check('body', expected.body, params('body'));
  if (body) return body;
  const header = check('header', expected.header?.slot ?? { count: 0, names: null }, params('header'));
  if (header) return header;
  for (const [i, n] of expected.buttons)
    if (params('button', i).length !== n) return `button ${i}: expected ${n} parameters, got ${params('button', i).length}`;
  return undefined;
}
