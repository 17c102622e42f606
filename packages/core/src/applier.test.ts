import { EMPTY, NEVER, Observable, concat, from, map, mergeMap, of, throwError, timer } from 'rxjs';
import type { ObservableInput } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';

import { Action } from './action.js';
import { applier } from './applier.js';
import type { ApplierOptions, ReconcileResult } from './applier.js';
import { ReconcileError, TerminalError } from './errors.js';
import { createApplier } from './internal/applier-loop.js';
import type { ApplierProbe } from './internal/applier-loop.js';
import { InvalidArgumentError } from './invalid-argument-error.js';
import { TokenBucket } from './rate-limiter.js';
import { KeyOfError } from './run-by-key.js';

/** A source value: `key` plus a version number, so tests can see which value was reconciled. */
interface Req {
  readonly key: string;
  readonly n: number;
}

const values = {
  a: { key: 'a', n: 1 },
  A: { key: 'a', n: 2 },
  B: { key: 'a', n: 3 },
  b: { key: 'b', n: 1 },
} satisfies Record<string, Req>;

const keyOf = (req: Req): string => req.key;
/** Deterministic options: no jitter randomness, no rate limit unless a test sets one. */
const exact: ApplierOptions<string> = { random: () => 0, rateLimit: false };

/** One result as text: `<key><n>:<outcome>[@retryInMs]`. */
const show = (r: ReconcileResult<Req, string>): string =>
  `${r.key}${r.value.n}:${r.outcome}${r.retryInMs === undefined ? '' : `@${r.retryInMs}`}`;

let testScheduler: TestScheduler;
/** Every reconcile call as `<frame>:<key><n>`. */
let calls: string[];

beforeEach(() => {
  testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  calls = [];
});

/** A reconcile that records its calls and answers with `plan(callIndexOfThatKey, value)`. */
function recorded(plan: (call: number, req: Req) => ObservableInput<Action>) {
  const perKey = new Map<string, number>();
  return (req: Req, key: string): ObservableInput<Action> => {
    const call = perKey.get(key) ?? 0;
    perKey.set(key, call + 1);
    calls.push(`${testScheduler.now()}:${key}${req.n}`);
    return plan(call, req);
  };
}

/** Subscribes inside `TestScheduler.run`, collecting results until virtual frame `untilFrame`. */
function collect<R>(result$: Observable<R>, untilFrame: number, into: R[]): void {
  const subscription = result$.subscribe((r) => into.push(r));
  testScheduler.schedule(() => subscription.unsubscribe(), untilFrame);
}

const fail = (message = 'boom'): Observable<never> => throwError(() => new Error(message));

