/**
 * `watcher`: one (resource, namespace, selectors) target as an endless stream of
 * {@link WatchEvent}s — a paginated list, then a watch resumed from the last seen resourceVersion,
 * relisting only on 410. Over HTTP (`watcher(client, resource, options)`, kube-rs's
 * `watcher(Api, Config)`) or over a {@link ListWatchSource} port (`watcher(source, config)`, for
 * marble tests). Recoverable failures never reach the error channel; they are reported on the
 * health callback ({@link WatcherConfig.health}).
 *
 * What it does not do: cache objects for readers (that is the reflector's {@link Store}), or share
 * one upstream between subscribers (`WatchRegistry`).
 *
 * @module
 */
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler, Observable } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import type { KubeObject, ResourceType, WatchEvent } from '../types.js';
import type { ResolvedWatcherConfig, WatcherConfig } from './config.js';
import { resolveWatcherConfig } from './config.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import { assertSelectors } from '../selector/label-selector.js';
import { WatcherMachine } from './internal/machine.js';
import type { ListWatchOptions } from './list-watch-source.js';
import { listWatchSource } from './list-watch-source.js';
import type { ListWatchSource } from './source.js';

/**
 * Options of `watcher(client, resource, options)`: the target (namespace, selectors, …) and the config.
 *
 * ## Example
 * ```ts
 * const options: WatcherOptions = { namespace: 'shop', labelSelector: 'app=web', pageSize: 100 };
 * watcher(client, { apiVersion: 'v1', kind: 'ConfigMap' }, options).subscribe();
 * ```
 */
export interface WatcherOptions extends ListWatchOptions, WatcherConfig {}

/**
 * Lists, then watches, one target forever: `Init`, `InitApply`*, `InitDone`, then `Apply` /
 * `Delete` as the server reports changes. Each subscription runs its own list and watch (share one
 * through a `WatchRegistry`).
 *
 * ## Example
 * ```ts
 * const client = KubeClient.default();
 * const store = new Store<KubeObject>();
 * watcher(client, { apiVersion: 'v1', kind: 'ConfigMap' }, {
 *   namespace: 'default',
 *   labelSelector: 'app=web',
 *   health: (h) => h.lastError && log.warn(h.lastError.message),
 * }).pipe(reflector(store)).subscribe();
 * // the port form, for marble tests: watcher(source, { pageSize: 2 }, testScheduler)
 * ```
 *
 * ## Semantics
 * - Initial: `Init`, one `InitApply` per object, `InitDone`. By default a streaming list
 *   (WatchList, KEP-3157): one watch request with `sendInitialEvents=true`,
 *   `resourceVersionMatch=NotOlderThan`, bookmarks on; each initial `ADDED` is an `InitApply` (the
 *   resume point does not move: they are not ordered), the `BOOKMARK` annotated
 *   `k8s.io/initial-events-end` is `InitDone` and its resourceVersion the resume point, and the
 *   same request goes on as the watch. A server that refuses it (a 422 from Kubernetes < 1.27, a
 *   stream that ends or stalls before the bookmark, any failure but the network, 429, 401/403, 410, a kind not served or a
 *   too-large resourceVersion) gets paged lists from then on (remembered per client, said once
 *   through `debug`): the pages (`limit` = `pageSize`, following `continue`), then a watch from
 *   the list's resourceVersion. `streamingLists: true | false` forces either. Every watch has
 *   `allowWatchBookmarks: true` and `timeoutSeconds` drawn from `timeoutSecondsRange`; a resume
 *   never asks for initial events.
 * - Watch: `ADDED`/`MODIFIED` → `Apply`, `DELETED` → `Delete`, `BOOKMARK` → only the remembered
 *   resourceVersion moves. Every line's resourceVersion is remembered.
 * - Clean end of a watch (the server's `timeoutSeconds`): re-watch at once from the last RV. A watch
 *   that ends within 1 s without a single line is a failure (client-go's "very short watch"), so a
 *   misbehaving server cannot make it spin.
 * - Failure (network, 5xx, 429, 403, an `ERROR` event, a malformed line): abort the request, wait
 *   the backoff (at least the server's `Retry-After`), re-watch from the last good RV — nothing is
 *   lost, the server replays what followed.
 * - Stall (no line for `idleTimeoutMs`): abort and re-watch from the last RV. At once when the
 *   watch had been healthy (no failure since its last line or the list) — a quiet resource gets no
 *   line at all from a v1.24 server, and must not pay a backoff for it. A stall following another
 *   failure with no line in between backs off, the silence already waited counting towards the
 *   delay: attempts on a stalled server are spaced by `max(idleTimeoutMs, backoff step)`.
 * - 410 Gone / `Expired` (HTTP 410 or an `ERROR` event with code 410), on a watch or on a list
 *   page (an expired `continue`): relist after `initialMs` (jittered) — a 410 is an answer from a
 *   healthy server, so the delay failures accumulated before it (an outage) does not apply; only
 *   410s that follow each other within `resetAfterMs` back off (×`factor`). The relist: `Init`,
 *   `InitApply`*, `InitDone`, then a `Delete` for every object known before the relist and absent
 *   from the new list. Objects that did not change are not replayed as `Apply`, and an object
 *   whose resourceVersion did not change is passed on as the instance emitted before (so a Store
 *   keeps its frozen copy and the fresh one is garbage at once). A relist stream asks for a
 *   snapshot not older than the last resourceVersion; after `Expired` or a too-large
 *   resourceVersion, for the current state (`resourceVersion=""`).
 * - A list that fails midway restarts from scratch after backoff, with a new `Init`: consumers drop
 *   what they collected since the previous `Init`.
 * - complete / error: never completes; errors only if the consumer's callbacks throw.
 * - unsubscribe: the list or watch request in flight is aborted and every timer cancelled.
 *
 * ## Guarantees
 * - Every timer runs on `scheduler`; `TestScheduler.run` drives them all.
 * - Backoff: `min(maxMs, initialMs × factor^n) × (1 − jitter × random())`, `n` resetting after a
 *   watch stayed up for `resetAfterMs`.
 * - `relists` equals `gone410s` in the health snapshot.
 *
 * ## Memory
 * One reference per live object (key → the last object emitted for it), so a relist can report
 * what vanished; a key is forgotten when its `Delete` is emitted. A relist adds no second table:
 * listed objects move behind a mark in the same Map, and what is left before the mark at
 * `InitDone` is what vanished. The references are the objects emitted, so a Store that keeps them
 * (as the default reflector transform does) shares rather than duplicates them.
 *
 * @param client the API client (or, in the port form, a {@link ListWatchSource}).
 * @param resource `{ apiVersion, kind }` (port form: the {@link WatcherConfig}).
 * @param options the target (`namespace`, `labelSelector`, `fieldSelector`, `metadataOnly`,
 *   `maxLineBytes`) and any {@link WatcherConfig} field; every field has a default.
 * @param scheduler time source; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} at call time, for an unusable client, source, resource, option or
 *   scheduler; {@link InvalidSelectorError} (one) for a `labelSelector` or `fieldSelector` the
 *   server would refuse, with the position of the error.
 */
