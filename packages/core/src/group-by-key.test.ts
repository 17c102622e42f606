import { catchError, endWith, map, mergeMap, of, Subject, take } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { groupByKey, groupByNamespace } from './group-by-key.js';
import { timedGroupBy } from './internal/timed-group-by.js';
import { InvalidArgumentError } from './invalid-argument-error.js';
import { KeyOfError } from './run-by-key.js';

// Values are strings; the key is the first character: x1, x2, ... share key "x".
const values = { a: 'x1', b: 'x2', c: 'x3', y: 'y1', z: 'y2', X: 'x done', Y: 'y done' };
const keyOf = (s: string): string => s.charAt(0);

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('groupByKey', () => {
  it('routes values to one group per key and completes each group after `duration` idle', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-y-b------c---|', values);
      const expected = '    -a-y-b-Y-X--c---(X|)';
      //                     x opens at 1 (due 5); b arrives at 5 before the timer: due 9. y opens at 3, idle at 7.
      //                     x idles at 9; c at 12 opens a NEW x group, completed with the source at 16.
      const out = source.pipe(
        groupByKey(keyOf, { duration: 4 }, ts),
        mergeMap((g) => g.pipe(endWith(`${g.key} done`))),
      );
      expectObservable(out).toBe(expected, values);
    });
  });

  it('emits a group per key opening, a later value after idle opening a new one', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-y-b------c---|', values);
      const expected = '    -x-y--------x---|';
      const out = source.pipe(
        groupByKey(keyOf, { duration: 4 }, ts),
        map((g) => g.key),
      );
      expectObservable(out).toBe(expected, { x: 'x', y: 'y' });
    });
  });

  it('empties its internal group map when keys go idle', () => {
    const ts = newScheduler();
    const samples: [number, number][] = [];
    ts.run(({ hot }) => {
      const source = hot('  -a-y-b------c---|', values);
      let groups: ReadonlyMap<string, unknown> = new Map();
      source
        .pipe(
          timedGroupBy('groupByKey', keyOf, 4, ts, (m) => (groups = m)),
          mergeMap((g) => g),
        )
        .subscribe();
      for (const frame of [2, 4, 6, 8, 10, 13, 17])
        ts.schedule(() => samples.push([frame, groups.size]), frame);
    });
    //                 x        x,y      x,y      x        none      x (new)   none
    expect(samples).toEqual([
      [2, 1],
      [4, 2],
      [6, 2],
      [8, 1],
      [10, 0],
      [13, 1],
      [17, 0],
    ]);
  });

  it('keeps a group open (dropping values) when its subscriber unsubscribed, until it idles out', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-b-----c--|', values);
      const expected = '    -a-------c--|';
      //                     take(1) leaves the x group at 1; b at 3 still belongs to it (dropped); idle at 6;
      //                     c at 9 opens a new group
      const out = source.pipe(
        groupByKey(keyOf, { duration: 3 }, ts),
        mergeMap((g) => g.pipe(take(1))),
      );
      expectObservable(out).toBe(expected, values);
    });
  });

  it('after the outer unsubscribes, keeps feeding subscribed groups and drops new keys until they idle', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('  -a-y-b--------|', values);
      const subs = '        ^--------!';
      const expected = '    -a---b---|';
      //                     take(1) unsubscribes the outer at 1; y (a new key) is dropped; b extends x to
      //                     5+4=9, when x completes and, with nothing subscribed, the source is released
      const out = source.pipe(
        groupByKey(keyOf, { duration: 4 }, ts),
        take(1),
        mergeMap((g) => g),
      );
      expectObservable(out).toBe(expected, values);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('on error errors every open group, then the outer', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-y-#', values, new Error('boom'));
      const expected = '    -a-y-(XY#)';
      const out = source.pipe(
        groupByKey(keyOf, { duration: 10 }, ts),
        mergeMap((g) => g.pipe(catchError((e: unknown) => of(`${g.key} ${(e as Error).message}`)))),
      );
      expectObservable(out).toBe(expected, { ...values, X: 'x boom', Y: 'y boom' }, new Error('boom'));
    });
  });

  it('on unsubscribe releases the source and cancels the shared idle timer', () => {
    const ts = newScheduler();
    ts.run(() => {
      const subject = new Subject<string>();
      const seen: string[] = [];
      const sub = subject
        .pipe(
          groupByKey(keyOf, { duration: 5 }, ts),
          mergeMap((g) => g),
        )
        .subscribe((v) => seen.push(v));
      for (const v of ['x1', 'y1', 'z1', 'x2']) subject.next(v);
      expect(seen).toEqual(['x1', 'y1', 'z1', 'x2']);
      expect(ts.actions.length).toBe(1); // three groups, one timer
      sub.unsubscribe();
      expect(ts.actions.length).toBe(0);
      expect(subject.observed).toBe(false);
    });
  });

  it('errors groups and outer with a KeyOfError when keyOf throws', () => {
    const ts = newScheduler();
    let error: unknown;
    const seen: string[] = [];
    ts.run(({ hot, expectSubscriptions }) => {
      const source = hot('  -a-y--', values);
      const cause = new Error('no key');
      source
        .pipe(
          groupByKey(
            (s: string) => {
              if (s === 'y1') throw cause;
              return keyOf(s);
            },
            { duration: 10 },
            ts,
          ),
          mergeMap((g) => g.pipe(catchError((e: unknown) => of(`${g.key} ${(e as Error).name}`)))),
        )
        .subscribe({ next: (v) => seen.push(v), error: (e: unknown) => (error = e) });
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
    expect(seen).toEqual(['x1', 'x KeyOfError']);
    expect(error).toBeInstanceOf(KeyOfError);
    expect((error as KeyOfError).operator).toBe('groupByKey');
  });

  it('throws InvalidArgumentError naming the argument', () => {
    const bad: [unknown, string][] = [
      [undefined, 'options'],
      [{ duration: -1 }, 'options.duration'],
      [{ duration: Infinity }, 'options.duration'],
      [{ duration: Number.NaN }, 'options.duration'],
    ];
    for (const [options, argument] of bad) {
      let thrown: unknown;
      try {
        groupByKey(keyOf, options as { duration: number });
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(InvalidArgumentError);
      expect((thrown as InvalidArgumentError).argument).toBe(argument);
    }
    expect(() => groupByKey(null as unknown as (s: string) => string, { duration: 1 })).toThrow(/keyOf/);
  });
});

describe('groupByNamespace', () => {
  interface Obj {
    readonly metadata: { readonly namespace?: string; readonly name: string };
  }
  const objects: Record<string, Obj> = {
    a: { metadata: { namespace: 'team-a', name: 'one' } },
    b: { metadata: { namespace: 'team-b', name: 'two' } },
    c: { metadata: { name: 'node-1' } },
    d: { metadata: { namespace: 'team-a', name: 'three' } },
  };

  it('opens one lane per namespace, cluster-scoped objects in the "" lane, lanes idling out', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-b-d-c------|', objects);
      const expected = '    -a-b-d-cB-A-C-|';
      //                     team-a opens at 1 and d at 5 keeps it open until 5+5=10; team-b idles at 3+5=8;
      //                     the cluster-scoped "" lane opens at 7 and idles at 7+5=12
      const out = source.pipe(
        groupByNamespace({ duration: 5 }, ts),
        mergeMap((lane) =>
          lane.pipe(
            map((o) => `${lane.key}/${o.metadata.name}`),
            endWith(`${lane.key} lane closed`),
          ),
        ),
      );
      expectObservable(out).toBe(expected, {
        a: 'team-a/one',
        b: 'team-b/two',
        c: '/node-1',
        d: 'team-a/three',
        A: 'team-a lane closed',
        B: 'team-b lane closed',
        C: ' lane closed',
      });
    });
  });
});
