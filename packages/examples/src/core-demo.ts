/**
 * The core demo: a burst of object changes flows through `debounceByKey` → `applier` (runByKey
 * workqueue semantics, per-key backoff, requeue) with a reconcile that fails transiently for some
 * keys. It prints each reconcile outcome and a summary, and exits non-zero unless every object
 * converged to its latest version. No API server involved: this is `@rxkube/core` alone.
 */
import { Action, applier, debounceByKey, TerminalError, type ReconcileResult } from '@rxkube/core';
import {
  concat,
  defer,
  from,
  ignoreElements,
  lastValueFrom,
  mergeMap,
  scan,
  tap,
  timer,
  toArray,
} from 'rxjs';

interface Change {
  readonly key: string;
  readonly version: number;
}

/** Plays a scripted sequence of changes: hot keys change often, some keys fail a few times. */
export async function runCoreDemo(log: (line: string) => void = console.log): Promise<boolean> {
  const keys = ['default/web', 'default/api', 'shop/cart', 'shop/checkout', 'ops/bad-config'];
  const changes: Change[] = [];
  for (let round = 1; round <= 5; round++) for (const key of keys) changes.push({ key, version: round });

  const failuresLeft = new Map<string, number>([['shop/checkout', 2]]);
  const reconciled = new Map<string, number>();

  // The source stays open a little after the last change, so retries scheduled by the applier
  // (it cancels pending timers when its source completes) still run.
  const events$ = concat(
    from(changes).pipe(mergeMap((c, i) => timer(i * 3).pipe(scan(() => c, c)))),
    timer(300).pipe(ignoreElements()),
  );
  const results = await lastValueFrom(
    events$.pipe(
      debounceByKey((c) => c.key, 20, { maxWait: 60 }),
      applier(
        (c) => c.key,
        (c) =>
          defer(async () => {
            await lastValueFrom(timer(5));
            if (c.key === 'ops/bad-config') throw new TerminalError(`${c.key}: spec.replicas must be >= 0`);
            const left = failuresLeft.get(c.key) ?? 0;
            if (left > 0) {
              failuresLeft.set(c.key, left - 1);
              throw new Error(`${c.key}: transient API error (simulated 503)`);
            }
            reconciled.set(c.key, c.version);
            return Action.awaitChange();
          }),
        { concurrency: 2 },
      ),
      tap((r: ReconcileResult<Change, string>) =>
        log(
          `${r.outcome.padEnd(8)} ${r.key.padEnd(16)} v${r.value.version}` +
            (r.retryInMs !== undefined ? `  retry in ${r.retryInMs.toFixed(0)} ms` : '') +
            (r.error ? `  (${r.error.message})` : ''),
        ),
      ),
      toArray(),
    ),
  );

  log('');
  log('key               latest  reconciled  reconciles');
  let ok = true;
  for (const key of keys) {
    const latest = Math.max(...changes.filter((c) => c.key === key).map((c) => c.version));
    const done = reconciled.get(key);
    const expectedTerminal = key === 'ops/bad-config';
    ok &&= expectedTerminal ? done === undefined : done === latest;
    log(
      `${key.padEnd(18)}v${latest}      ${done === undefined ? (expectedTerminal ? 'terminal' : 'NO') : `v${done}`}`.padEnd(
        38,
      ) + String(results.filter((r) => r.key === key).length),
    );
  }
  log(
    `${changes.length} changes → ${results.length} reconciles; ${ok ? 'every object converged' : 'NOT converged'}`,
  );
  return ok;
}
