// Prints vitest's totals as one plain closing line ("tests: N passed, N failed, N skipped") and
// exits non-zero unless the run succeeded with at least one test executed.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.rxkube/vitest-report.json';
if (!existsSync(file)) {
  console.error(`rxkube: no vitest report at ${file}: vitest did not finish (see its output above).`);
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
if (!r.success || r.numFailedTests > 0 || r.numFailedTestSuites > 0) process.exit(1);
if (r.numPassedTests === 0) {
  console.error('rxkube: vitest ran no test.');
  process.exit(1);
}
