/**
 * Test helper for the integration tests over HTTP: runs a watch into a Store, records its events and
 * health snapshots, and waits for a condition on them with a bounded timeout (no sleeps: the
 * condition is re-checked on every event and every health change).
 */
import type { TestCluster } from '@rxkube/testing';
import type { Observable, Subscription } from 'rxjs';
import { filter, firstValueFrom, Subject, take, throwError, timeout } from 'rxjs';

import { reflector } from '../reflector/reflector.js';
import { Store } from '../reflector/store.js';
import type { KubeObject, WatchEvent } from '../types.js';
import { objectKey } from '../types.js';
import type { WatcherConfig } from './config.js';
import type { WatcherHealth } from './health.js';
import { INITIAL_WATCHER_HEALTH } from './health.js';

/** Small delays so fault recovery takes milliseconds; the idle timer stays out of the way. */
export const FAST: WatcherConfig = {
  backoff: { initialMs: 20, maxMs: 200, factor: 2, jitter: 0.5, resetAfterMs: 120_000 },
  idleTimeoutMs: 30_000,
};

export const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

export interface Run<T extends KubeObject = KubeObject> {
  readonly store: Store<T>;
  readonly events: WatchEvent<T>[];
  readonly healths: WatcherHealth[];
  health(): WatcherHealth;
  /** Resolves once `predicate()` holds (checked now and after every event / health change). */
  until(what: string, predicate: () => boolean, ms?: number): Promise<void>;
  stop(): void;
}

/**
 * Subscribes `build(health)` (a watch whose config gets `health`) through a reflector into a new
 * Store.
 */
export function runWatch<T extends KubeObject = KubeObject>(
  build: (health: (h: WatcherHealth) => void) => Observable<WatchEvent<T>>,
): Run<T> {
  const store = new Store<T>();
  const events: WatchEvent<T>[] = [];
  const healths: WatcherHealth[] = [];
  const changed = new Subject<void>();
  let error: unknown;
  const subscription: Subscription = build((h) => {
    healths.push(h);
    changed.next();
  })
    .pipe(reflector(store))
    .subscribe({
      next: (e) => {
        events.push(e);
        changed.next();
      },
      error: (e: unknown) => {
        error = e;
        changed.next();
      },
      complete: () => {
        error = new Error('the watch completed (it must never complete)');
        changed.next();
      },
    });
  const health = (): WatcherHealth => healths[healths.length - 1] ?? INITIAL_WATCHER_HEALTH;
  return {
    store,
    events,
    healths,
    health,
    until(what, predicate, ms = 15_000) {
      const check = (): boolean => {
        if (error !== undefined)
          throw new Error(`the watch ended while waiting for ${what}`, { cause: error });
        return predicate();
      };
      if (check()) return Promise.resolve();
      return firstValueFrom(
        changed.pipe(
          filter(check),
          take(1),
          timeout({
            first: ms,
            with: () =>
              throwError(
                () =>
                  new Error(
                    `timed out after ${ms} ms waiting for ${what}; health: ${JSON.stringify({ ...health(), lastError: health().lastError?.message })}`,
                  ),
              ),
          }),
        ),
      ).then(() => undefined);
    },
    stop() {
      subscription.unsubscribe();
    },
  };
}

/**
 * `namespace/name → resourceVersion` of the server's objects of a resource (optionally one
 * namespace), read over HTTP as the admin.
 */
export async function serverState(
  cluster: TestCluster,
  resource: string,
  namespace?: string,
): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const o of await cluster.list(resource, namespace)) {
    const m = o.metadata as { namespace?: string; name: string; resourceVersion: string };
    out.set(m.namespace !== undefined ? `${m.namespace}/${m.name}` : m.name, m.resourceVersion);
  }
  return out;
}

/** `namespace/name → resourceVersion` of a Store's objects (optionally one namespace). */
export function storeState(store: Store, namespace?: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const o of store.list(namespace)) out.set(objectKey(o), o.metadata.resourceVersion ?? '');
  return out;
}

export function sameState(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [k, v] of a) if (b.get(k) !== v) return false;
  return true;
}

/** Each event as `Init`, `InitDone` or `<type> <name>` (e.g. `Apply a`). */
export function describeEvents(events: readonly WatchEvent[]): string[] {
  return events.map((e) =>
    e.type === 'Init' || e.type === 'InitDone' ? e.type : `${e.type} ${e.object.metadata.name ?? ''}`,
  );
}
