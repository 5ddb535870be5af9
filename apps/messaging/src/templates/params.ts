import { AppError, type ValidationIssue } from '@gateway/errors';

type Json = Record<string, unknown>;

/** The distinct variables `{{1}}` / `{{name}}` of a template text. */
export function variablesOf(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return [...new Set([...text.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map((m) => m[1]))];
}

interface Slot {
  /** Component of the send: `body`, `header` or `button` (with index). */
  type: 'body' | 'header' | 'button';
  index?: number;
  count: number;
}

/** The parameters a send of a template must carry: per body, header (text variable or media) and button with a variable. */
export function expectedSlots(components: Json[]): Slot[] {
  const slots: Slot[] = [];
  for (const c of components) {
    const type = String(c.type).toUpperCase();
    if (type === 'BODY') slots.push({ type: 'body', count: variablesOf(c.text).length });
    if (type === 'HEADER') {
      const format = String(c.format ?? 'TEXT').toUpperCase();
      if (format === 'TEXT') slots.push({ type: 'header', count: variablesOf(c.text).length });
      else if (format !== 'LOCATION') slots.push({ type: 'header', count: 1 });
    }
    if (type === 'BUTTONS' && Array.isArray(c.buttons)) {
      (c.buttons as Json[]).forEach((b, index) => {
        const bt = String(b.type).toUpperCase();
        const dynamic = (bt === 'URL' && variablesOf(b.url).length > 0) || bt === 'COPY_CODE' || (bt === 'OTP' && String(b.otp_type ?? '').toUpperCase() === 'COPY_CODE');
        if (dynamic) slots.push({ type: 'button', index, count: 1 });
      });
    }
  }
  if (!slots.some((s) => s.type === 'header')) slots.push({ type: 'header', count: 0 });
  return slots;
}

/** Issues (one per component whose parameter count is wrong) of a send's components against the template's. */
export function parameterIssues(template: Json[], sent: unknown): ValidationIssue[] {
  const comps = Array.isArray(sent) ? (sent as Json[]) : [];
  const issues: ValidationIssue[] = [];
  for (const slot of expectedSlots(template)) {
    const i = comps.findIndex((c) => String(c.type).toLowerCase() === slot.type && (slot.index === undefined || Number(c.index) === slot.index));
    const given = i >= 0 && Array.isArray(comps[i].parameters) ? (comps[i].parameters as unknown[]).length : 0;
    if (given === slot.count) continue;
    const what = slot.type === 'button' ? `button ${slot.index}` : slot.type;
    issues.push({
      loc: i >= 0 ? ['body', 'components', String(i), 'parameters'] : ['body', 'components'],
      msg: `The template's ${what} takes ${slot.count} parameter(s); ${given} given`,
      type: 'template_param_count_mismatch',
      input: given,
      ctx: { component: what, expected: slot.count },
    });
  }
  return issues;
}

export const templateIssue = (loc: string[], msg: string, type: string, input: unknown, ctx: Record<string, unknown> = {}) =>
  new AppError('validation', type, msg, { details: { detail: [{ loc, msg, type, input, ctx }] } });
