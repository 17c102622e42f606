// Prints vitest's totals as one plain closing line ("tests: N passed, N failed, N skipped") and
// exits non-zero unless the run succeeded with at least one test executed. Before it, a line per
// test backend (suites named "… [embedded]" / "… [real]" by describeEachBackend) and why tests
// were skipped, so a run without the real-server tier says so and how to enable it.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.rxkube/vitest-report.json';
if (!existsSync(file)) {
  console.error(`rxkube: no vitest report at ${file}: vitest did not finish (see its output above).`);
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));

const tiers = new Map(); // backend → { passed, failed, skipped, ms }
const skipReasons = new Map(); // reason → count
const tierOf = (titles) => {
  for (const t of titles) {
    const m = /\[(embedded|real)\]/.exec(t);
    if (m) return m[1];
  }
  return 'unit';
};
const reasonOf = (titles, title) => {
  for (const t of [...titles, title]) {
    const m = /— skipped(?: on \w+)?: (.*)$/.exec(t);
    if (m) return m[1];
  }
  return undefined;
};
for (const file of r.testResults ?? []) {
  for (const a of file.assertionResults ?? []) {
    const tier = tierOf(a.ancestorTitles ?? []);
    const t = tiers.get(tier) ?? { passed: 0, failed: 0, skipped: 0, ms: 0 };
    if (a.status === 'passed') t.passed++;
    else if (a.status === 'failed') t.failed++;
    else t.skipped++;
    t.ms += a.duration ?? 0;
    tiers.set(tier, t);
    if (a.status !== 'passed' && a.status !== 'failed') {
      const reason = reasonOf(a.ancestorTitles ?? [], a.title ?? '');
      if (reason !== undefined) skipReasons.set(reason, (skipReasons.get(reason) ?? 0) + 1);
    }
  }
}
for (const [tier, t] of [...tiers.entries()].sort()) {
  const label = tier === 'unit' ? 'unit and embedded-only' : `${tier} backend`;
  console.log(
    `  ${label}: ${t.passed} passed, ${t.failed} failed, ${t.skipped} skipped (${(t.ms / 1000).toFixed(1)} s of test time)`,
  );
}
for (const [reason, n] of [...skipReasons.entries()].sort((a, b) => b[1] - a[1])) {
  console.log(`  skipped ×${n}: ${reason}`);
}
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`);
if (!r.success || r.numFailedTests > 0 || r.numFailedTestSuites > 0) process.exit(1);
if (r.numPassedTests === 0) {
  console.error('rxkube: vitest ran no test.');
  process.exit(1);
}
