import { testScheduler } from '@rxkube/testing/vitest';
import { mergeMap, of } from 'rxjs';
import type { Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';

import { fanOut } from './fan-out.js';

describe('fanOut', () => {
  it("emits an array's items at once, in order, as mergeMap does", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const lists: Record<string, readonly string[]> = { a: ['x', 'y'], b: [], c: ['z'] };
      const source = cold('-a-b-c|');
      const expected = '   -(xy)z|';
      expectObservable(source.pipe(fanOut((k) => lists[k] ?? []))).toBe(expected);
      expectObservable(source.pipe(mergeMap((k) => lists[k] ?? []))).toBe(expected);
    });
  });

  it('subscribes to an Observable concurrently with later values, completing after it', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const inner = cold('---p---q|');
      const source = cold('-a-b------|');
      const project = (k: string): readonly string[] | Observable<string> => (k === 'a' ? inner : ['y']);
      const expected = '   ---yp---q-|';
      expectObservable(source.pipe(fanOut(project))).toBe(expected);
      expectObservable(source.pipe(mergeMap(project))).toBe(expected);
      expectSubscriptions(inner.subscriptions).toBe(['-^-------!', '-^-------!']);
    });
  });

  it("errors with the project's throw, and unsubscribes the source and inner Observables", () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const inner = cold('-----p|');
      const source = hot('-a-b-|');
      const project = (k: string): Observable<string> => {
        if (k === 'b') throw new Error('boom');
        return inner;
      };
      expectObservable(source.pipe(fanOut(project))).toBe('---#', undefined, new Error('boom'));
      expectSubscriptions(inner.subscriptions).toBe('-^-!');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it("passes an inner Observable's error and the source's", () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a|').pipe(fanOut(() => cold('-#')))).toBe('--#');
      expectObservable(cold('-a-#').pipe(fanOut(() => ['x']))).toBe('-x-#');
    });
  });

  it('unsubscribing stops the source and every inner Observable', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const inner = cold('----p|');
      const source = cold('-a-a-|');
      expectObservable(source.pipe(fanOut(() => inner)), '^----!').toBe('');
      expectSubscriptions(inner.subscriptions).toBe(['-^---!', '---^-!']);
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('passes an Observable that completes at once, completing when the source does', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-a---b---|');
      expectObservable(source.pipe(fanOut((k) => of(k, k)))).toBe('-(aa)(bb)|');
    });
  });

  it('turns a Promise into its value, like mergeMap', async () => {
    const { firstValueFrom, of } = await import('rxjs');
    await expect(firstValueFrom(of(1).pipe(fanOut((n) => Promise.resolve(n + 1))))).resolves.toBe(2);
  });
});
