import { AppError } from '@gateway/errors';

/** Longest line of an uploaded CSV (a recipient and its variables). */
export const MAX_CSV_LINE = 64 * 1024;

/**
 * The rows of a CSV stream (RFC 4180: commas, double-quoted fields with "" inside, CRLF or LF), one at a time:
 * only the current line is held, whatever the upload's size. A line longer than MAX_CSV_LINE is a 413.
 */
export async function* csvRows(source: AsyncIterable<Buffer | string>): AsyncGenerator<string[]> {
  let field = '';
  let row: string[] = [];
  let quoted = false;
  let afterQuote = false;
  let lineLength = 0;
  const decoder = new TextDecoder('utf-8', { fatal: false });
  const endRow = () => {
    row.push(field);
    const out = row;
    field = '';
    row = [];
    lineLength = 0;
    return out;
  };
  for await (const chunk of source) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let i = 0;
    while (i < text.length) {
      if (quoted) {
        // up to the next quote in one slice
        const q = text.indexOf('"', i);
        const until = q < 0 ? text.length : q;
        field += text.slice(i, until);
        lineLength += until - i;
        i = until;
        if (q < 0) break;
        if (text[q + 1] === '"') {
          field += '"';
          i = q + 2;
        } else {
          quoted = false;
          afterQuote = true;
          i = q + 1;
        }
      } else {
        const ch = text[i];
        if (ch === '"' && afterQuote) {
          // the second quote of a "" that a chunk boundary split
          field += '"';
          quoted = true;
          afterQuote = false;
        } else if (ch === '"' && field === '') quoted = true;
        else if (ch === ',') {
          row.push(field);
          field = '';
          afterQuote = false;
        } else if (ch === '\n') {
          afterQuote = false;
          const out = endRow();
          if (out.length > 1 || out[0] !== '') yield out;
        } else if (ch !== '\r') {
          // up to the next special character in one slice
          let j = i + 1;
          while (j < text.length && !'",\r\n'.includes(text[j])) j++;
          field += text.slice(i, j);
          lineLength += j - i - 1;
          i = j - 1;
        }
        i += 1;
        lineLength += 1;
      }
      if (lineLength > MAX_CSV_LINE) throw new AppError('too_large', 'csv_line_too_long', `A CSV line is longer than ${MAX_CSV_LINE} characters`);
    }
  }
  if (field !== '' || row.length) yield endRow();
}

/**
 * One CSV row as a recipient: `to` (a phone number) or `recipient` (a business-scoped user id, BSUID; a phone number
 * there is taken as `to`), and the variables, positional (columns 1, 2…) or named. A row with both is sent to `to`.
 */
export interface CsvRecipient {
  to: string;
  /** The BSUID, when the row has no phone number. */
  recipient?: string;
  positional: string[];
  named: Record<string, string>;
}

/** Reads the header row: which column is the recipient, and the variables' columns. */
export function csvLayout(header: string[]): (cells: string[], line: number) => CsvRecipient {
  const names = header.map((h) => h.trim().replace(/^\uFEFF/, ''));
  const toAt = names.indexOf('to');
  const recipientAt = names.indexOf('recipient');
  if (toAt < 0 && recipientAt < 0) throw csvIssue(1, 'The CSV header has no `to` (or `recipient`) column', 'csv_no_recipient_column', header.join(','));
  const vars = names.map((n, i) => ({ n, i })).filter(({ i }) => i !== toAt && i !== recipientAt);
  const positional = vars.length > 0 && vars.every(({ n }) => /^\d{1,3}$/.test(n));
  if (!positional) {
    const bad = vars.find(({ n }) => !/^[a-z_][a-z0-9_]{0,127}$/.test(n));
    if (bad)
      throw csvIssue(1, `The CSV column ${bad.n} is not a variable name (lowercase letters, digits, underscores; or numbers 1, 2…)`, 'csv_bad_column', bad.n);
  }
  if (positional) vars.sort((a, b) => Number(a.n) - Number(b.n));
  return (cells, line) => {
    if (cells.length !== names.length)
      throw csvIssue(line, `Line ${line} has ${cells.length} fields; the header has ${names.length}`, 'csv_field_count', cells.length);
    const to = toAt < 0 ? '' : cells[toAt].trim();
    const recipient = recipientAt < 0 ? '' : cells[recipientAt].trim();
    const user = userOf(to, recipient);
    if (!user) {
      const msg = to
        ? `Line ${line}: to must be a phone number`
        : toAt < 0
          ? `Line ${line}: recipient must be a phone number or a business-scoped user id`
          : `Line ${line}: to must be a phone number (or recipient a business-scoped user id)`;
      throw csvIssue(line, msg, 'string.pattern.name', to || recipient);
    }
    const empty = vars.find(({ i }) => cells[i] === '' || cells[i].length > 1024);
    if (empty) throw csvIssue(line, `Line ${line}: ${empty.n} must be 1 to 1024 characters`, 'csv_value_invalid', cells[empty.i].length);
    return {
      ...user,
      positional: positional ? vars.map(({ i }) => cells[i]) : [],
      named: positional ? {} : Object.fromEntries(vars.map(({ n, i }) => [n, cells[i]])),
    };
  };
}

const PHONE = /^\+?\d{7,15}$/;
const BSUID = /^[A-Z]{2}\.(ENT\.)?[A-Za-z0-9]{1,128}$/;

/** The row's user: its phone number (`to` wins), else its BSUID; undefined when neither is one. */
function userOf(to: string, recipient: string): { to: string; recipient?: string } | undefined {
  if (to) return PHONE.test(to) ? { to } : undefined;
  if (PHONE.test(recipient)) return { to: recipient };
  return BSUID.test(recipient) ? { to: '', recipient } : undefined;
}

const csvIssue = (line: number, msg: string, type: string, input: unknown) =>
  AppError.validation([{ loc: ['body', 'line', String(line)], msg, type, input, ctx: { line } }], msg);
