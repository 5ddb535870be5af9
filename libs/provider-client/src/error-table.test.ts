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
    fromCode.push({
      code: 'other',
      subcode: null,
      status: DEFAULT_RULE.status,
      tenantCode: DEFAULT_RULE.code,
      retryable: false,
      retryAfter: undefined,
      transient: false,
      field: undefined,
    });
    const byKey = (rows: DocumentedRule[]) => Object.fromEntries(rows.map((r) => [`${r.code}/${r.subcode ?? ''}`, r]));
    expect(byKey(doc)).toEqual(byKey(fromCode));
    expect(doc).toHaveLength(fromCode.length);
  });

  it('covers every code the provider reference names (provider-2026.md §2.4, §3.4, §7.6, §11; provider-cloud-api.md §9)', () => {
    const named = [
      // §11, the complete working table (134011 is "in no source": an unknown code, the default row)
      0, 1, 2, 3, 4, 10, 33, 100, 190, 368, 613, 80007, 130429, 130472, 130497, 131000, 131005, 131008, 131009, 131016, 131021, 131026, 131030, 131031, 131037,
      131042, 131044, 131045, 131047, 131048, 131049, 131050, 131051, 131052, 131053, 131055, 131056, 131057, 131062, 131063, 131064, 132000, 132001, 132005,
      132007, 132008, 132012, 132015, 132016, 132018, 132068, 132069, 133000, 133004, 133005, 133006, 133008, 133009, 133010, 133015, 133016, 134100, 134101,
      134102, 135000, 137000, 1752041,
      // §7.6 calling, 138000-138023 as listed
      138000, 138001, 138002, 138003, 138004, 138005, 138006, 138007, 138009, 138012, 138013, 138014, 138015, 138017, 138018, 138019, 138020, 138021, 138022,
      138023,
      // flows and block users (provider-cloud-api.md §3, §5.1)
      139000, 139001, 139002, 139003, 139004, 139100, 139101, 139102, 139103,
      // §2.4 business usernames
      147001, 147002, 147003, 147004, 147005,
    ];
    const documented = new Set(doc.map((r) => r.code));
    expect(named.filter((c) => !documented.has(String(c)))).toEqual([]);
    // the template creation subcodes of code 100 (§6.4) and thread control's (§8)
    const subcodes = doc.filter((r) => r.code === '100' && r.subcode !== null).map((r) => r.subcode);
    expect(subcodes).toEqual(expect.arrayContaining([33, 2388019, 2388040, 2388047, 2388073, 2388293, 2388299, 2494191]));
  });

  it("follows the reference's retry column: never, with backoff, or later (with a Retry-After)", () => {
    const row = (code: string) => doc.find((r) => r.code === code && r.subcode === null)!;
    // N: never retryable
    for (const c of ['0', '3', '10', '33', '131026', '131047', '133005', '133006', '138006', '147001']) expect([c, row(c).retryable]).toEqual([c, false]);
    // Y: the provider-side hiccups the gateway retries itself, 133004 (registration temporarily unavailable) among them
    for (const c of ['1', '2', '131000', '131016', '133004']) expect([c, row(c).retryable, row(c).transient]).toEqual([c, true, true]);
    // L: retryable later, never at once, with the wait it needs
    for (const c of ['4', '368', '613', '80007', '131048', '131049', '131064', '132069', '133008', '133009', '133015', '133016', '134101']) {
      expect([c, row(c).retryable, row(c).transient, typeof row(c).retryAfter]).toEqual([c, true, false, 'number']);
    }
  });

  it('sends tenant-caused conditions as 4xx and provider-side failures as 502/503', () => {
    const status = (code: string) => doc.find((r) => r.code === code && r.subcode === null)!;
    expect(status('131047')).toMatchObject({ status: 409, tenantCode: 'customer_service_window_closed' });
    for (const c of ['131026', '132000', '132001', '131051', '131052', '131053']) expect([c, status(c).status]).toEqual([c, 422]);
    expect(status('138006').status).toBe(409);
    for (const c of ['1', '2', '131000', '131016', '131057']) expect(status(c).status).toBeGreaterThanOrEqual(502);
  });
});
