import { describe, expect, it } from 'vitest';

import { SHORT_SHARDED } from './config.js';
import { formatShardedReport, runShardedSoak } from './sharded.js';

describe('the short multi-replica soak (pnpm soak -- --replicas 3 runs the full one)', () => {
  it('kills, restarts, joins and leaves among the faults: no key twice at once, every last version reconciled', async () => {
    const report = await runShardedSoak(SHORT_SHARDED);
    const text = formatShardedReport(report);
    console.log(text);
    expect(
      report.replicaFaults.kill +
        report.replicaFaults.restartSameIdentity +
        report.replicaFaults.restartNewIdentity,
      text,
    ).toBeGreaterThan(0);
    expect(report.overlaps, text).toEqual([]);
    expect(report.stale, text).toEqual([]);
    expect(report.stores, text).toEqual([]);
    expect(report.errors, text).toEqual({ unhandled: 0 });
    expect(report.ok, text).toBe(true);
  }, 120_000);
});
