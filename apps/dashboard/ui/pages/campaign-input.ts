import type { Template } from '../api';

/*
 * What the campaign form reads before anything is sent: the template's variables, the recipients of a CSV file or
 * of pasted lines (the same rules as the gateway's CSV upload, docs/campaigns.md, so most mistakes are shown
 * before the campaign exists), the first message as the recipient will see it, and the components of a send.
 */

type Json = Record<string, unknown>;

/** The distinct variables `{{1}}` / `{{name}}` of a template text, in the order they appear. */
export function variablesOf(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return [...new Set([...text.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)].map((m) => m[1]))];
}

/**
 * A value every message of the campaign shares (the campaign's own components, not a recipient's): a header
 * variable, a header's media link, a button's variable.
 */
export interface SharedSlot {
  /** The form field's name and id suffix. */
  key: string;
  label: string;
  hint?: string;
  /** Its component of a send: the slots of one component (a header's variables) share it. */
  component: 'header' | 'media' | 'url' | 'code';
  /** The variable (a text header's), the media kind (`image`…), or the button's index. */
  of: string;
}

export interface TemplateShape {
  named: boolean;
  /** The body's variables: the CSV's columns (names, or 1, 2… in order for a positional template). */
  bodyVars: string[];
  header: { format: string; text: string } | null;
  body: string;
  footer: string | null;
  buttons: Array<{ type: string; text: string; url?: string }>;
  shared: SharedSlot[];
}

const MEDIA_FORMATS: Record<string, string> = { IMAGE: 'image', VIDEO: 'video', DOCUMENT: 'document' };

const ordered = (vars: string[], named: boolean) => (named ? vars : [...vars].sort((a, b) => Number(a) - Number(b)));

/** The template as the campaign form uses it. */
export function shapeOf(t: Template): TemplateShape {
  const named = t.parameter_format.toUpperCase() === 'NAMED';
  const comps = t.components as Json[];
  const find = (type: string) => comps.find((c) => String(c.type).toUpperCase() === type);
  const body = String(find('BODY')?.text ?? '');
  const h = find('HEADER');
  const header = h ? { format: String(h.format ?? 'TEXT').toUpperCase(), text: String(h.text ?? '') } : null;
  const shared: SharedSlot[] = [];
  if (header?.format === 'TEXT')
    for (const v of ordered(variablesOf(header.text), named)) shared.push({ key: `header-${v}`, label: `Header {{${v}}}`, component: 'header', of: v });
  else if (header && MEDIA_FORMATS[header.format]) {
    const kind = MEDIA_FORMATS[header.format];
    shared.push({ key: 'header-media', label: `Header ${kind} link`, hint: `An https link to the ${kind} every message shows.`, component: 'media', of: kind });
  }
  const buttons = ((find('BUTTONS')?.buttons as Json[] | undefined) ?? []).map((b) => ({
    type: String(b.type).toUpperCase(),
    text: String(b.text ?? ''),
    url: typeof b.url === 'string' ? b.url : undefined,
  }));
  buttons.forEach((b, index) => {
    if (b.type === 'URL' && variablesOf(b.url).length)
      shared.push({
        key: `button-${index}`,
        label: `Button “${b.text}”: end of its link`,
        hint: `Fills {{1}} of ${b.url}`,
        component: 'url',
        of: String(index),
      });
    if (b.type === 'COPY_CODE')
      shared.push({ key: `button-${index}`, label: `Button “${b.text || 'Copy code'}”: the code`, component: 'code', of: String(index) });
  });
  return { named, bodyVars: ordered(variablesOf(body), named), header, body, footer: (find('FOOTER')?.text as string | undefined) ?? null, buttons, shared };
}

/** The campaign's own components (what every message shares), from the shared fields' values. */
export function sharedComponents(shape: TemplateShape, values: Record<string, string>): Json[] {
  const out: Json[] = [];
  const headerVars = shape.shared.filter((s) => s.component === 'header');
  if (headerVars.length)
    out.push({
      type: 'header',
      parameters: headerVars.map((s) => ({ type: 'text', text: values[s.key] ?? '', ...(shape.named ? { parameter_name: s.of } : {}) })),
    });
  for (const s of shape.shared) {
    const value = values[s.key] ?? '';
    if (s.component === 'media') out.push({ type: 'header', parameters: [{ type: s.of, [s.of]: { link: value } }] });
    if (s.component === 'url') out.push({ type: 'button', sub_type: 'url', index: s.of, parameters: [{ type: 'text', text: value }] });
    if (s.component === 'code') out.push({ type: 'button', sub_type: 'copy_code', index: s.of, parameters: [{ type: 'coupon_code', coupon_code: value }] });
  }
  return out;
}

/** A send's components: the shared ones and the recipient's body values. */
export function sendComponents(shape: TemplateShape, shared: Json[], values: Record<string, string>): Json[] {
  if (!shape.bodyVars.length) return shared;
  const parameters = shape.bodyVars.map((v) => ({ type: 'text', text: values[v] ?? '', ...(shape.named ? { parameter_name: v } : {}) }));
  return [...shared, { type: 'body', parameters }];
}

