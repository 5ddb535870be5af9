type Json = Record<string, unknown>;

export const TEMPLATE_STATUSES = ['APPROVED', 'PENDING', 'REJECTED', 'PAUSED', 'DISABLED', 'IN_APPEAL', 'PENDING_DELETION', 'DELETED', 'LIMIT_EXCEEDED', 'ARCHIVED', 'FLAGGED', 'LOCKED', 'REINSTATED'] as const;
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

/** What a send of the template must carry: parameters of the body, the header and each button with a variable. */
export interface ExpectedParams {
  body: number;
  header: { kind: 'text' | 'media'; count: number } | null;
  /** Button index → parameters (URL with a variable, COPY_CODE, OTP copy-code, FLOW). */
  buttons: Map<number, number>;
}

export function expectedParams(components: Json[]): ExpectedParams {
  const out: ExpectedParams = { body: 0, header: null, buttons: new Map() };
  for (const c of components) {
    const type = String(c.type).toUpperCase();
    if (type === 'BODY') out.body = variablesOf(c.text).length;
    if (type === 'HEADER') {
      const format = String(c.format ?? 'TEXT').toUpperCase();
      if (format === 'TEXT') {
        const n = variablesOf(c.text).length;
        if (n) out.header = { kind: 'text', count: n };
      } else if (format !== 'LOCATION') out.header = { kind: 'media', count: 1 };
    }
    if (type === 'BUTTONS' && Array.isArray(c.buttons)) {
      (c.buttons as Json[]).forEach((b, i) => {
        const bt = String(b.type).toUpperCase();
        if (bt === 'URL' && variablesOf(b.url).length) out.buttons.set(i, 1);
        if (bt === 'COPY_CODE' || (bt === 'OTP' && String(b.otp_type ?? '').toUpperCase() === 'COPY_CODE')) out.buttons.set(i, 1);
      });
    }
  }
  return out;
}

/** Why a send's components do not fit the template (132000), or undefined when they do. */
export function paramMismatch(expected: ExpectedParams, sent: unknown): string | undefined {
  const comps = Array.isArray(sent) ? (sent as Json[]) : [];
  const params = (type: string, index?: number) => {
    const c = comps.find((x) => String(x.type).toLowerCase() === type && (index === undefined || Number(x.index) === index));
    return Array.isArray(c?.parameters) ? (c.parameters as unknown[]).length : 0;
  };
  if (params('body') !== expected.body) return `body: expected ${expected.body} parameters, got ${params('body')}`;
  const header = expected.header?.count ?? 0;
  if (params('header') !== header) return `header: expected ${header} parameters, got ${params('header')}`;
  for (const [i, n] of expected.buttons) if (params('button', i) !== n) return `button ${i}: expected ${n} parameters, got ${params('button', i)}`;
  return undefined;
}
