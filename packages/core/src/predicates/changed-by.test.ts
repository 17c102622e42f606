import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { ttlChangedBy } from '../internal/ttl-changed-by.js';
import type { TtlMap } from '../internal/ttl-map.js';
import { InvalidArgumentError } from '../invalid-argument-error.js';
import { KeyOfError } from '../run-by-key.js';
import { changedBy } from './changed-by.js';

interface Ev {
  readonly key: string;
  readonly v: number;
  readonly n?: number;
  readonly del?: boolean;
}
const values: Record<string, Ev> = {
  a: { key: 'a', v: 1 },
  b: { key: 'a', v: 1, n: 2 }, // same selected value as a, another object
  c: { key: 'a', v: 2 },
  d: { key: 'd', v: 1 },
  x: { key: 'a', v: 0, del: true },
  y: { key: 'y', v: 0, del: true },
};
const keyOf = (e: Ev): string => e.key;
const select = (e: Ev): number => e.v;
const isDelete = (e: Ev): boolean => e.del === true;

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('changedBy', () => {
  it('passes first sightings and changes, filters repeats, keeps order, per key', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('  -a-b-c-d-b-|', values);
      const subs = '        ^----------!';
      const expected = '    -a---c-d-b-|';
      //                     b repeats a's v=1 (filtered); c changes to 2; d is a new key; b changes back to 1
      expectObservable(source.pipe(changedBy(keyOf, select, undefined, ts))).toBe(expected, values);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('forgets a key ttl after its last sighting (filtered sightings count), then passes it again', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-b---b------b|', values);
      const expected = '    -a------------b|';
      //                     ttl 5: b@3 refreshes a@1, so b@7 (4 after b@3) is still a repeat;
      //                     b@14 comes 7 >= 5 after b@7: the key was forgotten, b passes as new
      expectObservable(source.pipe(changedBy(keyOf, select, { ttl: 5 }, ts))).toBe(expected, values);
    });
  });

  it('passes deletes and forgets their key', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-x-a-y-|', values);
      const expected = '    -a-x-a-y-|';
      //                     a after the delete of key a is a first sighting again; y deletes an unseen key
      expectObservable(source.pipe(changedBy(keyOf, select, { isDelete }, ts))).toBe(expected, values);
    });
  });

  it('uses options.isEqual to compare selected values', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-c-d-|', values);
      const expected = '    -a---d-|';
      const isEqual = (p: number, q: number): boolean => Math.abs(p - q) < 2;
      expectObservable(source.pipe(changedBy(keyOf, select, { isEqual }, ts))).toBe(expected, values);
    });
  });

  it('forwards completion and errors', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      expectObservable(hot('-a-b-|', values).pipe(changedBy(keyOf, select, undefined, ts))).toBe(
        '-a---|',
        values,
      );
      expectObservable(hot('-a-b-#', values).pipe(changedBy(keyOf, select, undefined, ts))).toBe(
        '-a---#',
        values,
      );
    });
  });

  it('holds ONE sweep timer for many keys and cancels it on unsubscribe', () => {
    const ts = newScheduler();
    ts.run(() => {
      const subject = new Subject<Ev>();
      const sub = subject.pipe(changedBy(keyOf, select, { ttl: 50 }, ts)).subscribe();
      for (let i = 0; i < 100; i++) subject.next({ key: `k${i}`, v: i });
      expect(ts.actions.length).toBe(1);
      sub.unsubscribe();
      expect(ts.actions.length).toBe(0);
      expect(subject.observed).toBe(false);
    });
  });

  it('empties its memory and holds no timer once every key is idle for ttl', () => {
    const ts = newScheduler();
    const samples: [number, number, boolean][] = [];
    ts.run(({ hot }) => {
      let memory: TtlMap<string, number> | undefined;
      const source = hot('  -a-d-c-------', values);
      source
        .pipe(
          ttlChangedBy<Ev, string, number>({
            operator: 'changedBy',
            keyOf,
            select,
            isEqual: Object.is,
            isDelete,
            ttl: 4,
            scheduler: ts,
            inspect: (m) => (memory = m),
          }),
        )
        .subscribe();
      for (const frame of [2, 6, 8, 10, 12]) {
        ts.schedule(() => samples.push([frame, memory?.size ?? -1, memory?.sweepPending ?? false]), frame);
      }
    });
    //  a@1, d@3, c@5 (key a): d expires at 7, a at 9
    expect(samples).toEqual([
      [2, 1, true],
      [6, 2, true],
      [8, 1, true],
      [10, 0, false],
      [12, 0, false],
    ]);
  });

  it('errors with a KeyOfError when keyOf throws, and names select when select throws', () => {
    const ts = newScheduler();
    const errors: unknown[] = [];
    ts.run(({ hot, expectSubscriptions }) => {
      const s1 = hot('-a-', values);
      const s2 = hot('-a-', values);
      const boom = new Error('boom');
      const thrower = (): never => {
        throw boom;
      };
      s1.pipe(changedBy(thrower, select, undefined, ts)).subscribe({ error: (e: unknown) => errors.push(e) });
      s2.pipe(changedBy(keyOf, thrower, undefined, ts)).subscribe({ error: (e: unknown) => errors.push(e) });
      expectSubscriptions(s1.subscriptions).toBe('^!');
      expectSubscriptions(s2.subscriptions).toBe('^!');
    });
    expect(errors[0]).toBeInstanceOf(KeyOfError);
    expect((errors[0] as KeyOfError).operator).toBe('changedBy');
    expect((errors[1] as Error).message).toMatch(/^changedBy: select threw .*boom/);
    expect((errors[1] as Error).cause).toBeInstanceOf(Error);
  });

  it('throws InvalidArgumentError naming the argument', () => {
    const cases: [() => unknown, string][] = [
      [() => changedBy(keyOf, select, { ttl: 0 }), 'options.ttl'],
      [() => changedBy(keyOf, select, { ttl: -5 }), 'options.ttl'],
      [() => changedBy(keyOf, select, { ttl: Infinity }), 'options.ttl'],
      [() => changedBy(keyOf, select, { ttl: Number.NaN }), 'options.ttl'],
      [() => changedBy(keyOf, select, { isEqual: 1 as unknown as () => boolean }), 'options.isEqual'],
      [() => changedBy(keyOf, select, { isDelete: 'x' as unknown as () => boolean }), 'options.isDelete'],
      [() => changedBy(keyOf, undefined as unknown as typeof select), 'select'],
      [() => changedBy(undefined as unknown as typeof keyOf, select), 'keyOf'],
    ];
    for (const [make, argument] of cases) {
      let thrown: unknown;
      try {
        make();
      } catch (e) {
        thrown = e;
      }
      expect(thrown, argument).toBeInstanceOf(InvalidArgumentError);
      expect((thrown as InvalidArgumentError).argument).toBe(argument);
    }
  });
});
