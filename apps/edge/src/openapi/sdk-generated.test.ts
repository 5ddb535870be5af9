import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { SDK_TYPES_FILE } from './generate';

const ROOT = resolve(__dirname, '../../../..');

describe("the SDK's generated code", () => {
  // openapi-typescript is an ES module jest cannot load here: the check runs the generator itself (a child process)
  it('is what openapi-typescript makes of the current document (else: npm run sdk:generate)', () => {
    const run = () => execFileSync(process.execPath, [resolve(ROOT, 'scripts/sdk-generate.mjs'), '--check'], { cwd: ROOT, stdio: 'pipe' });
    expect(run).not.toThrow();
    expect(readFileSync(resolve(ROOT, SDK_TYPES_FILE), 'utf8')).toContain('sendButtons: {');
  }, 120_000);
});
