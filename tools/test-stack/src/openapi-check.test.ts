import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tempDir } from '@gateway/testing';
import { OpenApiCheck } from './openapi-check';

const ROOT = resolve(__dirname, '../../..');

const doc = {
  openapi: '3.1.0',
  info: { title: 't', version: '1' },
  paths: {
    '/api/things/{id}': {
      get: {
        operationId: 'getThing',
        responses: {
          '200': {
            description: 'ok',
            headers: { 'X-Thing': { required: true, schema: { type: 'string' } } },
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
          },
          '404': { $ref: '#/components/responses/Error404' },
        },
      },
    },
    '/api/things/special': { get: { operationId: 'getSpecial', responses: { '204': { description: 'none' } } } },
  },
  components: {
    schemas: {
      Thing: { type: 'object', required: ['id'], additionalProperties: false, properties: { id: { type: 'string' } } },
      Error404: {
        type: 'object',
        required: ['detail', 'code'],
        additionalProperties: false,
        properties: { detail: { type: 'string' }, code: { enum: ['not_found'] } },
      },
      Error405: { type: 'object', required: ['detail', 'code'], properties: { detail: { type: 'string' }, code: { type: 'string' } } },
    },
    responses: { Error404: { description: 'nf', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error404' } } } } },
  },
};

const res = (status: number, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }) => ({
  status,
  headers: new Headers(headers),
  text: body === undefined ? '' : JSON.stringify(body),
});

describe('the OpenAPI check of every answer', () => {
  const check = new OpenApiCheck(doc);

  it('passes a documented answer and names its operation; literal paths win over parameters', () => {
    expect(check.check('GET', '/api/things/1?x=1', res(200, { id: '1' }, { 'content-type': 'application/json', 'x-thing': 'a' }))).toBe('getThing');
    expect(check.check('GET', '/api/things/special', res(204, undefined, {}))).toBe('getSpecial');
    expect(check.check('GET', '/api/things/1', res(404, { detail: 'x', code: 'not_found' }))).toBe('getThing');
  });

  it('fails an undocumented status, field, code or header, and an answer to no operation', () => {
    expect(() => check.check('GET', '/api/things/1', res(409, { detail: 'x', code: 'c' }))).toThrow(/status 409 is not documented/);
    expect(() => check.check('GET', '/api/things/1', res(200, { id: '1', extra: true }, { 'content-type': 'application/json', 'x-thing': 'a' }))).toThrow(
      /additional properties/,
    );
    expect(() => check.check('GET', '/api/things/1', res(404, { detail: 'x', code: 'other' }))).toThrow(/allowed values/);
    expect(() => check.check('GET', '/api/things/1', res(200, { id: '1' }))).toThrow(/header X-Thing is missing/);
    expect(() => check.check('GET', '/api/things/special', res(204, { id: 1 }))).toThrow(/without a body/);
    expect(() => check.check('GET', '/api/other', res(200, {}))).toThrow(/no operation/);
    expect(() => check.check('POST', '/api/things/1', res(405, { detail: 'x', code: 'method_not_allowed' }))).not.toThrow();
  });
});

describe('the suite-wide coverage check (scripts/test-summary.mjs)', () => {
  const summary = (dir: string) => {
    try {
      return { code: 0, out: execFileSync(process.execPath, [resolve(ROOT, 'scripts/test-summary.mjs'), dir], { encoding: 'utf8' }) };
    } catch (e) {
      const err = e as { status: number; stdout: string };
      return { code: err.status, out: err.stdout };
    }
  };
  const results = (checked: string[] | undefined) => {
    const dir = tempDir('summary-').path;
    writeFileSync(join(dir, 'p.json'), JSON.stringify({ numPassedTests: 3, numFailedTests: 0, numFailedTestSuites: 0 }));
    if (checked) {
      mkdirSync(join(dir, 'openapi'));
      writeFileSync(join(dir, 'openapi', 'document.json'), JSON.stringify(doc));
      writeFileSync(join(dir, 'openapi', 'checked-1.txt'), checked.join('\n'));
    }
    return dir;
  };

  it('passes when every operation had an answer checked', () => {
    expect(summary(results(['getThing', 'getSpecial']))).toMatchObject({ code: 0 });
  });

  it('fails naming the operations never checked, and when nothing was checked at all', () => {
    const partial = summary(results(['getThing']));
    expect(partial.code).toBe(1);
    expect(partial.out).toContain('1 of 2 operations had no response checked by any test: getSpecial');
    const none = summary(results(undefined));
    expect(none.code).toBe(1);
    expect(none.out).toContain('no response was checked against the OpenAPI document');
  });

  it("counts the checks of every project's folder together", () => {
    const dir = results(undefined);
    for (const [project, checked] of [
      ['e2e', ['getThing']],
      ['chaos', ['getSpecial']],
    ] as const) {
      mkdirSync(join(dir, 'openapi', project), { recursive: true });
      writeFileSync(join(dir, 'openapi', project, 'document.json'), JSON.stringify(doc));
      writeFileSync(join(dir, 'openapi', project, 'checked-7.txt'), checked.join('\n'));
    }
    expect(summary(dir)).toMatchObject({ code: 0 });
    rmSync(join(dir, 'openapi', 'chaos', 'checked-7.txt'));
    expect(summary(dir).out).toContain('1 of 2 operations had no response checked by any test: getSpecial');
  });
});