/** A text with its variables filled: the parts, each marked as template text or a filled value (or a missing one). */
export function fill(text: string, values: Record<string, string>): Array<{ text: string; value?: 'filled' | 'missing' }> {
  const out: Array<{ text: string; value?: 'filled' | 'missing' }> = [];
  let at = 0;
  for (const m of text.matchAll(/\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g)) {
    if (m.index > at) out.push({ text: text.slice(at, m.index) });
    const v = values[m[1]];
    out.push(v ? { text: v, value: 'filled' } : { text: m[0], value: 'missing' });
    at = m.index + m[0].length;
  }
  if (at < text.length) out.push({ text: text.slice(at) });
  return out;
}

/** The rows of a CSV text (RFC 4180: commas, double-quoted fields with "" inside, CRLF or LF); blank lines skipped. */
export function csvRows(text: string): Array<{ line: number; cells: string[] }> {
  const rows: Array<{ line: number; cells: string[] }> = [];
  let field = '';
  let cells: string[] = [];
  let quoted = false;
  let line = 1;
  let startLine = 1;
  const end = () => {
    cells.push(field);
    if (cells.length > 1 || cells[0] !== '') rows.push({ line: startLine, cells });
    cells = [];
    field = '';
    startLine = line;
  };
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else {
        if (ch === '\n') line++;
        field += ch;
      }
    } else if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      cells.push(field);
      field = '';
    } else if (ch === '\n') {
      line++;
      end();
    } else if (ch !== '\r') field += ch;
  }
  if (field !== '' || cells.length) end();
  return rows;
}

const csvCell = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);

/** One recipient: the number, and the body's values by variable. */
export interface Recipient {
  to: string;
  values: Record<string, string>;
}

export interface ReadRecipients {
  /** The distinct recipients read (up to the first problems). */
  count: number;
  /** Lines whose number was given before (each number is sent once). */
  duplicates: number;
  first: Recipient | null;
  /** What the gateway would refuse: at most a few, each naming its line. */
  problems: string[];
  /** The recipients as the CSV the gateway's upload takes (`to` and one column per variable). */
  csv: string;
}

const PHONE = /^\+?\d{7,15}$/;
const MAX_PROBLEMS = 5;

/** Checks rows against the template's variables (columns by name: `to` or `recipient`, and each variable). */
function readRows(shape: TemplateShape, header: string[], rows: Array<{ line: number; cells: string[] }>): ReadRecipients {
  const problems: string[] = [];
  const names = header.map((h) => h.trim().replace(/^\uFEFF/, ''));
  const toAt = names.findIndex((n) => n === 'to' || n === 'recipient');
  const result = (count: number, duplicates: number, first: Recipient | null, csv = ''): ReadRecipients => ({ count, duplicates, first, problems, csv });
  if (toAt < 0) {
    problems.push('The header row has no “to” (or “recipient”) column.');
    return result(0, 0, null);
  }
  const columns = names.filter((_, i) => i !== toAt);
  const missing = shape.bodyVars.filter((v) => !columns.includes(v));
  const extra = columns.filter((c) => !shape.bodyVars.includes(c));
  if (missing.length || extra.length) {
    const want = shape.bodyVars.length ? `one column per variable: ${shape.bodyVars.join(', ')}` : 'no other column (the template has no variables)';
    problems.push(
      `The columns do not match the template, which takes ${want}.${missing.length ? ` Missing: ${missing.join(', ')}.` : ''}${extra.length ? ` Not in the template: ${extra.join(', ')}.` : ''}`,
    );
    return result(0, 0, null);
  }
  const seen = new Set<string>();
  let duplicates = 0;
  let first: Recipient | null = null;
  const lines = [['to', ...shape.bodyVars].join(',')];
  for (const { line, cells } of rows) {
    if (problems.length >= MAX_PROBLEMS) break;
    if (cells.length !== names.length) {
      problems.push(`Line ${line} has ${cells.length} field${cells.length === 1 ? '' : 's'}; ${names.length} expected.`);
      continue;
    }
    const to = cells[toAt].trim();
    if (!PHONE.test(to)) {
      problems.push(`Line ${line}: “${to}” is not a phone number (7 to 15 digits, + allowed in front).`);
      continue;
    }
    const values: Record<string, string> = {};
    names.forEach((n, i) => i !== toAt && (values[n] = cells[i]));
    const bad = shape.bodyVars.find((v) => values[v] === '' || values[v].length > 1024);
    if (bad) {
      problems.push(`Line ${line}: ${bad} must be 1 to 1024 characters.`);
      continue;
    }
    const key = to.replace(/^\+/, '');
    if (seen.has(key)) duplicates++;
    seen.add(key);
    first ??= { to, values };
    lines.push([to, ...shape.bodyVars.map((v) => values[v])].map(csvCell).join(','));
  }
  return result(seen.size, duplicates, first, `${lines.join('\n')}\n`);
}

/** A CSV file's text (header row first). */
export function readCsv(shape: TemplateShape, text: string): ReadRecipients {
  const rows = csvRows(text);
  if (!rows.length) return { count: 0, duplicates: 0, first: null, problems: ['The file is empty.'], csv: '' };
  return readRows(shape, rows[0].cells, rows.slice(1));
}

/** Pasted lines: the number, then the values of the body's variables in order, separated by commas. */
export function readPasted(shape: TemplateShape, text: string): ReadRecipients {
  return readRows(shape, ['to', ...shape.bodyVars], csvRows(text));
}

/** The header row a CSV for this template needs. */
export const csvHeader = (shape: TemplateShape) => ['to', ...shape.bodyVars].join(',');
