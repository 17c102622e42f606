/**
 * The port between the watcher state machine and the transport. The watcher only ever sees this
 * interface, so its state machine runs under `TestScheduler` with `cold()` sources, and the
 * transport adapter (`listWatchSource`) implements it over HTTP.
 *
 * @module
 */
import type { Observable } from 'rxjs';
import type { RawWatchEvent } from '../transport/raw-watch-event.js';
import type { KubeObject } from '../types.js';

// A decoded watch line is the transport's word (docs/design.md, "Layers"); the port names it.
export type { RawWatchEvent, WatchStatus } from '../transport/raw-watch-event.js';

/**
 * One page of a list response.
 *
 * ## Example
 * ```ts
 * const page: ListPage = { items: [], resourceVersion: '42', continue: 'token' }; // more pages follow
 * ```
 */
export interface ListPage<T extends KubeObject = KubeObject> {
  readonly items: readonly T[];
  /** `metadata.resourceVersion` of the list. */
  readonly resourceVersion: string;
  /** `metadata.continue`, when more pages follow. */
  readonly continue?: string;
}

/**
 * Parameters of one list request (one page).
 *
 * ## Example
 * ```ts
 * source.list({ limit: 500 }).subscribe((page) => console.log(page.items.length, page.continue));
 * ```
 */
export interface ListParams {
  readonly limit: number;
  readonly continue?: string;
}

/**
 * Parameters of one watch request.
 *
 * ## Example
 * ```ts
 * source.watch({ resourceVersion: '42', timeoutSeconds: 300, allowWatchBookmarks: true }).subscribe((e) => console.log(e.type));
 * ```
 */
export interface WatchParams {
  readonly resourceVersion: string;
  readonly timeoutSeconds: number;
  /** Always `true` from the watcher; kept explicit so adapters do not forget it. */
  readonly allowWatchBookmarks: true;
  /**
   * A streaming list (WatchList, KEP-3157): `sendInitialEvents=true` with
   * `resourceVersionMatch=NotOlderThan` — the current objects as `ADDED` events, then a `BOOKMARK`
   * annotated {@link INITIAL_EVENTS_END_ANNOTATION}, then live events. Only on the first request
   * of an initial list; never on a resume.
   */
  readonly sendInitialEvents?: true;
}

/**
 * The annotation of the `BOOKMARK` that ends the initial events of a streaming list
 * (`metav1.InitialEventsAnnotationKey`); its value is `"true"`.
 *
 * ## Example
 * ```ts
 * declare const event: RawWatchEvent;
 * const end = event.type === 'BOOKMARK' && event.object.metadata.annotations?.[INITIAL_EVENTS_END_ANNOTATION] === 'true';
 * ```
 */
export const INITIAL_EVENTS_END_ANNOTATION = 'k8s.io/initial-events-end';

/**
 * What a {@link ListWatchSource} knows about streaming-list support of the server behind it,
 * shared by every source of one client (one server). `listWatchSource` provides it; a source
 * without it is listed page by page unless a watcher forces streaming.
 *
 * ## Example
 * ```ts
 * declare const list: ListWatchSource['list'];
 * declare const watch: ListWatchSource['watch'];
 * const support: StreamingListSupport = { supported: () => true, unsupported: () => false };
 * const source: ListWatchSource = { list, watch, streamingLists: support };
 * ```
 */
export interface StreamingListSupport {
  /** `false` once a streaming list failed on this server in a way that says it cannot stream. */
  supported(): boolean;
  /**
   * Remembers that the server cannot stream lists; returns `true` the first time for this server
   * (so the fallback is logged once), `false` after.
   */
  unsupported(reason: string): boolean;
}

/**
 * What the watcher needs from a transport, for one (resource, namespace, selectors) target.
 *
 * - `list` fetches one page; errors (a `KubeApiError`, a network error) travel on the error
 *   channel of the returned Observable, which the watcher retries with backoff.
 * - `watch` opens one watch request: emits each decoded line, completes when the server ends the
 *   stream cleanly, errors on a transport failure or an HTTP error status. Unsubscribing aborts the
 *   request.
 *
 * ## Example
 * ```ts
 * // a port for marble tests: one page, then a watch that sends one ADDED line and ends
 * const source: ListWatchSource = {
 *   list: () => cold('-a|', { a: { items: [], resourceVersion: '1' } }),
 *   watch: () => cold('-a|', { a: { type: 'ADDED', object: cm } }),
 * };
 * watcher(source, {}, testScheduler).subscribe();
 * ```
 */
export interface ListWatchSource<T extends KubeObject = KubeObject> {
  list(params: ListParams): Observable<ListPage<T>>;
  watch(params: WatchParams): Observable<RawWatchEvent<T>>;
  /** Streaming-list support of the server; absent: lists are paged unless forced. */
  readonly streamingLists?: StreamingListSupport;
}