export function watcher<T extends KubeObject = KubeObject>(
  client: KubeClient,
  resource: ResourceType<T> | ResourceType,
  options?: WatcherOptions,
  scheduler?: SchedulerLike,
): Observable<WatchEvent<T>>;
export function watcher<T extends KubeObject>(
  source: ListWatchSource<T>,
  config?: WatcherConfig,
  scheduler?: SchedulerLike,
): Observable<WatchEvent<T>>;
export function watcher<T extends KubeObject>(
  first: KubeClient | ListWatchSource<T>,
  second?: ResourceType | WatcherConfig,
  third?: WatcherOptions | SchedulerLike,
  fourth?: SchedulerLike,
): Observable<WatchEvent<T>> {
  if (isResourceType(second)) {
    const resource = second;
    const options = (third ?? {}) as WatcherOptions;
    const scheduler = fourth ?? asyncScheduler;
    const { namespace, labelSelector, fieldSelector, shardSelector, metadataOnly, maxLineBytes, ...config } =
      options;
    // Check everything now, so a bad option throws here rather than at subscription.
    assertSelectors('watcher', 'options.', options);
    const resolved = resolveWatcherConfig('watcher', config);
    assertScheduler('watcher', scheduler);
    const source = listWatchSource<T>(first as KubeClient, resource, {
      ...(namespace !== undefined ? { namespace } : {}),
      ...(labelSelector !== undefined ? { labelSelector } : {}),
      ...(fieldSelector !== undefined ? { fieldSelector } : {}),
      ...(shardSelector !== undefined ? { shardSelector } : {}),
      ...(metadataOnly !== undefined ? { metadataOnly } : {}),
      ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
    });
    return watchSource(source, resolved, scheduler);
  }
  const scheduler = (third as SchedulerLike | undefined) ?? asyncScheduler;
  const resolved = resolveWatcherConfig('watcher', second);
  assertSource('watcher', first);
  assertScheduler('watcher', scheduler);
  return watchSource(first as ListWatchSource<T>, resolved, scheduler);
}

function isResourceType(value: unknown): value is ResourceType {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as Partial<ResourceType>).apiVersion === 'string' &&
    typeof (value as Partial<ResourceType>).kind === 'string'
  );
}

/** Inside: both paths of {@link watcher} checked the source, config and scheduler. */
function watchSource<T extends KubeObject>(
  source: ListWatchSource<T>,
  resolved: ResolvedWatcherConfig,
  scheduler: SchedulerLike,
): Observable<WatchEvent<T>> {
  return new Observable<WatchEvent<T>>((subscriber) => {
    const machine = new WatcherMachine<T>(source, resolved, scheduler, subscriber);
    machine.start();
    return () => machine.stop();
  });
}

/** Throws unless `source` has `list` and `watch` functions. */
export function assertSource(operator: string, source: unknown): void {
  const s = source as Partial<ListWatchSource> | null | undefined;
  if (s === null || typeof s !== 'object' || typeof s.list !== 'function' || typeof s.watch !== 'function') {
    throw new InvalidArgumentError(
      operator,
      'source',
      source,
      'must be a ListWatchSource with list() and watch() (use listWatchSource(client, resource))',
    );
  }
}

/** Throws unless `scheduler` looks like an RxJS `SchedulerLike`. */
export function assertScheduler(operator: string, scheduler: unknown): void {
  const s = scheduler as Partial<SchedulerLike> | null | undefined;
  if (
    s === null ||
    typeof s !== 'object' ||
    typeof s.now !== 'function' ||
    typeof s.schedule !== 'function'
  ) {
    throw new InvalidArgumentError(
      operator,
      'scheduler',
      scheduler,
      'must be an RxJS SchedulerLike (asyncScheduler, a TestScheduler, ...) or be left out',
    );
  }
}
