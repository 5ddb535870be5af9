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
  /** The variables' names in a NAMED template (the send names each parameter); null when positional. */
  names: string[] | null;
}

/** What the local copy knows of a template: its components, category and parameter format. */
export interface TemplateShape {
  components: Json[];
  category: string;
  parameter_format: string;
}

/**
 * The parameters a send of a template must carry: per body, header (text variable or media) and button with a
 * variable. An AUTHENTICATION template's body is the provider's "{{1}} is your verification code." and its OTP
 * button (any otp_type) a URL button taking the code (provider-2026.md §6.2).
 */
export function expectedSlots(t: TemplateShape): Slot[] {
  const named = t.parameter_format.toUpperCase() === 'NAMED';
  const auth = t.category.toUpperCase() === 'AUTHENTICATION';
  const textSlot = (type: 'body' | 'header', text: unknown): Slot => {
    const vars = variablesOf(text);
    return { type, count: vars.length, names: named ? vars : null };
  };
  const slots: Slot[] = [];
  for (const c of t.components) {
    const type = String(c.type).toUpperCase();
    if (type === 'BODY') slots.push(auth ? { type: 'body', count: 1, names: null } : textSlot('body', c.text));
    if (type === 'HEADER') {
      const format = String(c.format ?? 'TEXT').toUpperCase();
      if (format === 'TEXT') slots.push(textSlot('header', c.text));
      else if (format !== 'LOCATION') slots.push({ type: 'header', count: 1, names: null });
    }
    if (type === 'BUTTONS' && Array.isArray(c.buttons)) {
      (c.buttons as Json[]).forEach((b, index) => {
        const bt = String(b.type).toUpperCase();
        const dynamic = (bt === 'URL' && variablesOf(b.url).length > 0) || bt === 'COPY_CODE' || bt === 'OTP';
        if (dynamic) slots.push({ type: 'button', index, count: 1, names: null });
      });
    }
  }
  if (!slots.some((s) => s.type === 'header')) slots.push({ type: 'header', count: 0, names: null });
  return slots;
}

/** Where each expected slot is among a send's components (-1: absent) and its parameters. */
function located(t: TemplateShape, sent: unknown) {
  const comps = Array.isArray(sent) ? (sent as Json[]) : [];
  return expectedSlots(t).map((slot) => {
    const i = comps.findIndex((c) => String(c.type).toLowerCase() === slot.type && (slot.index === undefined || Number(c.index) === slot.index));
    const params = i >= 0 && Array.isArray(comps[i].parameters) ? (comps[i].parameters as Json[]) : [];
    return { slot, i, params, what: slot.type === 'button' ? `button ${slot.index}` : slot.type };
  });
}

/** Issues (one per component whose parameter count is wrong) of a send's components against the template's. */
export function parameterIssues(t: TemplateShape, sent: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const { slot, i, params, what } of located(t, sent)) {
    if (params.length === slot.count) continue;
    issues.push({
      loc: i >= 0 ? ['body', 'components', String(i), 'parameters'] : ['body', 'components'],
      msg: `The template's ${what} takes ${slot.count} parameter(s); ${params.length} given`,
      type: 'template_param_count_mismatch',
      input: params.length,
      ctx: { component: what, expected: slot.count },
    });
  }
  return issues;
}

/**
 * Issues of the parameters' names (provider-2026.md §6.1): a NAMED template's body and header parameters each
 * name one of its variables (`parameter_name`, any order); a positional template's name none.
 */
export function parameterNameIssues(t: TemplateShape, sent: unknown): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  for (const { slot, i, params, what } of located(t, sent)) {
    if (i < 0 || !params.length) continue;
    const given = params.map((p) => p.parameter_name);
    if (slot.names === null) {
      const j = given.findIndex((n) => n !== undefined);
      if (j >= 0)
        issues.push({
          loc: ['body', 'components', String(i), 'parameters', String(j), 'parameter_name'],
          msg: `The template's ${what} has positional parameters ({{1}}, {{2}}…): its parameters take no parameter_name`,
          type: 'template_param_name_mismatch',
          input: given[j],
          ctx: { component: what },
        });
      continue;
    }
    const j = given.findIndex((n) => typeof n !== 'string' || !slot.names!.includes(n));
    const missing = slot.names.filter((n) => !given.includes(n));
    if (j < 0 && !missing.length) continue;
    issues.push({
      loc: j >= 0 ? ['body', 'components', String(i), 'parameters', String(j), 'parameter_name'] : ['body', 'components', String(i), 'parameters'],
      msg: `The template's ${what} takes the named parameters ${slot.names.join(', ')}${missing.length ? ` (missing: ${missing.join(', ')})` : ''}`,
      type: 'template_param_name_mismatch',
      input: j >= 0 ? (given[j] ?? null) : given,
      ctx: { component: what, expected: slot.names },
    });
  }
  return issues;
}

/** provider-2026.md §6.2: an authentication code is at most 15 characters. */
const MAX_CODE_LENGTH = 15;

/** Issues of an AUTHENTICATION template's code (its body's one parameter): at most 15 characters. */
export function authenticationCodeIssues(t: TemplateShape, sent: unknown): ValidationIssue[] {
  if (t.category.toUpperCase() !== 'AUTHENTICATION') return [];
  const body = located(t, sent).find((l) => l.slot.type === 'body');
  const code = body?.params[0]?.text;
  if (!body || typeof code !== 'string' || [...code].length <= MAX_CODE_LENGTH) return [];
  return [
    {
      loc: ['body', 'components', String(body.i), 'parameters', '0', 'text'],
      msg: `An authentication code is at most ${MAX_CODE_LENGTH} characters`,
      type: 'template_param_value_invalid',
      input: code,
      ctx: { max: MAX_CODE_LENGTH },
    },
  ];
}

export const templateIssue = (loc: string[], msg: string, type: string, input: unknown, ctx: Record<string, unknown> = {}) =>
  new AppError('validation', type, msg, { details: { detail: [{ loc, msg, type, input, ctx }] } });
