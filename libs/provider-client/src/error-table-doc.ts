import type { ErrorRule } from './error-table';

export interface DocumentedRule {
  /** The provider code as written (`200–299` for the permission range, `other` for the default row). */
  code: string;
  subcode: number | null;
  status: number;
  tenantCode: string;
  retryable: boolean;
  retryAfter: ErrorRule['retryAfter'];
  transient: boolean;
  field: string[] | undefined;
}

/** The rows of the mapping table of `docs/provider-errors.md` (the tests' source of truth). */
export function parseErrorTableDoc(markdown: string): DocumentedRule[] {
  const section = markdown.split(/^## Mapping$/m)[1] ?? '';
  const rows: DocumentedRule[] = [];
  for (const line of section.split('\n')) {
    // a row of cells; not the header, nor the line under it (`| --- |`, however wide the formatter made it)
    if (!line.startsWith('| ') || line.startsWith('| Provider code') || /^\|[\s:|-]+$/.test(line)) continue;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    const [code, subcode, status, tenantCode, retryable, retryAfter, transient, field] = cells;
    rows.push({
      code,
      subcode: subcode ? Number(subcode) : null,
      status: Number(status),
      tenantCode: tenantCode.replace(/`/g, ''),
      retryable: retryable === 'yes',
      retryAfter: retryAfter === '' ? undefined : retryAfter === '4^n' ? '4^n' : Number(retryAfter),
      transient: transient === 'yes',
      field: field ? (JSON.parse(field.replace(/`/g, '')) as string[]) : undefined,
    });
  }
  return rows;
}
