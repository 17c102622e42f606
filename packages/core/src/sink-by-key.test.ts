import { EMPTY, from, lastValueFrom, tap, throwError } from 'rxjs';
import type { ObservableInput } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { InvalidArgumentError } from './invalid-argument-error.js';
import { sinkByKey } from './sink-by-key.js';
import type { SinkResult } from './sink-by-key.js';

/** A desired state: `key` is the object, `id` names this particular version. */
interface Ev {
  readonly key: string;
  readonly id: string;
}

// Upper case is a newer version of the lower-case key (`A` is key `a`); `n` is a third version of `a`.
const values: Record<string, Ev> = {
  a: { key: 'a', id: 'a' },
  A: { key: 'a', id: 'A' },
  n: { key: 'a', id: 'n' },
  b: { key: 'b', id: 'b' },
  B: { key: 'b', id: 'B' },
  c: { key: 'c', id: 'c' },
};
const ev = (id: string): Ev => {
  const v = values[id];
  if (v === undefined) throw new Error(`test: unknown value ${id}`);
  return v;
};
const keyOf = (e: Ev): string => e.key;
type R = SinkResult<Ev, string, string>;
const written = (id: string, result = `ok:${id}`): R => ({
  kind: 'written',
  key: ev(id).key,
  value: ev(id),
  result,
});
const superseded = (id: string): R => ({ kind: 'superseded', key: ev(id).key, value: ev(id) });
const failed = (id: string, error: unknown): R => ({ kind: 'failed', key: ev(id).key, value: ev(id), error });

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

function writes(table: Record<string, ObservableInput<string>>): (e: Ev) => ObservableInput<string> {
  return (e) => {
    const w = table[e.id];
    if (w === undefined) throw new Error(`test: no write for ${e.id}`);
    return w;
  };
}

describe('sinkByKey', () => {
  it('reports each completed write as `written`, one write per key at a time', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -aA-b-----|', values);
      const srcSubs = '     ^---------!';
      const a = cold('       --(r|)', { r: 'ok:a' });
      const A = cold('         --(r|)', { r: 'ok:A' });
      const b = cold('          --(r|)', { r: 'ok:b' });
      const expected = '    ---x-yz---|';
      //                     a 1→3; A parked at 2 runs 3→5; b (4) takes the second slot: 4→6
      expectObservable(source.pipe(sinkByKey(keyOf, writes({ a, A, b }), { concurrency: 2 }))).toBe(
        expected,
        {
          x: written('a'),
          y: written('A'),
          z: written('b'),
        },
      );
      expectSubscriptions(source.subscriptions).toBe(srcSubs);
      expectSubscriptions(a.subscriptions).toBe('-^-!');
      expectSubscriptions(A.subscriptions).toBe('---^-!');
      expectSubscriptions(b.subscriptions).toBe('----^-!');
    });
  });

  it('reports a failing write as `failed` and goes on with the next values', () => {
    const boom = new Error('409 Conflict');
    newScheduler().run(({ hot, cold, expectObservable }) => {
      const source = hot('  -ab-----|', values);
      const a = cold('       --#', undefined, boom);
      const b = cold('         --(r|)', { r: 'ok:b' });
      const expected = '    ---x-y--|';
      //                     a fails at 1+2=3; b waited from 2, runs 3→5
      expectObservable(source.pipe(sinkByKey(keyOf, writes({ a, b })))).toBe(expected, {
        x: failed('a', boom),
        y: written('b'),
      });
    });
  });

  it('reports values replaced before their write as `superseded`, at the moment they are replaced', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -aAnbB---|', values);
      const a = cold('       -----(r|)', { r: 'ok:a' });
      const A = cold('       --(r|)', { r: 'ok:A' });
      const b = cold('       --(r|)', { r: 'ok:b' });
      const B = cold('       --(r|)', { r: 'ok:B' });
      const n = cold('       --(r|)', { r: 'ok:n' });
      const expected = '    ---x-yz-u-(v|)';
      //                     a runs 1→6. A (parked at 2) is superseded by n at 3; waiting b is superseded
      //                     by B at 5. At 6 n joins the FIFO behind B: B 6→8, n 8→10, then complete.
      expectObservable(source.pipe(sinkByKey(keyOf, writes({ a, A, b, B, n })))).toBe(expected, {
        x: superseded('A'),
        y: superseded('b'),
        z: written('a'),
        u: written('B'),
        v: written('n'),
      });
      expectSubscriptions(A.subscriptions).toBe([]);
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('reports the last value a write emitted as its result', () => {
    newScheduler().run(({ hot, cold, expectObservable }) => {
      const source = hot('  -a--|', values);
      const a = cold('       -r-s|', { r: 'first', s: 'last' });
      const expected = '    -----(x|)';
      //                     the write emits at 2 and 4, completes at 1+4=5: one `written` with the last
      expectObservable(source.pipe(sinkByKey(keyOf, writes({ a })))).toBe(expected, {
        x: written('a', 'last'),
      });
    });
  });

  it('reports `failed` for a write that throws, rejects or completes without a result', async () => {
    const thrown = new Error('bad request');
    const rejected = new Error('rejected');
    const results: R[] = [];
    const write = (e: Ev): ObservableInput<string> => {
      if (e.id === 'a') throw thrown;
      if (e.id === 'b') return Promise.reject(rejected);
      if (e.id === 'c') return EMPTY;
      return throwError(() => new Error('unreachable'));
    };
    await lastValueFrom(
      from([ev('a'), ev('b'), ev('c')]).pipe(
        sinkByKey(keyOf, write),
        tap((r) => results.push(r)),
      ),
    );
    expect(results.slice(0, 2)).toEqual([failed('a', thrown), failed('b', rejected)]);
    expect(results[2]).toMatchObject({ kind: 'failed', key: 'c', value: ev('c') });
    expect(String((results[2] as { error: unknown }).error)).toContain(
      'sinkByKey: write completed without emitting a result for key c',
    );
  });

  it('unsubscribing cancels the in-flight write and drops waiting values without a result', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -ab-----', values);
      const unsub = '       ^--!';
      const a = cold('       -----(r|)', { r: 'ok:a' });
      const b = cold('       --(r|)', { r: 'ok:b' });
      const expected = '    ----';
      //                     a (1→6) is unsubscribed at 3; b was waiting and never starts
      expectObservable(source.pipe(sinkByKey(keyOf, writes({ a, b }))), unsub).toBe(expected);
      expectSubscriptions(a.subscriptions).toBe('-^-!');
      expectSubscriptions(b.subscriptions).toBe([]);
    });
  });

  it('forwards a source error and cancels the in-flight write', () => {
    newScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('  -a-#', values);
      const a = cold('       -----(r|)', { r: 'ok:a' });
      const expected = '    ---#';
      expectObservable(source.pipe(sinkByKey(keyOf, writes({ a })))).toBe(expected);
      expectSubscriptions(a.subscriptions).toBe('-^-!');
    });
  });

  it('throws InvalidArgumentError at creation for a bad write or concurrency', () => {
    expect(() => sinkByKey(keyOf, 42 as never)).toThrow(
      expect.objectContaining({ _tag: 'InvalidArgumentError', operator: 'sinkByKey', argument: 'write' }),
    );
    expect(() => sinkByKey(keyOf, writes({}), { concurrency: 0 })).toThrow(InvalidArgumentError);
    expect(() => sinkByKey(keyOf, writes({}), { concurrency: 0 })).toThrow(
      /^sinkByKey: options\.concurrency must be an integer >= 1/,
    );
  });
});
