import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ESLint } from 'eslint';

const ROOT = resolve(__dirname, '../../..');
const FIXTURES = resolve(__dirname, '../fixtures');
const RULES = ['@nx/enforce-module-boundaries', 'no-restricted-imports'];

/** Lints one fixture with the repository's eslint.config.mjs, as if it stood where its `// as:` line says. */
async function boundaryErrors(eslint: ESLint, fixture: string): Promise<string[]> {
  const text = readFileSync(join(FIXTURES, fixture), 'utf8');
  const as = /^\/\/ as: (\S+)/.exec(text)?.[1];
  if (!as) throw new Error(`${fixture} has no "// as: <path>" first line`);
  const [result] = await eslint.lintText(text, { filePath: join(ROOT, as) });
  return result.messages.filter((m) => RULES.includes(m.ruleId ?? '')).map((m) => `${m.line}: ${m.message.split('\n')[0]}`);
}

describe('module boundaries (eslint.config.mjs reading the nx project graph)', () => {
  let eslint: ESLint;
  beforeAll(() => {
    eslint = new ESLint({ cwd: ROOT });
  });

  it('has a fixture for every case below', () => {
    expect(readdirSync(FIXTURES).sort()).toEqual([
      'allowed-e2e.ts',
      'allowed-test.ts',
      'allowed-tool.ts',
      'allowed.ts',
      'app-imports-tool.ts',
      'cycle.ts',
      'data-access-imports-feature.ts',
      'lib-imports-app.ts',
      'lib-imports-tool.ts',
      'lib-test-imports-stack.ts',
      'product-imports-lib-testing.ts',
      'service-imports-service.ts',
      'test-imports-stack.ts',
      'testing-imports-lib.ts',
      'util-imports-data-access.ts',
      'util-imports-feature.ts',
    ]);
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

  it("reports product code using a library's test helpers", async () => {
    expect(await boundaryErrors(eslint, 'product-imports-lib-testing.ts')).toEqual([
      "3: '@gateway/store/testing' import is restricted from being used by a pattern. test helpers are for tests (*.test.ts, src/testing/) only",
    ]);
  });

  it('reports a test beside product code starting the whole stack (it belongs in tools/e2e)', async () => {
    expect(await boundaryErrors(eslint, 'test-imports-stack.ts')).toEqual([
      '4: Circular dependency between "messaging" and "test-stack" detected: messaging -> test-stack -> messaging',
    ]);
    expect(await boundaryErrors(eslint, 'lib-test-imports-stack.ts')).toEqual([
      '3: Circular dependency between "crypto" and "test-stack" detected: crypto -> test-stack -> edge -> crypto',
    ]);
  });

  it('reports the test helpers depending on product code', async () => {
    expect(await boundaryErrors(eslint, 'testing-imports-lib.ts')).toEqual([
      '4: A project tagged with "type:testing" can only depend on libs tagged with "type:testing", "catalogue"',
    ]);
  });

  it('reports a library importing a higher layer (util ← data-access ← feature)', async () => {
    const util = '3: A project tagged with "layer:util" can only depend on libs tagged with "layer:util", "type:testing"';
    expect(await boundaryErrors(eslint, 'util-imports-data-access.ts')).toEqual([util]);
    expect(await boundaryErrors(eslint, 'util-imports-feature.ts')).toEqual([util]);
    expect(await boundaryErrors(eslint, 'data-access-imports-feature.ts')).toEqual([
      '3: A project tagged with "layer:data-access" can only depend on libs tagged with "layer:data-access", "layer:util", "type:testing"',
    ]);
  });

  it('reports a cycle between projects, even one the layers allow', async () => {
    expect(await boundaryErrors(eslint, 'cycle.ts')).toEqual(['3: Circular dependency between "store" and "outbox" detected: store -> outbox -> store']);
  });

  it('lets services use libraries, their tests the test helpers, the e2e tests the stack, and the tooling start apps', async () => {
    expect(await boundaryErrors(eslint, 'allowed.ts')).toEqual([]);
    expect(await boundaryErrors(eslint, 'allowed-test.ts')).toEqual([]);
    expect(await boundaryErrors(eslint, 'allowed-e2e.ts')).toEqual([]);
    expect(await boundaryErrors(eslint, 'allowed-tool.ts')).toEqual([]);
  });
});
