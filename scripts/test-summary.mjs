// Sums the jest JSON reports of every project into one closing line: "Tests: N passed, N failed".
import { readdirSync, readFileSync } from 'node:fs';
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
console.log(`Tests: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || suitesFailed > 0 ? 1 : 0);