describe('applier', () => {
  it('emits a success result per reconcile and completes after the last one', () => {
    testScheduler.run(({ hot, cold, expectObservable }) => {
      const source = hot('-a--b|', values);
      const expected = '   ---s--(t|)';
      //                   a: 1 + 2 = 3; b: 4 + 2 = 6, then the source (done at 5) lets the output complete
      const reconcile = recorded(() => cold('--(x|)', { x: Action.awaitChange() }));
      expectObservable(source.pipe(applier(keyOf, reconcile, exact), map(show))).toBe(expected, {
        s: 'a1:success',
        t: 'b1:success',
      });
    });
    expect(calls).toEqual(['1:a1', '4:b1']);
  });

  it('handles a synchronous source and synchronous reconciles', () => {
    testScheduler.run(({ expectObservable }) => {
      // every value runs at frame 0 (sync reconciles free the slot at once); a's requeue timer is
      // cancelled by the completion, so the output completes at 0 as well
      const reconcile = recorded((_call, req) =>
        of(req.key === 'a' ? Action.requeue(5) : Action.awaitChange()),
      );
      expectObservable(
        from([values.a, values.A, values.b]).pipe(applier(keyOf, reconcile, exact), map(show)),
      ).toBe('(xyz|)', { x: 'a1:requeue@5', y: 'a2:requeue@5', z: 'b1:success' });
    });
    expect(calls).toEqual(['0:a1', '0:a2', '0:b1']);
  });

  it('reports value, action and virtual duration in every result', () => {
    const results: ReconcileResult<Req, string>[] = [];
    testScheduler.run(({ hot, cold }) => {
      const reconcile = () => cold('---(x|)', { x: Action.awaitChange() });
      hot('-a', values)
        .pipe(applier(keyOf, reconcile, exact))
        .subscribe((r) => results.push(r));
    });
    expect(results).toEqual([
      { key: 'a', value: values.a, outcome: 'success', action: { type: 'awaitChange' }, durationMs: 3 },
    ]);
  });

  it('requeues the latest value after Action.requeue(ms)', () => {
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a', values);
      const expected = '  -r----s';
      //                  a at 1 returns requeue(5): rerun at 1 + 5 = 6, which awaits change
      const reconcile = recorded((call) => of(call === 0 ? Action.requeue(5) : Action.awaitChange()));
      expectObservable(source.pipe(applier(keyOf, reconcile, exact), map(show))).toBe(expected, {
        r: 'a1:requeue@5',
        s: 'a1:success',
      });
    });
    expect(calls).toEqual(['1:a1', '6:a1']);
  });

  it('retries failures after 5, 10, 20, 40, 80 ms … (exact virtual times)', () => {
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a', values);
      const unsub = '     ^ 199ms !';
      const expected = '  -a 4ms b 9ms c 19ms d 39ms e 79ms f';
      //                  calls at 1, 1+5=6, 6+10=16, 16+20=36, 36+40=76, 76+80=156; next would be 316
      const reconcile = recorded(() => fail());
      expectObservable(source.pipe(applier(keyOf, reconcile, exact), map(show)), unsub).toBe(expected, {
        a: 'a1:error@5',
        b: 'a1:error@10',
        c: 'a1:error@20',
        d: 'a1:error@40',
        e: 'a1:error@80',
        f: 'a1:error@160',
      });
    });
    expect(calls).toEqual(['1:a1', '6:a1', '16:a1', '36:a1', '76:a1', '156:a1']);
  });

  it('uses the backoff options and the injected random for jitter', () => {
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a', values);
      const unsub = '     ^ 79ms !';
      const expected = '  -a 9ms b 19ms c 39ms d';
      //                  delay = 8 × 2^n × (1 + 0.5 × 0.5): 10, 20, 40, 80 → calls at 1, 11, 31, 71
      const options = { backoff: { baseMs: 8, jitter: 0.5 }, random: () => 0.5, rateLimit: false } as const;
      expectObservable(
        source.pipe(
          applier(keyOf, () => fail(), options),
          map(show),
        ),
        unsub,
      ).toBe(expected, { a: 'a1:error@10', b: 'a1:error@20', c: 'a1:error@40', d: 'a1:error@80' });
    });
  });

  it('caps the backoff at maxMs', () => {
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a', values);
      const unsub = '     ^ 40ms !';
      const expected = '  -a 4ms b 9ms c 11ms d 11ms e';
      //                  5, 10, then capped at 12: calls at 1, 6, 16, 28, 40
      expectObservable(
        source.pipe(
          applier(keyOf, () => fail(), { ...exact, backoff: { maxMs: 12 } }),
          map(show),
        ),
        unsub,
      ).toBe(expected, {
        a: 'a1:error@5',
        b: 'a1:error@10',
        c: 'a1:error@12',
        d: 'a1:error@12',
        e: 'a1:error@12',
      });
    });
  });

  it('takes max(backoff, token bucket): the global rate limit spaces retries across keys', () => {
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-(ab)', values);
      const unsub = '     ^ 120ms !';
      const expected = '  -(xy)-z 94ms w';
      //                  a fails at 1: backoff 5, bucket has its 1 token → retry at 6
      //                  b fails at 1: backoff 5, bucket in debt by 1 → 1000 / 10 = 100 ms → retry at 101
      //                  a fails at 6: backoff 10; 5 ms refilled 0.05 token, debt 0.95 + 1 → 195 ms (at 201)
      //                  b fails at 101: backoff 10; 95 ms refilled 0.95, debt 1 + 1 → 200 ms
      const options = { random: () => 0, rateLimit: { qps: 10, burst: 1 }, concurrency: 2 };
      const reconcile = recorded(() => fail());
      expectObservable(source.pipe(applier(keyOf, reconcile, options), map(show)), unsub).toBe(expected, {
        x: 'a1:error@5',
        y: 'b1:error@100',
        z: 'a1:error@195',
        w: 'b1:error@200',
      });
    });
    expect(calls).toEqual(['1:a1', '1:b1', '6:a1', '101:b1']);
  });

  it('gives a retry cancelled by a newer value its token back, so later retries are not delayed by it (issue 12 §4)', () => {
    testScheduler.run(({ hot, cold, expectObservable }) => {
      const source = hot('-(abAc)', { ...values, c: { key: 'c', n: 1 } });
      const unsub = '     ^ 50ms !';
      const expected = '  -(xyzs)';
      //                  a fails at 1 and takes the only token (retry at 6); b goes into debt (100 ms)
      //                  A cancels a's retry and succeeds: a's token comes back (debt 1 → 0)
      //                  c fails: one token in debt → 100 ms (200 ms if a's token had stayed taken)
      const options = { random: () => 0, rateLimit: { qps: 10, burst: 1 }, concurrency: 3 };
      const reconcile = recorded((_call, req) =>
        req.n === 2 ? cold('(x|)', { x: Action.awaitChange() }) : fail(),
      );
      expectObservable(source.pipe(applier(keyOf, reconcile, options), map(show)), unsub).toBe(expected, {
        x: 'a1:error@5',
        y: 'b1:error@100',
        s: 'a2:success',
        z: 'c1:error@100',
      });
    });
  });

  it('does not grow the backoff for a failure rerun by a newer trigger (no retry scheduled)', () => {
    testScheduler.run(({ hot, cold, expectObservable }) => {
      const source = hot('-a-A-B', values);
      const unsub = '     ^ 8ms !';
      const expected = '  ---x-y-z';
      //                  a runs 1–3 and fails; A came at 3 → rerun 3–5, no timer, backoff unchanged;
      //                  B at 5 → rerun 5–7 fails with nothing pending → retry after 5 (the first step)
      const reconcile = recorded(() => cold('--#'));
      expectObservable(source.pipe(applier(keyOf, reconcile, exact), map(show)), unsub).toBe(expected, {
        x: 'a1:error',
        y: 'a2:error',
        z: 'a3:error@5',
      });
    });
  });

  it('shares one TokenBucket between appliers given the same instance', () => {
    const bucket = new TokenBucket({ qps: 10, burst: 1 });
    testScheduler.run(({ hot, expectObservable }) => {
      const first = hot('-a', values);
      const second = hot('-b', values);
      const options = { random: () => 0, rateLimit: bucket };
      // a takes the token (retry at 6); b, in another applier, pays the debt: 100 ms
      expectObservable(
        first.pipe(
          applier(keyOf, () => fail(), options),
          map(show),
        ),
        '^ 3ms !',
      ).toBe('-x', { x: 'a1:error@5' });
      expectObservable(
        second.pipe(
          applier(keyOf, () => fail(), options),
          map(show),
        ),
        '^ 3ms !',
      ).toBe('-y', { y: 'b1:error@100' });
    });
  });

  it('reports the keys it holds to onPending, 0 once idle', () => {
    const pending: string[] = [];
    testScheduler.run(({ hot, cold, expectObservable }) => {
      const source = hot('-ab', values);
      const options = { ...exact, onPending: (n: number) => pending.push(`${testScheduler.now()}:${n}`) };
      let first = true;
      const reconcile = (): Observable<Action> =>
        first ? ((first = false), fail()) : cold('--(x|)', { x: Action.awaitChange() });
      expectObservable(source.pipe(applier(keyOf, reconcile, options), map(show))).toBe('-x--b---s', {
        x: 'a1:error@5',
        b: 'b1:success',
        s: 'a1:success',
      });
    });
    // a held from its failure at 1 (retry at 6 runs 6–8); b from 2 to its success at 4
    expect(pending).toEqual(['1:1', '2:2', '4:1', '8:0']);
  });

  it('resets the backoff after a success', () => {
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a 28ms A', values);
      const expected = '  -x 4ms y 9ms s 13ms z 4ms t';
      //                  fail at 1 (retry 6), fail at 6 (retry 16), succeed at 16;
      //                  A at 30 fails: backoff starts over at 5 → retry at 35, succeeds
      const reconcile = recorded((call) => (call < 2 || call === 3 ? fail() : of(Action.awaitChange())));
      expectObservable(source.pipe(applier(keyOf, reconcile, exact), map(show))).toBe(expected, {
        x: 'a1:error@5',
        y: 'a1:error@10',
        s: 'a1:success',
        z: 'a2:error@5',
        t: 'a2:success',
      });
    });
    expect(calls).toEqual(['1:a1', '6:a1', '16:a1', '30:a2', '35:a2']);
  });

  it('does not retry a TerminalError, and reports it', () => {
    const results: ReconcileResult<Req, string>[] = [];
    const terminal = new TerminalError('a: spec.image is empty; set spec.image');
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a', values);
      const unsub = '     ^ 100ms !';
      const result$ = source.pipe(
        applier(
          keyOf,
          recorded(() => throwError(() => terminal)),
          exact,
        ),
      );
      result$.subscribe((r) => results.push(r));
      expectObservable(result$.pipe(map(show)), unsub).toBe('-t', { t: 'a1:terminal' });
    });
    expect(calls).toEqual(['1:a1', '1:a1']); // one per subscription, no retry
    expect(results).toHaveLength(1);
    expect(results[0]?.error).toBe(terminal);
    expect(results[0]?.retryInMs).toBeUndefined();
  });

  it('treats a TerminalError in the cause chain as terminal, keeping the wrapper', () => {
    const results: ReconcileResult<Req, string>[] = [];
    const inner = new TerminalError('bad spec');
    const wrapper = new Error('apply failed', { cause: inner });
    testScheduler.run(({ hot }) => {
      hot('-a', values)
        .pipe(applier(keyOf, () => throwError(() => wrapper), exact))
        .subscribe((r) => results.push(r));
    });
    expect(results.map((r) => r.outcome)).toEqual(['terminal']);
    expect(results[0]?.error).toBeInstanceOf(TerminalError);
    expect(results[0]?.error?.message).toBe('reconcile of "a" failed: apply failed');
    expect(results[0]?.error?.cause).toBe(wrapper);
  });

  it('normalises failures: sync throws, non-Errors, empty and invalid emissions', () => {
    const results: ReconcileResult<Req, string>[] = [];
    const thrownString = 'plain string';
    const reconcilers: Record<string, (req: Req) => ObservableInput<Action>> = {
      a: () => {
        // eslint-disable-next-line @typescript-eslint/only-throw-error -- user code may throw anything
        throw thrownString;
      },
      b: () => EMPTY,
      c: () => of({ type: 'requeue', afterMs: -1 } as unknown as Action),
      d: () => undefined as unknown as ObservableInput<Action>,
    };
    testScheduler.run(({ hot }) => {
      collect(
        hot('-(abcd)', {
          a: { key: 'a', n: 1 },
          b: { key: 'b', n: 1 },
          c: { key: 'c', n: 1 },
          d: { key: 'd', n: 1 },
        }).pipe(applier(keyOf, (req) => reconcilers[req.key]!(req), { ...exact, concurrency: 4 })),
        30,
        results,
      );
    });
    const firstRound = results.slice(0, 4);
    expect(firstRound.map((r) => [r.key, r.outcome, r.retryInMs])).toEqual([
      ['a', 'error', 5],
      ['b', 'error', 5],
      ['c', 'error', 5],
      ['d', 'error', 5],
    ]);
    for (const r of firstRound) expect(r.error).toBeInstanceOf(ReconcileError);
    expect(firstRound[0]?.error?.cause).toBe(thrownString);
    expect(firstRound[0]?.error?.message).toBe('reconcile of "a" failed: plain string');
    expect(firstRound[1]?.error?.message).toMatch(
      /completed without emitting an Action; emit Action.awaitChange\(\)/,
    );
    expect(firstRound[2]?.error?.message).toMatch(
      /emitted \{"type":"requeue","afterMs":-1\} instead of an Action; emit Action.awaitChange\(\) or Action.requeue/,
    );
    expect(firstRound[3]?.error?.cause).toBeInstanceOf(TypeError);
    // retried with backoff until unsubscribed at 30: reruns at 1 + 5 = 6 and 6 + 10 = 16
    expect(results.filter((r) => r.key === 'a').map((r) => r.retryInMs)).toEqual([5, 10, 20]);
  });

  it('takes the first Action and unsubscribes the rest of the reconcile', () => {
    testScheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-a', values);
      const inner = cold(' -x-y', { x: Action.awaitChange(), y: Action.requeue(1) });
      const innerSubs = ' -^!';
      expectObservable(
        source.pipe(
          applier(keyOf, () => inner, exact),
          map(show),
        ),
      ).toBe('--s', {
        s: 'a1:success',
      });
      expectSubscriptions(inner.subscriptions).toBe(innerSubs);
    });
  });

  it('emits the result before it unsubscribes the reconcile, and ignores what a synchronous reconcile emits after its first Action', () => {
    const log: string[] = [];
    testScheduler.run(({ cold, expectObservable }) => {
      const source = cold('-a|', values);
      const reconcile = (): Observable<Action> =>
        new Observable<Action>((subscriber) => {
          subscriber.next(Action.awaitChange());
          subscriber.next(Action.requeue(1)); // after the first: ignored
          return () => log.push('reconcile unsubscribed');
        });
      const out = source.pipe(
        applier(keyOf, reconcile, exact),
        map((r) => {
          log.push(`result ${r.outcome}`);
          return show(r);
        }),
      );
      //                       a at 1 reconciles synchronously: its result in frame 1
      expectObservable(out).toBe('-s|', { s: 'a1:success' });
    });
    expect(log).toEqual(['result success', 'reconcile unsubscribed']);
  });

  it('coalesces values for a busy key into one rerun with the latest, and sets no timer meanwhile', () => {
    testScheduler.run(({ hot, cold, expectObservable }) => {
      const source = hot('-aAB', values);
      const unsub = '     ^ 21ms !';
      const expected = '  ----x--y 12ms z';
      //                  a1 runs 1→4 (returns requeue(10), but A and B arrived: no timer, rerun at once);
      //                  B (the latest) runs 4→7 → requeue(10) → rerun at 7 + 10 = 17 → result at 20
      const reconcile = recorded(() => cold('---(x|)', { x: Action.requeue(10) }));
      expectObservable(source.pipe(applier(keyOf, reconcile, exact), map(show)), unsub).toBe(expected, {
        x: 'a1:requeue',
        y: 'a3:requeue@10',
        z: 'a3:requeue@10',
      });
    });
    expect(calls).toEqual(['1:a1', '4:a3', '17:a3']);
  });

  it('cancels a pending requeue when a new value for the key arrives', () => {
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a 4ms A', values);
      const unsub = '     ^ 30ms !';
      const expected = '  -r 4ms s';
      //                  a at 1 → requeue(10) due at 11; A at 6 cancels it and awaits change
      const reconcile = recorded((call) => of(call === 0 ? Action.requeue(10) : Action.awaitChange()));
      expectObservable(source.pipe(applier(keyOf, reconcile, exact), map(show)), unsub).toBe(expected, {
        r: 'a1:requeue@10',
        s: 'a2:success',
      });
    });
    expect(calls).toEqual(['1:a1', '6:a2']);
  });

  it('reruns at once when a new value arrives during an error backoff; the backoff keeps growing', () => {
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a-A', values);
      const unsub = '     ^ 14ms !';
      const expected = '  -x-y 9ms z';
      //                  a fails at 1 (retry due 6); A at 3 cancels it, fails → 10 ms → 13
      const reconcile = recorded(() => fail());
      expectObservable(source.pipe(applier(keyOf, reconcile, exact), map(show)), unsub).toBe(expected, {
        x: 'a1:error@5',
        y: 'a2:error@10',
        z: 'a2:error@20',
      });
    });
    expect(calls).toEqual(['1:a1', '3:a2', '13:a2']);
  });

  it('lets a retry wait for a slot: re-emissions go through runByKey', () => {
    testScheduler.run(({ hot, cold, expectObservable }) => {
      const source = hot('-a--b', values);
      const expected = '  -x-----y-s';
      //                  a fails at 1 (retry at 6); b runs 4→7 with concurrency 1, so a's retry starts at 7
      //                  and (sync success) reports at 7; b's result at 7 comes first, then a at 7 … see below
      const reconcile = recorded((call, req) =>
        req.key === 'a'
          ? call === 0
            ? fail()
            : cold('--(x|)', { x: Action.awaitChange() })
          : cold('---(x|)', { x: Action.awaitChange() }),
      );
      expectObservable(source.pipe(applier(keyOf, reconcile, exact), map(show))).toBe(expected, {
        x: 'a1:error@5',
        y: 'b1:success',
        s: 'a1:success',
      });
      //                  a's retry starts when b finishes at 7, takes 2 frames → 9
    });
    expect(calls).toEqual(['1:a1', '4:b1', '7:a1']);
  });

  it('on source completion cancels timers, finishes in-flight reconciles without scheduling, then completes', () => {
    testScheduler.run(({ hot, cold, expectObservable }) => {
      const source = hot('-ab|', values);
      const expected = '  -x--(y|)';
      //                  a requeues at 1 (timer due 11); b runs 2→4; completion at 3 cancels a's timer;
      //                  b's requeue at 4 is reported without retryInMs, then the output completes
      const reconcile = recorded((_call, req) =>
        req.key === 'a' ? of(Action.requeue(10)) : cold('--(x|)', { x: Action.requeue(10) }),
      );
      expectObservable(source.pipe(applier(keyOf, reconcile, { ...exact, concurrency: 2 }), map(show))).toBe(
        expected,
        { x: 'a1:requeue@10', y: 'b1:requeue' },
      );
    });
    expect(calls).toEqual(['1:a1', '2:b1']);
  });

  it('unsubscribing cancels the reconcile in flight and every timer', () => {
    testScheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-ab', values);
      const slow = cold('  -----x', { x: Action.awaitChange() });
      const unsub = '     ^---!';
      //                  a requeues at 1 (due 6); b's slow reconcile subscribed at 2, cancelled at 4
      const reconcile = recorded((_call, req) => (req.key === 'a' ? of(Action.requeue(5)) : slow));
      expectObservable(
        source.pipe(applier(keyOf, reconcile, { ...exact, concurrency: 2 }), map(show)),
        unsub,
      ).toBe('-r', { r: 'a1:requeue@5' });
      expectSubscriptions(slow.subscriptions).toBe('--^-!');
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
    expect(calls).toEqual(['1:a1', '2:b1']); // a's requeue at 6 never fired
  });

  it('forwards a source error and cancels timers and reconciles', () => {
    testScheduler.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-ab-#', values);
      const slow = cold('  -----x', { x: Action.awaitChange() });
      const reconcile = recorded((_call, req) => (req.key === 'a' ? of(Action.requeue(2)) : slow));
      expectObservable(source.pipe(applier(keyOf, reconcile, { ...exact, concurrency: 2 }), map(show))).toBe(
        '-r-a#',
        { r: 'a1:requeue@2', a: 'a1:requeue@2' },
      );
      //                  a at 1 requeues (due 3), reruns at 3 and requeues (due 5) — cancelled by the error at 4
      expectSubscriptions(slow.subscriptions).toBe('--^-!');
    });
    expect(calls).toEqual(['1:a1', '2:b1', '3:a1']);
  });

  it('fails with KeyOfError when keyOf throws', () => {
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a', values);
      const badKeyOf = (): string => {
        throw new Error('no metadata.name');
      };
      const error = new KeyOfError('applier', values.a, new Error('no metadata.name'));
      expectObservable(source.pipe(applier(badKeyOf, () => of(Action.awaitChange()), exact))).toBe(
        '-#',
        undefined,
        error,
      );
    });
  });

  it('passes the observer to runByKey', () => {
    const started: string[] = [];
    testScheduler.run(({ hot }) => {
      hot('-a-b', values)
        .pipe(
          applier(keyOf, () => of(Action.awaitChange()), {
            ...exact,
            observer: { started: (key) => started.push(`${testScheduler.now()}:${key}`) },
          }),
        )
        .subscribe();
    });
    expect(started).toEqual(['1:a', '3:b']);
  });

  it('uses the default rate limit (burst 100, 10 qps) when none is given', () => {
    const results: ReconcileResult<Req, number>[] = [];
    testScheduler.run(() => {
      // 102 distinct keys, all failing at frame 1; collected until frame 2, before any retry
      const reqs = Array.from({ length: 102 }, (_, i) => ({ key: String(i), n: i }));
      const source = timer(1).pipe(mergeMap(() => concat(from(reqs), NEVER)));
      collect(
        source.pipe(
          applier(
            (r: Req) => r.n,
            () => fail(),
            { random: () => 0, concurrency: 200 },
          ),
        ),
        2,
        results,
      );
    });
    const delays = results.map((r) => r.retryInMs);
    expect(delays).toHaveLength(102);
    // the first 100 take the burst (backoff 5 wins); then 1000 / 10 = 100 ms per token in debt
    expect(delays.slice(0, 100).every((d) => d === 5)).toBe(true);
    expect(delays.slice(100)).toEqual([100, 200]);
  });

  it('validates its arguments when the operator is built', () => {
    const ok = () => of(Action.awaitChange());
    const cases: [() => unknown, RegExp][] = [
      [() => applier('x' as unknown as typeof keyOf, ok), /applier: keyOf must be a function/],
      [() => applier(keyOf, 3 as unknown as typeof ok), /applier: reconcile must be a function/],
      [() => applier(keyOf, ok, { concurrency: 0 }), /options\.concurrency must be an integer >= 1/],
      [() => applier(keyOf, ok, { backoff: { baseMs: -1 } }), /applier: options\.backoff\.baseMs must be/],
      [
        () => applier(keyOf, ok, { backoff: { maxMs: 1 } }),
        /options\.backoff\.maxMs must be .* >= options\.backoff\.baseMs \(5\)/,
      ],
      [() => applier(keyOf, ok, { backoff: { jitter: Number.NaN } }), /options\.backoff\.jitter/],
      [
        () => applier(keyOf, ok, { rateLimit: { qps: 0, burst: 1 } }),
        /options\.rateLimit\.qps must be a finite number > 0/,
      ],
      [
        () => applier(keyOf, ok, { rateLimit: { qps: 1, burst: 0.5 } }),
        /options\.rateLimit\.burst must be an integer >= 1/,
      ],
      [
        () => applier(keyOf, ok, { random: 1 as unknown as () => number }),
        /options\.random must be a function/,
      ],
      [() => applier(keyOf, ok, {}, {} as never), /applier: scheduler must be an RxJS SchedulerLike/],
    ];
    for (const [build, message] of cases) {
      expect(build).toThrow(InvalidArgumentError);
      expect(build).toThrow(message);
    }
  });

  it('fails with InvalidArgumentError when the injected random is out of range', () => {
    testScheduler.run(({ hot, expectObservable }) => {
      const source = hot('-a', values);
      expectObservable(
        source.pipe(
          applier(keyOf, () => fail(), { random: () => 7, rateLimit: false }),
          map(show),
        ),
      ).toBe('-#', undefined, expect.any(InvalidArgumentError) as unknown);
    });
  });
});

