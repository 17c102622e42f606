/**
 * The soak's figures as text (what `pnpm soak` prints and packages/kube/README.md records).
 *
 * @module
 */
import type { SoakReport } from './soak.js';

/** A multi-line summary of a run. */
export function formatReport(r: SoakReport): string {
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  const faults = Object.entries(r.injected)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const lines = [
    `soak ${r.ok ? 'PASSED' : 'FAILED'} (seed ${r.config.seed})`,
    `  objects: ${r.config.objects} ConfigMaps over ${r.config.namespaces} namespaces (+ Secrets, parents and children)`,
    `  controllers: ${r.controllers} on ${r.watches} shared watches; ${r.reconciles} reconciles, ${r.injectedFailures} injected failures (${r.thrownSync} thrown synchronously, ${r.hung} hung until the deadline)`,
    `  writes: ${r.writes.attempted} (${r.writes.succeeded} landed, ${r.writes.raced} raced 404/409, ${r.writes.failed} cut by restarts)`,
    `  faults injected: ${Object.values(r.injected).reduce((a, b) => a + b, 0)} — ${faults}`,
    `  faults that hit: ${Object.entries(r.happened)
      .map(([k, n]) => `${k} ${String(n)}`)
      .join(', ')}`,
    `  time: seed ${s(r.ms.seed)}, initial sync ${s(r.ms.initialSync)}, storm ${s(r.ms.storm)}, convergence after the storm ${s(r.ms.converge)}`,
    `  heap after GC: ${r.heapMb.start.toFixed(1)} MB after the initial sync, ${r.heapMb.end.toFixed(1)} MB after convergence${r.config.serverInWorker ? '' : ' (server in this thread: not compared)'}`,
    `  errors: ${r.errors.observable} Observable, ${r.errors.unhandled} unhandled, ${r.errors.terminal} terminal; ${r.afterIdle} reconciles after idle; ${r.verdict.overlaps} overlapping reconciles`,
  ];
  for (const m of r.verdict.stores) lines.push(`  STORE ${m}`);
  for (const m of r.verdict.stale) lines.push(`  STALE ${m}`);
  return lines.join('\n');
}
