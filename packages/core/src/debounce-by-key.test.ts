import fc from 'fast-check';
import { asapScheduler, Observable, Subject, tap } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it, vi } from 'vitest';

import { debounceByKey } from './debounce-by-key.js';
import { InvalidArgumentError } from './invalid-argument-error.js';
import { KeyOfError } from './run-by-key.js';

// Values are strings; the key is the first character: x1, x2, ... share key "x".
const values = { a: 'x1', b: 'x2', c: 'x3', d: 'x4', e: 'x5', f: 'x6', g: 'x7', h: 'x8', y: 'y1', z: 'y2' };
const keyOf = (s: string): string => s.charAt(0);

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('debounceByKey', () => {
  it('keeps only the latest value per key after the quiet period', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('  -a-yb-------|', values);
      const subs = '        ^-----------!';
      const expected = '    ------yb----|';
      //                     y due 3+3=6; b replaced a at 4 (same key x), due 4+3=7
      expectObservable(source.pipe(debounceByKey(keyOf, 3, undefined, ts))).toBe(expected, values);
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
  });

  it('never lets one key delay another', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-y-b-z-c-y----|', values);
      const expected = '    ----a-y-b-z-c-y-|';
      //                     each key is quiet for 4 > 3 frames between its values: all pass, each 3 late
      expectObservable(source.pipe(debounceByKey(keyOf, 3, undefined, ts))).toBe(expected, values);
    });
  });

  it('starves a continuously hot key without maxWait (emitted only on completion)', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -abcdefgh|', values);
      const expected = '    ---------(h|)';
      expectObservable(source.pipe(debounceByKey(keyOf, 3, undefined, ts))).toBe(expected, values);
    });
  });

  it('emits a hot key at first arrival + maxWait, then opens a new window', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -abcdefgh----|', values);
      const expected = '    ------f----h-|';
      //                     a@1 opens the window: due min(t+3, 1+5=6); f arrives at 6 before the timer and is
      //                     the latest at 6. g@7 opens a new window (cap 12); h@8 is quiet until 8+3=11.
      expectObservable(source.pipe(debounceByKey(keyOf, 3, { maxWait: 5 }, ts))).toBe(expected, values);
    });
  });

  it('with maxWait equal to dueTime emits every dueTime while hot', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -abcdefgh|', values);
      const expected = '    ---c--f--(h|)';
      //                     windows open at 1, 4, 7; each emits at open+2 its latest value (c@3, f@6)
      expectObservable(source.pipe(debounceByKey(keyOf, 2, { maxWait: 2 }, ts))).toBe(expected, values);
    });
  });

  it('with dueTime 0 coalesces a synchronous burst to one value per key, in first-arrival order', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -(azby)-c-|', values);
      const expected = '    -(by)---c-|';
      //                     a,z,b,y arrive in frame 1: key x arrived first, so x2 (b) then y1 (y);
      //                     c alone in frame 8 is emitted in frame 8
      expectObservable(source.pipe(debounceByKey(keyOf, 0, undefined, ts))).toBe(expected, values);
    });
  });

  it('with dueTime 0 on the default scheduler coalesces a burst at the same frame (asapScheduler, virtualised)', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -(azby)-c-(dz)|', values);
      const expected = '    -(by)---c-(dz)|';
      //                     no scheduler passed: the flush runs on asapScheduler, which run mode
      //                     virtualises at the frame of the burst, like a 0 ms action would be
      expectObservable(source.pipe(debounceByKey(keyOf, 0))).toBe(expected, values);
    });
  });

  it('with dueTime 0 schedules one action per burst, not one per key', () => {
    const ts = newScheduler();
    ts.run(() => {
      let scheduled = 0;
      const counting = {
        now: () => ts.now(),
        schedule: ((...args: Parameters<TestScheduler['schedule']>) => {
          scheduled++;
          return ts.schedule(...args);
        }) as TestScheduler['schedule'],
      };
      const subject = new Subject<string>();
      const seen: string[] = [];
      const sub = subject.pipe(debounceByKey(keyOf, 0, undefined, counting)).subscribe((v) => seen.push(v));
      for (let i = 0; i < 1000; i++) subject.next(`${String.fromCharCode(97 + (i % 26))}${i}`);
      expect(scheduled).toBe(1);
      ts.flush();
      expect(seen).toHaveLength(26);
      expect(seen.slice(0, 2)).toEqual(['a988', 'b989']);
      sub.unsubscribe();
    });
  });

  it('with dueTime 0 on the real asyncScheduler emits when the burst ends, before any timer', async () => {
    const subject = new Subject<string>();
    const seen: string[] = [];
    const sub = subject.pipe(debounceByKey(keyOf, 0)).subscribe((v) => seen.push(v));
    let timerFired = false;
    const timer = setTimeout(() => (timerFired = true), 0);
    subject.next('x1');
    subject.next('y1');
    subject.next('x2');
    expect(seen).toEqual([]);
    await Promise.resolve(); // microtasks run before any timer: no setInterval behind the flush
    await Promise.resolve();
    expect(seen).toEqual(['x2', 'y1']);
    expect(timerFired).toBe(false);
    clearTimeout(timer);
    sub.unsubscribe();
  });

  it('with dueTime 0 on the real asyncScheduler flushes in a bare microtask, not an asapScheduler action', async () => {
    const asap = vi.spyOn(asapScheduler, 'schedule');
    try {
      const subject = new Subject<string>();
      const seen: string[] = [];
      const sub = subject.pipe(debounceByKey(keyOf, 0)).subscribe((v) => seen.push(v));
      for (let burst = 0; burst < 3; burst++) {
        subject.next(`x${burst}`);
        subject.next(`y${burst}`);
        await Promise.resolve();
      }
      expect(seen).toEqual(['x0', 'y0', 'x1', 'y1', 'x2', 'y2']);
      expect(asap).not.toHaveBeenCalled();
      sub.unsubscribe();
      // under TestScheduler.run (its clock is virtual) the flush is asapScheduler's, virtualised
      asap.mockClear();
      newScheduler().run(({ hot, expectObservable }) => {
        expectObservable(hot('-a').pipe(debounceByKey(keyOf, 0))).toBe('-a');
      });
      expect(asap).toHaveBeenCalledTimes(1);
    } finally {
      asap.mockRestore();
    }
  });

  it('with dueTime 0 drops the pending burst on unsubscribe', () => {
    const ts = newScheduler();
    ts.run(() => {
      const subject = new Subject<string>();
      const seen: string[] = [];
      const sub = subject.pipe(debounceByKey(keyOf, 0, undefined, ts)).subscribe((v) => seen.push(v));
      subject.next('x1');
      expect(ts.actions.length).toBe(1);
      sub.unsubscribe();
      expect(ts.actions.length).toBe(0);
      ts.flush();
      expect(seen).toEqual([]);
    });
  });

  it('on completion flushes pending values in first-arrival order, then completes', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-y-b-|', values);
      const expected = '    -------(by|)';
      //                     x first arrived at 1 (now holds b), y at 3; both still quiet at 7
      expectObservable(source.pipe(debounceByKey(keyOf, 10, undefined, ts))).toBe(expected, values);
    });
  });

  it('on error drops pending values and forwards the error', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-y-#', values, new Error('boom'));
      const expected = '    -----#';
      expectObservable(source.pipe(debounceByKey(keyOf, 10, undefined, ts))).toBe(
        expected,
        values,
        new Error('boom'),
      );
    });
  });

  it('on unsubscribe emits nothing more and unsubscribes the source', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('  -a-y-----', values);
      const unsub = '       ^--!';
      const expected = '    ----';
      //                     a would be due at 4, y at 6: both cancelled at 3
      expectObservable(source.pipe(debounceByKey(keyOf, 3, undefined, ts)), unsub).toBe(expected, values);
      expectSubscriptions(source.subscriptions).toBe(unsub);
    });
  });

  it('shares ONE scheduler action across keys and cancels it on unsubscribe', () => {
    const ts = newScheduler();
    ts.run(() => {
      const subject = new Subject<string>();
      const seen: string[] = [];
      const sub = subject.pipe(debounceByKey(keyOf, 5, undefined, ts)).subscribe((v) => seen.push(v));
      for (let i = 0; i < 100; i++) subject.next(`${String.fromCharCode(97 + (i % 26))}${i}`);
      expect(ts.actions.length).toBe(1);
      sub.unsubscribe();
      expect(ts.actions.length).toBe(0);
      expect(subject.observed).toBe(false);
      ts.flush();
      expect(seen).toEqual([]);
    });
  });

  it('does not re-arm a timer per value of a hot key', () => {
    const ts = newScheduler();
    ts.run(() => {
      let scheduled = 0;
      const counting = {
        now: () => ts.now(),
        schedule: ((...args: Parameters<TestScheduler['schedule']>) => {
          scheduled++;
          return ts.schedule(...args);
        }) as TestScheduler['schedule'],
      };
      const subject = new Subject<string>();
      const sub = subject.pipe(debounceByKey(keyOf, 5, undefined, counting)).subscribe();
      for (let i = 0; i < 1000; i++) subject.next(`k${i}`);
      expect(scheduled).toBe(1);
      sub.unsubscribe();
    });
  });

  it('defers values fed back synchronously during emission to a later action instead of looping', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const feedback = new Subject<string>();
      const source = hot('  -a----|', values);
      const merged = new Observable<string>((subscriber) => {
        const s1 = feedback.subscribe(subscriber);
        const s2 = source.subscribe(subscriber);
        return () => {
          s1.unsubscribe();
          s2.unsubscribe();
        };
      });
      const out = merged.pipe(debounceByKey(keyOf, 0, undefined, ts));
      const expected = '    -(amb)|';
      //                     x1 emitted at 1 schedules marker m, then feeds x2 back synchronously: x2 waits for
      //                     the next sweep (an action queued after m), so a feedback loop can never spin a sweep
      const fed = new Observable<string>((subscriber) =>
        out.subscribe({
          next: (v) => {
            subscriber.next(v);
            if (v === 'x1') {
              ts.schedule(() => subscriber.next('m'), 0);
              feedback.next('x2');
            }
          },
          error: (e: unknown) => subscriber.error(e),
          complete: () => subscriber.complete(),
        }),
      );
      expectObservable(fed).toBe(expected, { ...values, m: 'm' });
    });
  });

  it('tells options.onPending the keys it holds on each change, before the leaving value is emitted', () => {
    const ts = newScheduler();
    const log: string[] = [];
    const onPending = (keys: number): void => void log.push(`${ts.now()}: ${keys} held`);
    ts.run(({ hot, expectObservable }) => {
      // x arrives at 1 (1 key), y at 3 (2 keys), x again at 4 (still 2); y leaves at 6, x at 7
      const source = hot('  -a-yb----|', values);
      const expected = '    ------yb-|';
      const out = source.pipe(
        debounceByKey(keyOf, 3, { onPending }, ts),
        tap((v) => log.push(`${ts.now()}: ${v}`)),
      );
      expectObservable(out).toBe(expected, values);
    });
    expect(log).toEqual(['1: 1 held', '3: 2 held', '6: 1 held', '6: y1', '7: 0 held', '7: x2']);
  });

  it('tells options.onPending of a flush on completion, one key at a time', () => {
    const ts = newScheduler();
    const seen: [number, number][] = [];
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-y|', values);
      const out = source.pipe(debounceByKey(keyOf, 3, { onPending: (n) => seen.push([ts.now(), n]) }, ts));
      expectObservable(out).toBe('    ----(ay|)', values);
    });
    expect(seen).toEqual([
      [1, 1],
      [3, 2],
      [4, 1],
      [4, 0],
    ]);
  });

  it('with dueTime 0 tells options.onPending each new key of a burst and each key it emits', () => {
    const ts = newScheduler();
    const seen: [number, number][] = [];
    ts.run(({ hot, expectObservable }) => {
      // b and y replace pending values of keys x and y: no change; c alone at 8
      const source = hot('  -(azby)-c-|', values);
      const out = source.pipe(debounceByKey(keyOf, 0, { onPending: (n) => seen.push([ts.now(), n]) }, ts));
      expectObservable(out).toBe('    -(by)---c-|', values);
    });
    expect(seen).toEqual([
      [1, 1],
      [1, 2],
      [1, 1],
      [1, 0],
      [8, 1],
      [8, 0],
    ]);
  });

  it('with dueTime 0 counts a key fed back while its burst is emitted as held again', () => {
    const ts = newScheduler();
    const seen: number[] = [];
    ts.run(({ hot, expectObservable }) => {
      const feedback = new Subject<string>();
      const source = hot('  -a----|', values);
      const merged = new Observable<string>((subscriber) => {
        const s1 = feedback.subscribe(subscriber);
        const s2 = source.subscribe(subscriber);
        return () => {
          s1.unsubscribe();
          s2.unsubscribe();
        };
      });
      const out = merged.pipe(debounceByKey(keyOf, 0, { onPending: (n) => seen.push(n) }, ts));
      const fed = new Observable<string>((subscriber) =>
        out.subscribe({
          next: (v) => {
            subscriber.next(v);
            if (v === 'x1') feedback.next('x2');
          },
          error: (e: unknown) => subscriber.error(e),
          complete: () => subscriber.complete(),
        }),
      );
      expectObservable(fed).toBe('    -(ab)-|', values);
    });
    // x1 held, then emitted (0), x2 fed back (1), emitted on the next action (0)
    expect(seen).toEqual([1, 0, 1, 0]);
  });

  it('throws InvalidArgumentError when options.onPending is not a function', () => {
    expect(() => debounceByKey(keyOf, 0, { onPending: 1 as never })).toThrow(InvalidArgumentError);
  });

  it('forwards an error naming keyOf when keyOf throws, and drops pending values', () => {
    const ts = newScheduler();
    let error: unknown;
    const seen: string[] = [];
    const cause = new Error('no key');
    ts.run(({ hot, expectSubscriptions }) => {
      const source = hot('  -a-y--', values);
      const subs = '        ^--!';
      source
        .pipe(
          debounceByKey(
            (s: string) => {
              if (s === 'y1') throw cause;
              return keyOf(s);
            },
            5,
            undefined,
            ts,
          ),
        )
        .subscribe({ next: (v) => seen.push(v), error: (e: unknown) => (error = e) });
      expectSubscriptions(source.subscriptions).toBe(subs);
    });
    expect(seen).toEqual([]);
    expect(error).toBeInstanceOf(KeyOfError);
    expect((error as KeyOfError).operator).toBe('debounceByKey');
    expect((error as KeyOfError).value).toBe('y1');
    expect((error as Error).message).toMatch(/^debounceByKey: keyOf threw .*no key/);
    expect((error as Error).cause).toBe(cause);
  });

  it.each([
    ['dueTime', -1, undefined],
    ['dueTime', Number.NaN, undefined],
    ['dueTime', Infinity, undefined],
    ['options.maxWait', -1, { maxWait: -1 }],
    ['options.maxWait', Infinity, { maxWait: Infinity }],
    ['options.maxWait', 5, { maxWait: 5 }],
  ] as const)('throws InvalidArgumentError naming %s for %s', (argument, bad, options) => {
    const dueTime = argument === 'dueTime' ? bad : 10;
    let thrown: unknown;
    try {
      debounceByKey(keyOf, dueTime, options);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(InvalidArgumentError);
    expect((thrown as InvalidArgumentError).argument).toBe(argument);
    expect((thrown as InvalidArgumentError).message).toContain(argument);
  });

  it('throws InvalidArgumentError when keyOf is not a function', () => {
    expect(() => debounceByKey(undefined as unknown as (s: string) => string, 1)).toThrow(/keyOf/);
  });

  it('matches a per-key reference model on random schedules', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ gap: fc.nat(4), key: fc.constantFrom('a', 'b', 'c') }), { maxLength: 40 }),
        fc.nat(4),
        fc.option(fc.nat(6), { nil: undefined }),
        fc.nat(5),
        (steps, dueTime, extra, tail) => {
          const maxWait = extra === undefined ? undefined : dueTime + extra;
          let t = 0;
          const events = steps.map((s, i) => ({ t: (t += s.gap), key: s.key, id: `${s.key}${i}` }));
          const end = t + tail;
          const actual: [number, string][] = [];
          const ts = newScheduler();
          ts.run(() => {
            const source = new Observable<string>((subscriber) => {
              for (const e of events) ts.schedule(() => subscriber.next(e.id), e.t);
              ts.schedule(() => subscriber.complete(), end);
            });
            source
              .pipe(debounceByKey(keyOf, dueTime, maxWait === undefined ? undefined : { maxWait }, ts))
              .subscribe((v) => actual.push([ts.now(), v]));
          });
          expect(sortPairs(actual)).toEqual(sortPairs(model(events, dueTime, maxWait ?? Infinity, end)));
        },
      ),
    );
  });
});

/** Reference semantics: per key, a window opened by its first value emits its latest value at
 * min(last + dueTime, first + maxWait), values at exactly that instant still belonging to it;
 * completion at `end` flushes. */
function model(
  events: readonly { t: number; key: string; id: string }[],
  dueTime: number,
  maxWait: number,
  end: number,
): [number, string][] {
  const out: [number, string][] = [];
  const byKey = new Map<string, { t: number; id: string }[]>();
  for (const e of events) byKey.set(e.key, [...(byKey.get(e.key) ?? []), e]);
  for (const list of byKey.values()) {
    let i = 0;
    while (i < list.length) {
      const first = list[i] as { t: number; id: string };
      const cap = first.t + maxWait;
      let due = Math.min(first.t + dueTime, cap);
      let latest = first.id;
      i++;
      while (i < list.length && (list[i] as { t: number }).t <= due) {
        const next = list[i] as { t: number; id: string };
        latest = next.id;
        due = Math.min(next.t + dueTime, cap);
        i++;
      }
      out.push([Math.min(due, end), latest]);
    }
  }
  return out;
}

function sortPairs(pairs: [number, string][]): [number, string][] {
  return [...pairs].sort((x, y) => x[0] - y[0] || x[1].localeCompare(y[1]));
}
