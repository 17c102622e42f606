/**
 * The ConfigMap hasher's wiring: watch labelled ConfigMaps (list + watch, Store), turn changes into
 * requests, reconcile them with `applier` (one per key at a time, backoff on failure) and write the
 * hash annotation with a merge patch. Works against any API server the client points at.
 *
 * @module
 */
import { Action, applier, debounceByKey, type ReconcileResult } from '@rxkube/core';
import { type KubeClient, type ObjectRef, Store, objectKey, reflector, watcher } from '@rxkube/kube';
import { type Observable, defer, filter, map, share } from 'rxjs';
import { type ConfigMap, HASH_ANNOTATION, HASH_SELECTOR, hashPatch } from './reconcile.js';

/**
 * Runs the operator until unsubscribed; emits one result per reconcile.
 *
 * ## Example
 * ```ts
 * const client = KubeClient.default();
 * configMapHasher(client).subscribe((r) => console.log(r.key, r.outcome));
 * ```
 */
export function configMapHasher(
  client: KubeClient,
  options: {
    readonly namespace?: string;
    readonly concurrency?: number;
    /** Quiet period per key before reconciling (bursts coalesce); default 20 ms, max wait 10×. */
    readonly debounceMs?: number;
    /** Called after each annotation write. */
    readonly onWrite?: (ref: ObjectRef, hash: string) => void;
  } = {},
): { readonly results$: Observable<ReconcileResult<ObjectRef, string>>; readonly store: Store<ConfigMap> } {
  const store = new Store<ConfigMap>();
  const requests$ = watcher<ConfigMap>(
    client,
    { apiVersion: 'v1', kind: 'ConfigMap' },
    {
      labelSelector: HASH_SELECTOR,
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    },
  ).pipe(
    reflector(store),
    filter((e) => e.type === 'Apply' || e.type === 'InitApply'),
    map((e): ObjectRef => {
      const { namespace, name = '' } = e.object.metadata;
      return { apiVersion: 'v1', kind: 'ConfigMap', name, ...(namespace !== undefined ? { namespace } : {}) };
    }),
  );
  const debounceMs = options.debounceMs ?? 20;
  const results$ = requests$.pipe(
    debounceByKey((ref) => objectKey(ref), debounceMs, { maxWait: debounceMs * 10 }),
    applier(
      (ref) => objectKey(ref),
      (ref) =>
        defer(async () => {
          // Level-triggered: read the current object from the Store, never the event payload.
          const cm = store.get(ref);
          const patch = cm && hashPatch(cm);
          if (patch) {
            await client.patch(ref, { type: 'merge', body: patch }, { fieldManager: 'configmap-hasher' });
            options.onWrite?.(ref, patch.metadata.annotations[HASH_ANNOTATION] ?? '');
          }
          return Action.awaitChange();
        }),
      { concurrency: options.concurrency ?? 2 },
    ),
    share(),
  );
  return { results$, store };
}
