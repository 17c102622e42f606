import fc from 'fast-check';
import { map, merge, of, tap, timer } from 'rxjs';
import type { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { runByKey } from './run-by-key.js';
import { sinkByKey } from './sink-by-key.js';

/** One source event: arrives at `at` (virtual ms); its work takes `dur` ms (-1: synchronous `of`). */
interface Ev {
  readonly id: number;
  readonly key: number;
  readonly at: number;
  readonly dur: number;
}

const scenario = fc
  .record({
    concurrency: fc.integer({ min: 1, max: 4 }),
    steps: fc.array(
      fc.record({
        gap: fc.integer({ min: 0, max: 3 }),
        key: fc.integer({ min: 0, max: 4 }),
        dur: fc.integer({ min: -1, max: 6 }),
      }),
      { maxLength: 40 },
    ),
    unsubscribeAt: fc.option(fc.integer({ min: 0, max: 80 }), { nil: undefined }),
  })
  .map(({ concurrency, steps, unsubscribeAt }) => {
    let at = 0;
    const events: Ev[] = steps.map((s, id) => {
      at += s.gap;
      return { id, key: s.key, at, dur: s.dur };
    });
    return { concurrency, events, unsubscribeAt };
  });

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** Emits each event at its `at` (same-time events in array order), then completes. */
function sourceOf(events: readonly Ev[]): Observable<Ev> {
  return merge(...events.map((e) => timer(e.at).pipe(map(() => e))));
}

interface Run {
  readonly id: number;
  readonly key: number;
  readonly start: number;
  end?: number;
}

describe('runByKey properties', () => {
  it('serialises keys, bounds concurrency, processes every key’s last value and stops on unsubscribe', () => {
    fc.assert(
      fc.property(scenario, ({ concurrency, events, unsubscribeAt }) => {
        const scheduler = newScheduler();
        const runs: Run[] = [];
        const emitted: number[] = [];
        const busyKeys = new Set<number>();
        const violations: string[] = [];
        let active = 0;
        let unsubscribed = false;
        let completed = false;

        scheduler.run(() => {
          const work = (e: Ev, key: number): Observable<number> => {
            const now = scheduler.now();
            if (unsubscribed) violations.push(`started ${e.id} after unsubscribe`);
            if (busyKeys.has(key)) violations.push(`key ${key} started twice at ${now}`);
            busyKeys.add(key);
            active++;
            if (active > concurrency) violations.push(`${active} in flight > ${concurrency} at ${now}`);
            const run: Run = { id: e.id, key, start: now };
            runs.push(run);
            const release = () => {
              busyKeys.delete(key);
              active--;
            };
            return (e.dur < 0 ? of(e.id) : timer(e.dur).pipe(map(() => e.id))).pipe(
              tap({
                complete: () => {
                  run.end = scheduler.now();
                  release();
                },
                error: release,
                unsubscribe: release,
              }),
            );
          };
          const subscription = sourceOf(events)
            .pipe(runByKey((e: Ev) => e.key, work, { concurrency }))
            .subscribe({
              next: (id) => {
                if (unsubscribed) violations.push(`emitted ${id} after unsubscribe`);
                emitted.push(id);
              },
              complete: () => (completed = true),
            });
          if (unsubscribeAt !== undefined) {
            scheduler.schedule(() => {
              subscription.unsubscribe();
              unsubscribed = true;
              if (active !== 0) violations.push(`${active} runs still in flight after unsubscribe`);
            }, unsubscribeAt);
          }
        });

        expect(violations).toEqual([]);
        // each value runs at most once, and after it arrived; per key in arrival order
        expect(new Set(runs.map((r) => r.id)).size).toBe(runs.length);
        const lastIdOfKey = new Map<number, number>();
        for (const r of runs) {
          const e = events[r.id];
          expect(e !== undefined && r.start >= e.at).toBe(true);
          const before = lastIdOfKey.get(r.key);
          if (before !== undefined) expect(r.id).toBeGreaterThan(before);
          lastIdOfKey.set(r.key, r.id);
        }
        // every completed run's result was emitted
        expect(emitted.sort((x, y) => x - y)).toEqual(
          runs
            .filter((r) => r.end !== undefined)
            .map((r) => r.id)
            .sort((x, y) => x - y),
        );
        if (unsubscribed) return;
        // no unsubscribe: the last value of every key was processed, and the output completed
        const lastArrival = new Map<number, Ev>();
        for (const e of events) lastArrival.set(e.key, e);
        for (const last of lastArrival.values()) {
          const run = runs.find((r) => r.id === last.id);
          expect(run, `last value ${last.id} of key ${last.key}`).toBeDefined();
          expect(run?.end).toBeDefined();
        }
        expect(completed).toBe(true);
        expect(active).toBe(0);
      }),
      { numRuns: 300 },
    );
  });

  it('sinkByKey reports exactly one result per value: written or superseded', () => {
    fc.assert(
      fc.property(scenario, ({ concurrency, events }) => {
        const results: { kind: string; id: number }[] = [];
        newScheduler().run(() => {
          sourceOf(events)
            .pipe(
              sinkByKey(
                (e: Ev) => e.key,
                (e) => (e.dur < 0 ? of(e.id) : timer(e.dur).pipe(map(() => e.id))),
                { concurrency },
              ),
            )
            .subscribe((r) => results.push({ kind: r.kind, id: r.value.id }));
        });
        expect(results.map((r) => r.id).sort((x, y) => x - y)).toEqual(events.map((e) => e.id));
        // the last value of every key is written, never superseded
        const last = new Map<number, number>();
        for (const e of events) last.set(e.key, e.id);
        for (const id of last.values()) expect(results.find((r) => r.id === id)?.kind).toBe('written');
      }),
      { numRuns: 300 },
    );
  });
});
