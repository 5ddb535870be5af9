// Sums the jest JSON reports of every project into one closing line: "Tests: N passed, N failed".
// Then the OpenAPI coverage: every operation of the edge's document must have had a response checked against it
// by the tests' API client (tools/test-stack/src/openapi-check.ts writes .test-results/openapi/<project>/); fails otherwise.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.argv[2] ?? '.test-results';
let passed = 0;
let failed = 0;
let suitesFailed = 0;
const projects = [];
for (const f of readdirSync(dir)
  .filter((n) => n.endsWith('.json'))
  .sort()) {
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

/**
 * The files in `dir` and its project folders whose name `match` accepts.
 * @param {string} dir @param {(name: string) => boolean} match @returns {string[]}
 */
function filesIn(dir, match) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesIn(join(dir, e.name), match) : match(e.name) ? [join(dir, e.name)] : [],
  );
}

/**
 * Operation ids of the document that no test's response was checked against; an error text when there is no record
 * at all. Each test project writes its own folder (openapi/<project>/, restored by nx from its cache like its report),
 * so the checks of every folder count, against the document any of them fetched.
 */
/** @param {string} openapiDir @returns {{ error: string } | { error?: undefined, total: number, missing: string[] }} */
function uncheckedOperations(openapiDir) {
  const docFiles = filesIn(openapiDir, (n) => n === 'document.json');
  if (docFiles.length === 0) return { error: `no response was checked against the OpenAPI document (no ${join(openapiDir, '**', 'document.json')})` };
  const ids = new Set(
    docFiles.flatMap((f) =>
      Object.values(JSON.parse(readFileSync(f, 'utf8')).paths)
        .flatMap((item) => Object.values(item).map((op) => op.operationId))
        .filter(Boolean),
    ),
  );
  if (ids.size === 0) return { error: 'the OpenAPI document has no operations' };
  const checked = new Set(filesIn(openapiDir, (n) => n.startsWith('checked-')).flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean)));
  return { total: ids.size, missing: [...ids].filter((id) => !checked.has(id)) };
}

let coverageFailed = false;
const coverage = uncheckedOperations(join(dir, 'openapi'));
if (coverage.error !== undefined) {
  console.log(`OpenAPI coverage: ${coverage.error}`);
  coverageFailed = true;
} else if (coverage.missing.length) {
  console.log(
    `OpenAPI coverage: ${coverage.missing.length} of ${coverage.total} operations had no response checked by any test: ${coverage.missing.join(', ')}`,
  );
  coverageFailed = true;
} else {
  console.log(`OpenAPI coverage: every one of the ${coverage.total} operations had a response checked against the document`);
}
console.log(`Tests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || suitesFailed > 0 || coverageFailed ? 1 : 0);
