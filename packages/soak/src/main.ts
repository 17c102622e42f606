/**
 * `pnpm soak [--short] [--seed N] [--objects N] [--replicas N] …`: runs the chaos soak (with
 * `--replicas N`, its multi-replica mode) and prints its figures; exits 1 when a check failed.
 *
 * @module
 */
import { configFromArgs } from './config.js';
import { formatReport } from './report.js';
import { formatShardedReport, runShardedSoak } from './sharded.js';
import { runSoak } from './soak.js';

const config = (() => {
  try {
    return configFromArgs(process.argv.slice(2));
  } catch (e) {
    console.error(e instanceof Error ? e.message : String(e));
    process.exit(2);
  }
})();
if (config.replicas > 0) {
  const report = await runShardedSoak(config, (line) => console.log(line));
  console.log(formatShardedReport(report));
  process.exitCode = report.ok ? 0 : 1;
} else {
  const report = await runSoak(config, (line) => console.log(line));
  console.log(formatReport(report));
  process.exitCode = report.ok ? 0 : 1;
}
