import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DEFAULT_RULE, ERROR_RULES } from './error-table';
import { parseErrorTableDoc, type DocumentedRule } from './error-table-doc';

const doc = parseErrorTableDoc(readFileSync(resolve(__dirname, '../../../docs/provider-errors.md'), 'utf8'));

describe('the provider error table in docs/provider-errors.md', () => {
  it('lists exactly the rules the provider client applies, field for field', () => {
    const fromCode = Object.entries(ERROR_RULES).map(([key, r]) => {
      const [code, subcode] = key.split('/');
      return {
        code: code === '200' ? '200–299' : code,
        subcode: subcode ? Number(subcode) : null,
        status: r.status,
        tenantCode: r.code,
        retryable: r.retryable,
        retryAfter: r.retryAfter,
        transient: r.transient === true,
        field: r.field,
      };
    });
    fromCode.push({ code: 'other', subcode: null, status: DEFAULT_RULE.status, tenantCode: DEFAULT_RULE.code, retryable: false, retryAfter: undefined, transient: false, field: undefined });
    const byKey = (rows: DocumentedRule[]) => Object.fromEntries(rows.map((r) => [`${r.code}/${r.subcode ?? ''}`, r]));
    expect(byKey(doc)).toEqual(byKey(fromCode));
    expect(doc).toHaveLength(fromCode.length);
  });

  it('covers every code the provider reference names', () => {
    const named = [0, 1, 2, 4, 10, 100, 190, 368, 80007, 130429, 130472, 131000, 131005, 131008, 131009, 131016, 131021, 131026, 131031, 131042, 131047, 131048, 131049, 131050, 131051, 131052, 131053, 131056, 131057, 132000, 132001, 132005, 132007, 132012, 132015, 132016, 133010, 133016, 138000, 138001, 138002, 138003, 138004, 138005, 138006, 138018, 139000, 139001, 139002, 139003, 139004, 139100, 139101, 139102, 139103];
    const documented = new Set(doc.map((r) => r.code));
    expect(named.filter((c) => !documented.has(String(c)))).toEqual([]);
  });

  it('sends tenant-caused conditions as 4xx and provider-side failures as 502/503', () => {
    const status = (code: string) => doc.find((r) => r.code === code && r.subcode === null)!;
    expect(status('131047')).toMatchObject({ status: 409, tenantCode: 'customer_service_window_closed' });
    for (const c of ['131026', '132000', '132001', '131051', '131052', '131053']) expect([c, status(c).status]).toEqual([c, 422]);
    expect(status('138006').status).toBe(409);
    for (const c of ['1', '2', '131000', '131016', '131057']) expect(status(c).status).toBeGreaterThanOrEqual(502);
  });
});
