/**
 * Issue 19 §1–2 in marbles: a reconcile past `reconcileTimeoutMs` frees its worker, aborts
 * `ctx.signal`, fails with a `ReconcileTimeoutError` counted as a user-code error and is retried
 * with backoff; every way a reconcile fails (synchronous throw, rejection, Observable error,
 * timeout) is counted under hook `reconcile`, and the result names the hook.
 */
import { Action, TerminalError } from '@rxkube/core';
import type { Observable } from 'rxjs';
import { defer, firstValueFrom, map, NEVER, Subject, take, throwError, toArray } from 'rxjs';
import { testScheduler } from '@rxkube/testing/vitest';
import { ScriptedWatchRegistry, watchEvent } from '@rxkube/testing/controller';
import { describe, expect, it } from 'vitest';

import type { KubeObject, WatchEvent } from '../types.js';
import type { UserCodeHook } from '../user-code-error.js';
import type { ControllerOptions, ControllerResult, ReconcileContext } from './controller.js';
import { controller } from './controller.js';
import { DEFAULT_RECONCILE_TIMEOUT_MS } from './options.js';
import { isReconcileTimeoutError } from './reconcile-work.js';
import { planController } from './validate-options.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const I: WatchEvent = watchEvent.init();
const D: WatchEvent = watchEvent.initDone();
const obj = (name: string): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace: 'ns', name, uid: `uid-${name}`, resourceVersion: '1' },
});
const ia = (name: string): WatchEvent => ({ type: 'InitApply', object: obj(name) });
const short = (r: ControllerResult): string =>
  `${r.key}:${r.outcome}${r.hook !== undefined ? `:${r.hook}` : ''}${r.retryInMs !== undefined ? `@${r.retryInMs}` : ''}`;

function options(
  primary: Observable<WatchEvent>,
  counted: (UserCodeHook | 'panic')[],
  extra: Partial<ControllerOptions<KubeObject>> = {},
): ControllerOptions<KubeObject> {
  return {
    for: CM,
    name: 'test',
    registry: new ScriptedWatchRegistry({ ConfigMap: primary }),
    rateLimit: false,
    random: () => 0,
    log: {},
    observer: {
      userCodeError: (hook) => counted.push(hook),
      panicked: () => counted.push('panic'),
    },
    ...extra,
  };
}

describe('controller: reconcile timeout (issue 19 §1)', () => {
  it('a hung reconcile is cancelled at its deadline: the worker is freed, ctx.signal aborts, the key retries with backoff', () => {
    const ts = testScheduler();
    const counted: (UserCodeHook | 'panic')[] = [];
    const signals: AbortSignal[] = [];
    let aCalls = 0;
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabD)', { I, D, a: ia('a'), b: ia('b') });
      const results$ = controller(options(primary, counted, { reconcileTimeoutMs: 10 }), ts).run(
        (req, ctx) => {
          signals.push(ctx.signal);
          if (req.name === 'a' && aCalls++ === 0) return NEVER;
          return cold('(d|)', { d: Action.awaitChange() });
        },
      );
      // a hangs from 0; concurrency 1 holds b behind it until a's deadline at 10, then b runs;
      // a fails at 10 (retry in 5 ms), reruns at 15 and succeeds ((xb) spans frames 10–13)
      expectObservable(results$.pipe(map(short)), '^ 30ms !').toBe('10ms (xb) 1ms y', {
        x: 'ns/a:error:reconcile@5',
        b: 'ns/b:success',
        y: 'ns/a:success',
      });
    });
    expect(counted).toEqual(['reconcile']);
    const first = signals[0];
    expect(first?.aborted).toBe(true);
    expect(isReconcileTimeoutError(first?.reason)).toBe(true);
    expect(String((first?.reason as Error).message)).toMatch(
      /reconcile of "ns\/a" \(controller test\) did not finish within 10 ms \(reconcileTimeoutMs\)/,
    );
    // the ones that settled are aborted too (controller-runtime cancels ctx after Reconcile returns)
    expect(signals.every((s) => s.aborted)).toBe(true);
  });

  it('the deadline counts from the start of the reconcile, not from the wait for the caches', () => {
    const ts = testScheduler();
    const counted: (UserCodeHook | 'panic')[] = [];
    ts.run(({ hot, cold, expectObservable }) => {
      // the list completes at 20, after the 10 ms deadline would have passed had the wait counted
      const primary = hot<WatchEvent>('(Ia) 15ms D', { I, D, a: ia('a') });
      const results$ = controller(options(primary, counted, { reconcileTimeoutMs: 10 }), ts).run(() =>
        cold('5ms (d|)', { d: Action.awaitChange() }),
      );
      expectObservable(results$.pipe(map(short)), '^ 40ms !').toBe('24ms a', { a: 'ns/a:success' });
    });
    expect(counted).toEqual([]);
  });

  it('reconcileTimeoutMs: false turns the deadline off; the default is DEFAULT_RECONCILE_TIMEOUT_MS', () => {
    const counted: (UserCodeHook | 'panic')[] = [];
    const ts = testScheduler();
    ts.run(({ hot, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)', { I, D, a: ia('a') });
      const results$ = controller(options(primary, counted, { reconcileTimeoutMs: false }), ts).run(
        () => NEVER,
      );
      expectObservable(results$.pipe(map(short)), '^ 600000ms !').toBe('');
    });
    expect(DEFAULT_RECONCILE_TIMEOUT_MS).toBe(300_000);
    expect(planController(options(NEVER, counted)).reconcileTimeoutMs).toBe(300_000);
    expect(() => planController(options(NEVER, counted, { reconcileTimeoutMs: 0 }))).toThrow(
      /options\.reconcileTimeoutMs/,
    );
  });

  it('ctx.signal aborts once the reconcile settled, with an Error naming the key (no stack captured)', () => {
    const counted: (UserCodeHook | 'panic')[] = [];
    const signals: AbortSignal[] = [];
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IaD)', { I, D, a: ia('a') });
      const results$ = controller(options(primary, counted), ts).run((_request, ctx) => {
        signals.push(ctx.signal);
        return cold('5ms (x|)', { x: Action.awaitChange() });
      });
      expectObservable(results$.pipe(map(short)), '^ 10ms !').toBe('5ms x', { x: 'ns/a:success' });
    });
    expect(signals).toHaveLength(1);
    const reason: unknown = signals[0]?.reason;
    expect(signals[0]?.aborted).toBe(true);
    expect(reason).toBeInstanceOf(Error);
    expect((reason as Error).message).toBe('reconcile of "ns/a" ended (settled or cancelled)');
    expect((reason as Error).stack).toBeUndefined();
    expect(counted).toEqual([]);
  });
});

