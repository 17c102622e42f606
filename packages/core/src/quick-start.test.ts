// The README's quick start, compiled (tsc -b) and run by CI. The block between the markers must
// stay identical to the README's "Quick start" code block; the last test checks that.
import { readFileSync } from 'node:fs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

// quick-start:begin
import { Action, applier, debounceByKey } from '@rxkube/core';
import { type Observable, map } from 'rxjs';

interface Change {
  key: string; // namespace/name
  spec: { replicas: number };
}

/** Coalesce bursts per key, reconcile at most 4 keys at once, never one key twice. */
export function controllerLoop(changes$: Observable<Change>, apply: (c: Change) => Observable<void>) {
  return changes$.pipe(
    debounceByKey((c) => c.key, 100, { maxWait: 1_000 }),
    applier(
      (c) => c.key,
      (c) => apply(c).pipe(map(() => Action.requeue(5 * 60_000))),
      { concurrency: 4 },
    ),
  );
}
// quick-start:end

describe('README quick start', () => {
  it('coalesces a burst per key and reconciles the latest value', () => {
    const applied: number[] = [];
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, hot, expectObservable }) => {
      const a1 = { key: 'ns/a', spec: { replicas: 1 } };
      const a2 = { key: 'ns/a', spec: { replicas: 2 } };
      const out = controllerLoop(hot('a b 200ms |', { a: a1, b: a2 }), (c) => {
        applied.push(c.spec.replicas);
        return cold('-(x|)', { x: undefined });
      }).pipe(map((r) => r.outcome));
      // b at frame 1, debounced 100 → reconcile starts at 101, its apply emits at 102; the source
      // completes at 1 + 1 + 200 = 202, which cancels the 5-minute requeue and completes.
      expectObservable(out).toBe('102ms r 99ms |', { r: 'requeue' });
    });
    expect(applied).toEqual([2]);
  });

  it('matches the README', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const source = readFileSync(new URL(import.meta.url), 'utf8');
    const block = /## Quick start[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    const code = /\/\/ quick-start:begin\n([\s\S]*?)\/\/ quick-start:end/.exec(source)?.[1];
    expect(block).toBeDefined();
    expect(block).toBe(code);
  });
});
