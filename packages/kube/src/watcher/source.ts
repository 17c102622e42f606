/**
 * The port between the watcher state machine and the transport. The watcher only ever sees this
 * interface, so its state machine runs under `TestScheduler` with `cold()` sources, and the
 * transport adapter (`listWatchSource`) implements it over HTTP.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import type { KubeObject } from '../types.js';

/** One page of a list response. */
export interface ListPage<T extends KubeObject = KubeObject> {
  readonly items: readonly T[];
  /** `metadata.resourceVersion` of the list. */
  readonly resourceVersion: string;
  /** `metadata.continue`, when more pages follow. */
  readonly continue?: string;
}

/** Parameters of one list request (one page). */
export interface ListParams {
  readonly limit: number;
  readonly continue?: string;
}

/** Parameters of one watch request. */
export interface WatchParams {
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  /** Always `true` from the watcher; kept explicit so adapters do not forget it. */
  readonly allowWatchBookmarks: true;
}

/**
 * A decoded watch line. `ERROR` carries a `metav1.Status` (a 410 `Expired` one means: relist).
 * `MALFORMED` is a line that could not be parsed: reported, then the watch resumes from the last
 * good resourceVersion.
 */
export type RawWatchEvent<T extends KubeObject = KubeObject> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T }
  | {
      readonly type: 'BOOKMARK';
      readonly object: { readonly metadata: { readonly resourceVersion: string } };
    }
  | { readonly type: 'ERROR'; readonly object: WatchStatus }
  | { readonly type: 'MALFORMED'; readonly line: string; readonly error: string };

/** The `metav1.Status` carried by a watch `ERROR` event. */
export interface WatchStatus {
  readonly kind?: string;
  readonly apiVersion?: string;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
}

/**
 * What the watcher needs from a transport, for one (resource, namespace, selectors) target.
 *
 * - `list` fetches one page; errors (a `KubeApiError`, a network error) travel on the error
 *   channel of the returned Observable, which the watcher retries with backoff.
 * - `watch` opens one watch request: emits each decoded line, completes when the server ends the
 *   stream cleanly, errors on a transport failure or an HTTP error status. Unsubscribing aborts the
 *   request.
 */
export interface ListWatchSource<T extends KubeObject = KubeObject> {
  list(params: ListParams): Observable<ListPage<T>>;
  watch(params: WatchParams): Observable<RawWatchEvent<T>>;
}
