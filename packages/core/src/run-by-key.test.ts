import { EMPTY, Subject, from, lastValueFrom, of, range, tap, toArray } from 'rxjs';
import type { ObservableInput } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { InvalidArgumentError } from './invalid-argument-error.js';
import type { KeyedQueue } from './internal/keyed-queue.js';
import { keyedRun } from './internal/keyed-run.js';
import { KeyOfError, runByKey } from './run-by-key.js';

/** A source value: `key` is the workqueue key, `id` names this particular value. */
interface Ev {
  readonly key: string;
  readonly id: string;
}

// Upper case is a newer value for the lower-case key (`A` is key `a`); `n` is a third value of key `a`.
const values: Record<string, Ev> = {
  a: { key: 'a', id: 'a' },
  A: { key: 'a', id: 'A' },
  n: { key: 'a', id: 'n' },
  b: { key: 'b', id: 'b' },
  B: { key: 'b', id: 'B' },
  c: { key: 'c', id: 'c' },
  x: { key: 'x', id: 'x' },
};
const keyOf = (e: Ev): string => e.key;

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

/** Work that runs the observable registered for the value's id (tests register cold()s emitting the id). */
function jobs(table: Record<string, ObservableInput<string>>): (e: Ev) => ObservableInput<string> {
  return (e) => {
    const job = table[e.id];
    if (job === undefined) throw new Error(`test: no job for ${e.id}`);
    return job;
  };
}