describe('controller: ctx.signal read late (issue 21: the abort is kept until a signal exists)', () => {
  it('read only after the reconcile settled or timed out, it is already aborted with the same reason', () => {
    const counted: (UserCodeHook | 'panic')[] = [];
    const contexts = new Map<string, ReconcileContext<KubeObject>>();
    let aCalls = 0;
    const ts = testScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabD)', { I, D, a: ia('a'), b: ia('b') });
      const results$ = controller(options(primary, counted, { reconcileTimeoutMs: 10 }), ts).run(
        (req, ctx) => {
          // the signal is not read here
          if (!contexts.has(req.name)) contexts.set(req.name, ctx);
          if (req.name === 'a' && aCalls++ === 0) return NEVER;
          return cold('(d|)', { d: Action.awaitChange() });
        },
      );
      expectObservable(results$.pipe(map(short)), '^ 30ms !').toBe('10ms (xb) 1ms y', {
        x: 'ns/a:error:reconcile@5',
        b: 'ns/b:success',
        y: 'ns/a:success',
      });
    });
    const timedOut = contexts.get('a')?.signal;
    expect(timedOut?.aborted).toBe(true);
    expect(isReconcileTimeoutError(timedOut?.reason)).toBe(true);
    const settled = contexts.get('b')?.signal;
    expect(settled?.aborted).toBe(true);
    expect((settled?.reason as Error).message).toBe('reconcile of "ns/b" ended (settled or cancelled)');
    // one signal per context, whenever it is read
    expect(contexts.get('b')?.signal).toBe(settled);
    expect(counted).toEqual(['reconcile']);
  });
});

describe('controller: ctx.signal, ctx.client and ctx.log are made when read (issue 21)', () => {
  it('a reconcile that reads none of them makes no AbortController; each is one per context', () => {
    const made: AbortController[] = [];
    const Original = globalThis.AbortController;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        made.push(this);
      }
    };
    try {
      const counted: (UserCodeHook | 'panic')[] = [];
      const contexts: ReconcileContext<KubeObject>[] = [];
      const ts = testScheduler();
      ts.run(({ hot, cold, expectObservable }) => {
        const primary = hot<WatchEvent>('(IabD)', { I, D, a: ia('a'), b: ia('b') });
        const results$ = controller(options(primary, counted), ts).run((_req, ctx) => {
          contexts.push(ctx);
          return cold('(d|)', { d: Action.awaitChange() });
        });
        expectObservable(results$.pipe(map(short)), '^ 5ms !').toBe('(ab)', {
          a: 'ns/a:success',
          b: 'ns/b:success',
        });
      });
      expect(contexts).toHaveLength(2);
      expect(made).toHaveLength(0);
      const [a, b] = contexts as [ReconcileContext<KubeObject>, ReconcileContext<KubeObject>];
      // read after settling: made then, already aborted, the same object on every read
      expect(a.signal.aborted).toBe(true);
      expect(made).toHaveLength(1);
      expect(a.signal).toBe(a.signal);
      expect(a.client).toBe(a.client);
      expect(a.log).toBe(a.log);
      expect(a.client).not.toBe(b.client);
      expect(b.log).not.toBe(a.log);
      // destructured members keep working (the accessors return one value per context)
      const { key, object, owned, signal } = b;
      expect([key, object.metadata.name, typeof owned, signal.aborted]).toEqual([
        'ns/b',
        'b',
        'function',
        true,
      ]);
      expect(counted).toEqual([]);
    } finally {
      globalThis.AbortController = Original;
    }
  });
});

