/**
 * Test helper: a {@link ListWatchSource} answering each call with the next Observable of a script
 * (usually `cold()` marbles), recording the parameters and the scheduler time of every call.
 * Calls beyond the script get `NEVER`, so a test decides exactly how far the machine may go.
 */
import type { Observable, SchedulerLike } from 'rxjs';
import { NEVER } from 'rxjs';

import type { KubeObject } from '../../types.js';
import type { ListPage, ListParams, ListWatchSource, RawWatchEvent, WatchParams } from '../source.js';

export interface ScriptedSource<T extends KubeObject> {
  readonly source: ListWatchSource<T>;
  readonly listCalls: ListParams[];
  readonly watchCalls: WatchParams[];
  readonly listTimes: number[];
  readonly watchTimes: number[];
}

export function scriptedSource<T extends KubeObject>(
  scheduler: SchedulerLike,
  lists: readonly Observable<ListPage<T>>[],
  watches: readonly Observable<RawWatchEvent<T>>[] | ((call: number) => Observable<RawWatchEvent<T>>),
): ScriptedSource<T> {
  const listCalls: ListParams[] = [];
  const watchCalls: WatchParams[] = [];
  const listTimes: number[] = [];
  const watchTimes: number[] = [];
  return {
    listCalls,
    watchCalls,
    listTimes,
    watchTimes,
    source: {
      list(params) {
        listCalls.push(params);
        listTimes.push(scheduler.now());
        return lists[listCalls.length - 1] ?? NEVER;
      },
      watch(params) {
        watchCalls.push(params);
        watchTimes.push(scheduler.now());
        const n = watchCalls.length - 1;
        return typeof watches === 'function' ? watches(n) : (watches[n] ?? NEVER);
      },
    },
  };
}

/** A namespaced ConfigMap-like object. */
export function cm(name: string, rv: string, data: Record<string, string> = {}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { namespace: 'ns', name, resourceVersion: rv },
    data,
  };
}

export function page<T extends KubeObject>(items: T[], resourceVersion: string, cont?: string): ListPage<T> {
  return cont === undefined ? { items, resourceVersion } : { items, resourceVersion, continue: cont };
}
