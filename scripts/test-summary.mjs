// Sums the jest JSON reports of every project into one closing line: "Tests: N passed, N failed".
// Then the OpenAPI coverage: every operation of the edge's document must have had a response checked against it
// by the tests' API client (tools/test-stack/src/openapi-check.ts writes .test-results/openapi/); fails otherwise.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? '.test-results';
let passed = 0;
let failed = 0;
let suitesFailed = 0;
const projects = [];
for (const f of readdirSync(dir).filter((n) => n.endsWith('.json')).sort()) {
  const r = JSON.parse(readFileSync(join(dir, f), 'utf8'));
  passed += r.numPassedTests;
  failed += r.numFailedTests;
  suitesFailed += r.numFailedTestSuites;
  projects.push(`${f.replace(/\.json$/, '')}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
}
console.log(projects.join('\n'));
if (passed + failed === 0) {
  console.log('no test results found');
  process.exit(1);
}

/** Operation ids of the document that no test's response was checked against; an error text when there is no record at all. */
function uncheckedOperations(openapiDir) {
  const docFile = join(openapiDir, 'document.json');
  if (!existsSync(docFile)) return { error: `no response was checked against the OpenAPI document (${docFile} is missing)` };
  const doc = JSON.parse(readFileSync(docFile, 'utf8'));
  const ids = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId)).filter(Boolean);
  if (ids.length === 0) return { error: 'the OpenAPI document has no operations' };
  const checked = new Set(
    readdirSync(openapiDir)
      .filter((n) => n.startsWith('checked-'))
      .flatMap((n) => readFileSync(join(openapiDir, n), 'utf8').split('\n').filter(Boolean)),
  );
  return { total: ids.length, missing: ids.filter((id) => !checked.has(id)) };
}

let coverageFailed = false;
const coverage = uncheckedOperations(join(dir, 'openapi'));
if (coverage.error) {
  console.log(`OpenAPI coverage: ${coverage.error}`);
  coverageFailed = true;
} else if (coverage.missing.length) {
  console.log(`OpenAPI coverage: ${coverage.missing.length} of ${coverage.total} operations had no response checked by any test: ${coverage.missing.join(', ')}`);
  coverageFailed = true;
} else {
  console.log(`OpenAPI coverage: every one of the ${coverage.total} operations had a response checked against the document`);
}
console.log(`Tests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || suitesFailed > 0 || coverageFailed ? 1 : 0);