describe('controller: a timed-out reconcile unwinds before its key runs again', () => {
  // Real timers on purpose: the unwinding of an aborted async reconcile happens in promise
  // callbacks (microtasks), which a TestScheduler flush never runs. Nothing is asserted on time.
  it('a change parked behind a hung reconcile starts only after the aborted one ran its finally', async () => {
    const primary = new Subject<WatchEvent>();
    const counted: (UserCodeHook | 'panic')[] = [];
    const overlaps: string[] = [];
    let running = false;
    let calls = 0;
    const results$ = controller(options(primary, counted, { reconcileTimeoutMs: 20 })).run((_req, ctx) =>
      defer(async () => {
        if (running) overlaps.push(`call ${calls} began while an earlier one was still running`);
        running = true;
        try {
          if (calls++ === 0) {
            // a newer version of the object arrives while this run hangs: it is parked behind it
            queueMicrotask(() =>
              primary.next({
                type: 'Apply',
                object: { ...obj('a'), metadata: { ...obj('a').metadata, resourceVersion: '2' } },
              }),
            );
            // hung until the deadline aborts ctx.signal, as user code honouring it does
            await new Promise<never>((_resolve, reject) => {
              ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason as Error), { once: true });
            });
          }
          return Action.awaitChange();
        } finally {
          running = false;
        }
      }),
    );
    const results = firstValueFrom(results$.pipe(map(short), take(2), toArray()));
    primary.next(I);
    primary.next(ia('a'));
    primary.next(D);
    expect(await results).toEqual(['ns/a:error:reconcile', 'ns/a:success']);
    expect(overlaps).toEqual([]);
    expect(counted).toEqual(['reconcile']);
  });
});

describe('controller: every way a reconcile fails is a counted user-code error (issue 19 §2)', () => {
  it('rejected, errored as an Observable, thrown synchronously, timed out: counted under hook reconcile, the error kept', () => {
    const ts = testScheduler();
    const counted: (UserCodeHook | 'panic')[] = [];
    const results: ControllerResult[] = [];
    const seen = new Set<string>();
    const apiError = Object.assign(new Error('configmaps "x" not found'), { code: 404 });
    ts.run(({ hot, expectObservable }) => {
      const primary = hot<WatchEvent>('(IabcdtD)', {
        I,
        D,
        a: ia('a'),
        b: ia('b'),
        c: ia('c'),
        d: ia('d'),
        t: ia('t'),
      });
      const results$ = controller(
        options(primary, counted, { reconcileTimeoutMs: 10, concurrency: 5 }),
        ts,
      ).run((req) => {
        if (seen.has(req.name)) return NEVER; // the retries wait past the window
        seen.add(req.name);
        switch (req.name) {
          case 'a':
            return throwError(() => apiError);
          case 'b':
            throw new TypeError('x is undefined');
          case 'c':
            // eslint-disable-next-line rxjs-x/throw-error -- user code may fail with a non-Error
            return throwError(() => 'a string');
          case 'd':
            return throwError(() => new TerminalError('invalid spec'));
          default:
            return NEVER;
        }
      });
      expectObservable(
        results$.pipe(
          map((r) => {
            results.push(r);
            return short(r);
          }),
        ),
        '^ 12ms !', // (abcd) spans frames 0–5; t times out at 10
      ).toBe('(abcd) 4ms t', {
        a: 'ns/a:error:reconcile@5',
        b: 'ns/b:error:reconcile@5',
        c: 'ns/c:error:reconcile@5',
        d: 'ns/d:terminal',
        t: 'ns/t:error:reconcile@5',
      });
    });
    // a TerminalError is a deliberate outcome (counted as terminal), not a failure of user code;
    // only the synchronous throw (b) is a "panic" (controller_runtime_reconcile_panics_total)
    expect(counted.filter((c) => c === 'panic')).toHaveLength(1);
    expect(counted.filter((c) => c === 'reconcile')).toHaveLength(4);
    // the rejection's error is kept as the cause (isNotFound(result.error.cause) still works)
    expect(results.find((r) => r.key === 'ns/a')?.error?.cause).toBe(apiError);
  });
});