describe('applier per-key state', () => {
  /** Builds the applier with a probe on its (single) subscription. */
  function probed(
    reconcile: (req: Req, key: string) => ObservableInput<Action>,
    options: ApplierOptions<string> = exact,
  ): { operator: ReturnType<typeof applier<Req, string>>; probe: () => ApplierProbe } {
    let current: ApplierProbe | undefined;
    const operator = createApplier(keyOf, reconcile, options, testScheduler, (p) => (current = p));
    return {
      operator,
      probe: () => {
        if (current === undefined) throw new Error('not subscribed');
        return current;
      },
    };
  }

  const snapshot = (p: ApplierProbe): string => `keys=${p.keys} timers=${p.timers} backoff=${p.backoffKeys}`;

  it('holds state while a key backs off or requeues and releases it once the key is idle', () => {
    const samples: string[] = [];
    testScheduler.run(({ hot }) => {
      // a: fails at 1, retry at 6 succeeds. b: requeue(4) at 2, rerun at 6 awaits change. c: terminal at 3.
      const reconcile = recorded((call, req) => {
        if (req.key === 'a') return call === 0 ? fail() : of(Action.awaitChange());
        if (req.key === 'b') return of(call === 0 ? Action.requeue(4) : Action.awaitChange());
        return throwError(() => new TerminalError('c is invalid'));
      });
      const { operator, probe } = probed(reconcile);
      hot('-abc', { a: values.a, b: values.b, c: { key: 'c', n: 1 } })
        .pipe(operator)
        .subscribe();
      // sample half a frame later, after everything that happens at the frame itself
      for (const frame of [0, 1, 2, 3, 5, 6, 50]) {
        testScheduler.schedule(() => samples.push(`${frame}: ${snapshot(probe())}`), frame + 0.5);
      }
    });
    expect(samples).toEqual([
      '0: keys=0 timers=0 backoff=0',
      '1: keys=1 timers=1 backoff=1', // a waits for its retry
      '2: keys=2 timers=2 backoff=1', // b waits for its requeue
      '3: keys=2 timers=2 backoff=1', // c terminal: released at once
      '5: keys=2 timers=2 backoff=1',
      '6: keys=0 timers=0 backoff=0', // both reran and succeeded
      '50: keys=0 timers=0 backoff=0',
    ]);
  });

  it('releases everything of 1000 keys that succeed, and of keys whose source completed', () => {
    let final: string | undefined;
    testScheduler.run(({ cold }) => {
      const reqs = Array.from({ length: 1000 }, (_, i) => ({ key: `k${i}`, n: i }));
      const { operator, probe } = probed((req) =>
        req.n % 2 === 0 ? of(Action.awaitChange()) : of(Action.requeue(50)),
      );
      const samples: string[] = [];
      cold('-a|', { a: 0 })
        .pipe(
          mergeMap(() => from(reqs)),
          operator,
        )
        .subscribe({ complete: () => (final = snapshot(probe())) });
      testScheduler.schedule(() => samples.push(snapshot(probe())), 1.5);
      expect(samples).toEqual([]);
      testScheduler.flush();
      // at 1: even keys succeeded and were released; odd keys wait for their requeue (due at 51)
      expect(samples).toEqual(['keys=500 timers=500 backoff=0']);
    });
    // odd keys had a requeue timer pending when the source completed at 2: cancelled and released
    expect(final).toBe('keys=0 timers=0 backoff=0');
  });

  it('keeps keys waiting for a slot across source completion, then releases them', () => {
    const samples: string[] = [];
    testScheduler.run(({ hot, cold, expectObservable }) => {
      const { operator, probe } = probed(recorded(() => cold('---(x|)', { x: Action.requeue(1) })));
      const source = hot('-ab|', values);
      const expected = '  ----x--(y|)';
      //                  a runs 1→4; b waits for the only slot, still runs after completion at 3: 4→7
      expectObservable(source.pipe(operator, map(show))).toBe(expected, { x: 'a1:requeue', y: 'b1:requeue' });
      for (const frame of [3, 5]) {
        testScheduler.schedule(() => samples.push(`${frame}: ${snapshot(probe())}`), frame + 0.5);
      }
    });
    expect(samples).toEqual(['3: keys=2 timers=0 backoff=0', '5: keys=1 timers=0 backoff=0']);
    expect(calls).toEqual(['1:a1', '4:b1']);
  });

  it('drops all state when unsubscribed during backoff', () => {
    let after: string | undefined;
    testScheduler.run(({ hot, expectObservable }) => {
      const { operator, probe } = probed(() => fail());
      expectObservable(hot('-ab', values).pipe(operator, map(show)), '^--!').toBe('-xy', {
        x: 'a1:error@5',
        y: 'b1:error@5',
      });
      testScheduler.schedule(() => (after = snapshot(probe())), 3.5);
    });
    expect(after).toBe('keys=0 timers=0 backoff=0');
  });
});
