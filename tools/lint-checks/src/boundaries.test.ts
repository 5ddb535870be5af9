import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';

const ROOT = resolve(__dirname, '../../..');
const FIXTURES = resolve(__dirname, '../fixtures');
const RULE = '@nx/enforce-module-boundaries';

/** Lints one fixture with the repository's eslint.config.mjs, as if it stood where its `// as:` line says. */
async function boundaryErrors(eslint: ESLint, fixture: string): Promise<string[]> {
  const text = readFileSync(join(FIXTURES, fixture), 'utf8');
  const as = /^\/\/ as: (\S+)/.exec(text)?.[1];
  if (!as) throw new Error(`${fixture} has no "// as: <path>" first line`);
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, as) });
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => `${m.line}: ${m.message.split('\n')[0]}`);
}

describe('module boundaries (eslint.config.mjs reading the nx project graph)', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  it('has a fixture for every case below', () => {
    expect(readdirSync(FIXTURES).sort()).toEqual(['allowed-test.ts', 'allowed-tool.ts', 'allowed.ts', 'app-imports-tool.ts', 'lib-imports-app.ts', 'lib-imports-tool.ts', 'service-imports-service.ts']);
  });

  it('reports a library importing an app', async () => {
    expect(await boundaryErrors(eslint, 'lib-imports-app.ts')).toEqual(['3: Imports of apps are forbidden']);
  });

  it('reports product code importing test tooling', async () => {
    expect(await boundaryErrors(eslint, 'app-imports-tool.ts')).toEqual(['3: A project tagged with "type:app" can only depend on libs tagged with "type:lib"']);
    expect(await boundaryErrors(eslint, 'lib-imports-tool.ts')).toEqual(['3: A project tagged with "type:lib" can only depend on libs tagged with "type:lib"']);
  });

  it('reports a service importing another service, by alias or by relative path', async () => {
    expect(await boundaryErrors(eslint, 'service-imports-service.ts')).toEqual([
      '3: Imports of apps are forbidden',
      '4: Projects cannot be imported by a relative or absolute path, and must begin with a npm scope',
    ]);
  });

  it('lets services use libraries, their tests use the tooling, and the tooling start apps', async () => {
    expect(await boundaryErrors(eslint, 'allowed.ts')).toEqual([]);
    expect(await boundaryErrors(eslint, 'allowed-test.ts')).toEqual([]);
    expect(await boundaryErrors(eslint, 'allowed-tool.ts')).toEqual([]);
  });
});