describe('runByKey', () => {
  it('processes keys in arrival order, one at a time by default', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -a-b-------|', values);
      const srcSubs = '     ^----------!';
      const a = cold('       ---(a|)');
      const b = cold('       ---(b|)');
      const expected = '    ----a--b---|';
      //                     a runs 1→4; b waits from 3, starts when a completes (4), ends 4+3=7
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, b })))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(srcSubs);
      expectSubscriptions(a.subscriptions).toBe('-^--!');
      expectSubscriptions(b.subscriptions).toBe('----^--!');
    });
  });

  it('never runs two values of one key at once, even with free slots', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -aA--------|', values);
      const a = cold('       ---(a|)');
      const A = cold('       ---(A|)');
      const expected = '    ----a--A---|';
      //                     A arrives at 2 while a runs (1→4): parked although a slot is free; runs 4→7
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, A }), { concurrency: 2 }))).toBe(expected);
      expectSubscriptions(a.subscriptions).toBe('-^--!');
      expectSubscriptions(A.subscriptions).toBe('----^--!');
    });
  });

  it('runs at most `concurrency` values across keys', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -abc-------|', values);
      const a = cold('       ---(a|)');
      const b = cold('       ----(b|)');
      const c = cold('       -(c|)');
      const expected = '    ----acb----|';
      //                     a 1→4 and b 2→6 fill both slots; c (3) waits until a ends, runs 4→5
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, b, c }), { concurrency: 2 }))).toBe(expected);
      expectSubscriptions(a.subscriptions).toBe('-^--!');
      expectSubscriptions(b.subscriptions).toBe('--^---!');
      expectSubscriptions(c.subscriptions).toBe('----^!');
    });
  });

  it('coalesces values for a busy key into exactly one rerun with the latest', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -aAn-------|', values);
      const a = cold('       ---(a|)');
      const A = cold('       ---(A|)');
      const n = cold('       ---(n|)');
      const expected = '    ----a--n---|';
      //                     A parked at 2, replaced by n at 3; one rerun with n at 4, ends 4+3=7
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, A, n })))).toBe(expected);
      expectSubscriptions(A.subscriptions).toBe([]);
      expectSubscriptions(n.subscriptions).toBe('----^--!');
    });
  });

  it('replaces a waiting value in place: latest wins and keeps its FIFO position', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -abcB------|', values);
      const a = cold('       ----(a|)');
      const b = cold('       --(b|)');
      const B = cold('       --(B|)');
      const c = cold('       --(c|)');
      const expected = '    -----a-B-c-|';
      //                     a runs 1→5; B replaces waiting b at 4, still ahead of c: B 5→7, c 7→9
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, b, B, c })))).toBe(expected);
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('sends a rerun to the back of the FIFO so a hot key cannot starve others', () => {
    newScheduler().run(({ hot, cold, expectObservable }) => {
      const source = hot('  -abA-------|', values);
      const a = cold('       ---(a|)');
      const b = cold('       ---(b|)');
      const A = cold('       ---(A|)');
      const expected = '    ----a--b--A|';
      //                     b waits from 2, A is parked at 3; at 4 A goes behind b: b 4→7, A 7→10
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, b, A })))).toBe(expected);
    });
  });

  it('on source completion finishes waiting and in-flight work, then completes', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -ab|', values);
      const srcSubs = '     ^--!';
      const a = cold('       ---(a|)');
      const b = cold('       ---(b|)');
      const expected = '    ----a--(b|)';
      //                     source completes at 3; a ends at 4, b runs 4→7 and the output completes with it
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, b })))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(srcSubs);
    });
  });

  it('completes at once for an empty source', () => {
    newScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<Ev>('  --|').pipe(runByKey(keyOf, jobs({})))).toBe('--|');
    });
  });

  it('on source error cancels in-flight work, drops waiting values and forwards the error', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -ab-#', values);
      const a = cold('       ------(a|)');
      const b = cold('       ---(b|)');
      const expected = '    ----#';
      //                     a in flight 1→4 is unsubscribed at the error; b (waiting) never starts
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, b })))).toBe(expected);
      expectSubscriptions(a.subscriptions).toBe('-^--!');
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('forwards a work error and cancels the other in-flight work and the source', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -ab--------|', values);
      const srcSubs = '     ^---!';
      const a = cold('       ------(a|)');
      const b = cold('        --#', undefined, new Error('write failed'));
      const expected = '    ----#';
      //                     b errors at 2+2=4; a (1→7) is cut at 4
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, b }), { concurrency: 2 }))).toBe(
        expected,
        undefined,
        new Error('write failed'),
      );
      expectSubscriptions(source.subscriptions).toBe(srcSubs);
      expectSubscriptions(a.subscriptions).toBe('-^--!');
    });
  });

  it('forwards an error thrown synchronously by work', () => {
    newScheduler().run(({ hot, expectObservable }) => {
      const source = hot('  -a--|', values);
      const boom = new Error('boom');
      const work = (): ObservableInput<string> => {
        throw boom;
      };
      expectObservable(source.pipe(runByKey(keyOf, work))).toBe('-#', undefined, boom);
    });
  });

  it('unsubscribing cancels in-flight work and drops waiting values', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -abc-------|', values);
      const srcSubs = '     ^---!';
      const unsub = '       ^---!';
      const a = cold('       -----(a|)');
      const b = cold('        -----(b|)');
      const c = cold('         -(c|)');
      const expected = '    -----';
      //                     a (1→6) and b (2→7) are unsubscribed at 4; c waited and never starts
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, b, c }), { concurrency: 2 })), unsub).toBe(
        expected,
      );
      expectSubscriptions(source.subscriptions).toBe(srcSubs);
      expectSubscriptions(a.subscriptions).toBe('-^--!');
      expectSubscriptions(b.subscriptions).toBe('--^-!');
      expectSubscriptions(c.subscriptions).toBe([]);
    });
  });

  it('fails with a KeyOfError naming keyOf and the value when keyOf throws, cancelling in-flight work', () => {
    let captured: unknown;
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -a-x---|', values);
      const a = cold('       -----(a|)');
      const expected = '    ---#';
      //                     x arrives at 3, keyOf throws; a (1→6) is unsubscribed at 3
      const throwingKeyOf = (e: Ev): string => {
        if (e.key === 'x') throw new Error('no key for x');
        return e.key;
      };
      const result = source.pipe(
        runByKey(throwingKeyOf, jobs({ a })),
        tap({ error: (e: unknown) => (captured = e) }),
      );
      expectObservable(result).toBe(expected, undefined, expect.any(KeyOfError));
      expectSubscriptions(a.subscriptions).toBe('-^-!');
    });
    expect(captured).toBeInstanceOf(KeyOfError);
    const err = captured as KeyOfError;
    expect(err.operator).toBe('runByKey');
    expect(err.value).toEqual(values['x']);
    expect(err.message).toContain('runByKey: keyOf threw');
    expect(err.message).toContain('{"key":"x","id":"x"}');
    expect(err.message).toContain('no key for x');
    expect((err.cause as Error).message).toBe('no key for x');
  });

  it('reports enqueue, coalesce, start and finish with virtual-time durations to the observer', () => {
    const scheduler = newScheduler();
    const log: string[] = [];
    scheduler.run(({ hot, cold, expectObservable }) => {
      const source = hot('  -aAb-------|', values);
      const a = cold('       ---(a|)');
      const A = cold('       ---(A|)');
      const b = cold('       ---(b|)');
      const at = () => `@${scheduler.now()}`;
      const observer = {
        enqueued: (k: string, depth: number) => log.push(`${at()} enqueued ${k} depth=${depth}`),
        coalesced: (k: string) => log.push(`${at()} coalesced ${k}`),
        started: (k: string, queued: number, active: number) =>
          log.push(`${at()} started ${k} queued=${queued} active=${active}`),
        finished: (k: string, took: number, active: number) =>
          log.push(`${at()} finished ${k} took=${took} active=${active}`),
      };
      expectObservable(source.pipe(runByKey(keyOf, jobs({ a, A, b }), { observer }, scheduler))).toBe(
        '                   ----a--b--A|',
      );
    });
    expect(log).toEqual([
      '@1 enqueued a depth=1',
      '@1 started a queued=0 active=1',
      '@2 coalesced a', // A parked behind a
      '@3 enqueued b depth=1',
      '@4 finished a took=3 active=0',
      '@4 enqueued a depth=2', // the parked A joins the FIFO behind b
      '@4 started b queued=1 active=1', // b waited 3→4
      '@7 finished b took=3 active=0',
      '@7 started a queued=5 active=1', // A waited since it was parked at 2
      '@10 finished a took=3 active=0',
    ]);
  });

  it('releases all per-key state once keys go idle', () => {
    let queue: KeyedQueue<string, Ev> | undefined;
    const busy: number[] = [];
    newScheduler().run(({ hot, cold, expectObservable }) => {
      const source = hot('  -abcABc-----', values);
      const job = (e: Ev) => cold('--(x|)', { x: e.id });
      const operator = keyedRun<Ev, string, string>({
        operator: 'runByKey',
        keyOf,
        work: job,
        concurrency: 2,
        observer: { started: (_k, _queued, active) => busy.push(active) },
        scheduler: newScheduler(),
        onReplaced: undefined,
        onQueue: (q) => (queue = q),
      });
      const expected = '    ---abcABc---';
      //                     2 slots, 2 frames each: a 1→3, b 2→4, c 3→5, A 4→6, B 5→7, c 6→8
      expectObservable(source.pipe(operator)).toBe(expected);
    });
    // two keys were in flight at once; after 8 nothing is left although the source never completed
    expect(Math.max(...busy)).toBe(2);
    expect(queue?.idle).toBe(true);
    expect(queue?.depth).toBe(0);
    expect(queue?.activeCount).toBe(0);
    expect(queue?.parkedCount).toBe(0);
  });

  it('throws InvalidArgumentError at creation for a concurrency that is not an integer >= 1', () => {
    for (const concurrency of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2' as unknown as number]) {
      let caught: unknown;
      try {
        runByKey(keyOf, jobs({}), { concurrency });
      } catch (e) {
        caught = e;
      }
      expect(caught, String(concurrency)).toBeInstanceOf(InvalidArgumentError);
      expect((caught as InvalidArgumentError).argument).toBe('options.concurrency');
      expect((caught as Error).message).toMatch(/^runByKey: options\.concurrency must be an integer >= 1/);
    }
  });

  it('throws InvalidArgumentError at creation for a non-function keyOf or work, or a bad scheduler', () => {
    const bad = <A extends unknown[]>(f: (...args: A) => unknown, ...args: A) => {
      try {
        f(...args);
      } catch (e) {
        return e as InvalidArgumentError;
      }
      throw new Error('expected a throw');
    };
    expect(bad(runByKey, 'key' as unknown as typeof keyOf, jobs({}))).toMatchObject({
      _tag: 'InvalidArgumentError',
      operator: 'runByKey',
      argument: 'keyOf',
      received: 'key',
    });
    expect(bad(runByKey, keyOf, undefined as unknown as ReturnType<typeof jobs>).argument).toBe('work');
    expect(bad(runByKey, keyOf, jobs({}), { concurrency: 1 }, {} as never).argument).toBe('scheduler');
  });

  it('drains 1,000,000 synchronous events without growing the stack', () => {
    let count = 0;
    let last = -1;
    range(0, 1_000_000)
      .pipe(
        runByKey(
          (i: number) => i % 10_000,
          (i) => of(i),
          { concurrency: 8 },
        ),
      )
      .subscribe({
        next: (i) => {
          count++;
          last = i;
        },
      });
    expect(count).toBe(1_000_000);
    expect(last).toBe(999_999);
  });

  it('drains a deep backlog of synchronous work iteratively when a slot frees up', () => {
    // 1,000,000 events over 200,000 keys wait behind a gate (concurrency 1); when the gate completes,
    // 200,000 synchronous runs follow back to back. A recursive drain would overflow the stack here.
    const gate = new Subject<number>();
    const source = new Subject<number>();
    let count = 0;
    let done = false;
    source
      .pipe(
        runByKey(
          (i: number) => (i < 0 ? 'gate' : i % 200_000),
          (i) => (i < 0 ? gate : of(i)),
        ),
      )
      .subscribe({ next: () => count++, complete: () => (done = true) });
    source.next(-1);
    for (let i = 0; i < 1_000_000; i++) source.next(i);
    source.complete();
    expect(count).toBe(0);
    gate.complete();
    expect(count).toBe(200_000);
    expect(done).toBe(true);
  });

  it('accepts values pushed back into the source from downstream (re-entrancy)', () => {
    const source = new Subject<Ev>();
    const seen: string[] = [];
    const done: string[] = [];
    source.pipe(runByKey(keyOf, (e) => of(e.id), { concurrency: 1 })).subscribe({
      next: (id) => {
        seen.push(id);
        if (id === 'a') {
          source.next({ key: 'a', id: 'A' });
          source.next({ key: 'b', id: 'b' });
        }
      },
      complete: () => done.push('complete'),
    });
    source.next({ key: 'a', id: 'a' });
    source.complete();
    // A arrives while a is in flight (parked, then behind b)
    expect(seen).toEqual(['a', 'b', 'A']);
    expect(done).toEqual(['complete']);
  });

  it('accepts Promise work and work that completes without a value', async () => {
    const out = await lastValueFrom(
      from([1, 2, 3, 4]).pipe(
        runByKey(
          (n: number) => n % 2,
          (n) => (n === 4 ? EMPTY : Promise.resolve(n * 10)),
          { concurrency: 2 },
        ),
        toArray(),
      ),
    );
    expect(out).toEqual([10, 20, 30]);
  });
});
