/**
 * `listWatchSource`: the watcher's {@link ListWatchSource} port over HTTP, for one (resource,
 * namespace, selectors) target — paged consistent lists and streaming watches, optionally
 * metadata-only.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import { catchError, defer, from, map, Observable, switchMap, throwError } from 'rxjs';
import type { Subscription } from 'rxjs';

import { isNotFound, ResourceNotFoundError } from '../errors.js';
import { DEFAULT_MAX_LINE_BYTES } from '../transport/watch-line-decoder.js';
import type { KubeObject, ResourceType } from '../types.js';
import type {
  ListPage,
  ListParams,
  ListWatchSource,
  RawWatchEvent,
  StreamingListSupport,
  WatchParams,
} from './source.js';
import type { ApiResource } from '../client/api-resource.js';
import type { KubeClient } from '../client/kube-client.js';
import type { ObjectList } from '../client/verb-options.js';
import { ACCEPT_METADATA, ACCEPT_METADATA_LIST } from '../client/kube-client.js';

/**
 * Options of {@link listWatchSource}.
 *
 * ## Example
 * ```ts
 * const options: ListWatchOptions = { namespace: 'shop', labelSelector: 'app=web', metadataOnly: true };
 * watcher(client, { apiVersion: 'v1', kind: 'Pod' }, options).subscribe(); // WatcherOptions extends it
 * ```
 */
export interface ListWatchOptions {
  /** One namespace; leave out for all namespaces (or a cluster-scoped kind). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /**
   * KEP-5866 `shardSelector` (`shardRange(object.metadata.uid, '0x…', '0x…')` terms joined by
   * `||`), sent with every list and watch. A server without the `ShardedListAndWatch` gate
   * (every version before 1.36) ignores it and sends every object: filter them yourself
   * (`@rxkube/kube/shard` does, with the same hash).
   */
  readonly shardSelector?: string;
  /** Objects as `PartialObjectMetadata` (cheap watches of children). */
  readonly metadataOnly?: boolean;
  /** Longest accepted watch line in bytes (default 16 MiB); longer → `MALFORMED`. */
  readonly maxLineBytes?: number;
}

/**
 * The {@link ListWatchSource} for one target, over the client's HTTP transport.
 *
 * ## Example
 * ```ts
 * const source = listWatchSource(client, { apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default' });
 * watcher(source).subscribe((e) => console.log(e.type));
 * ```
 *
 * ## Semantics
 * - `list({ limit, continue })`: `GET` of one page without `resourceVersion` (a consistent read
 *   from etcd, as pagination needs); list items get the kind's `apiVersion`/`kind` when the server
 *   leaves them out. Errors: `KubeApiError` (a 410 for an expired `continue`),
 *   `KubeTransportError`, `ResourceNotFoundError` (the kind is not served, e.g. CRD not installed yet).
 * - `watch({ resourceVersion, timeoutSeconds })`: `GET ?watch=true&allowWatchBookmarks=true`,
 *   streaming each line as a {@link RawWatchEvent} (`ERROR` lines passed through, bad lines as
 *   `MALFORMED`); completes when the server ends the stream; an HTTP error status errors with
 *   `KubeApiError`.
 * - `watch({ …, sendInitialEvents: true })`: a streaming list (WatchList, KEP-3157): adds
 *   `sendInitialEvents=true&resourceVersionMatch=NotOlderThan`.
 * - `streamingLists`: whether the server streams lists, shared by every source of the same client
 *   (one server): unknown (so yes) until a watcher finds out it does not.
 * - Metadata-only: `Accept: …;as=PartialObjectMetadataList` for lists and `as=PartialObjectMetadata`
 *   for watches (the List form makes a watch end at once; quirk 5 of
 *   packages/testing/fixtures/kube-wire/README.md).
 * - unsubscribe: the request is aborted and its socket destroyed.
 * - The kind is resolved through discovery on every call (cached), so a CRD installed later is
 *   picked up when the watcher retries. A 404 from a list or watch of a resolved kind (its CRD was
 *   deleted) drops the cached discovery and errors with `ResourceNotFoundError`, as for a kind
 *   never served: the watcher reports `not-served` and waits for it to come back.
 *
 * @throws {InvalidArgumentError} at call time for an unusable client, resource or option.
 */
export function listWatchSource<T extends KubeObject = KubeObject>(
  client: KubeClient,
  resource: ResourceType,
  options: ListWatchOptions = {},
): ListWatchSource<T> {
  if (client === null || typeof client !== 'object' || typeof client.discovery?.resolve !== 'function') {
    throw new InvalidArgumentError('listWatchSource', 'client', client, 'must be a KubeClient');
  }
  if (
    resource === null ||
    typeof resource !== 'object' ||
    typeof resource.apiVersion !== 'string' ||
    typeof resource.kind !== 'string' ||
    resource.apiVersion === '' ||
    resource.kind === ''
  ) {
    throw new InvalidArgumentError(
      'listWatchSource',
      'resource',
      resource,
      'must be { apiVersion, kind }, e.g. { apiVersion: "v1", kind: "ConfigMap" }',
    );
  }
  const maxLineBytes = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  if (!Number.isInteger(maxLineBytes) || maxLineBytes < 1024) {
    throw new InvalidArgumentError(
      'listWatchSource',
      'options.maxLineBytes',
      maxLineBytes,
      'must be an integer >= 1024',
    );
  }
  const metadataOnly = options.metadataOnly === true;
  const selectors = {
    labelSelector: options.labelSelector,
    fieldSelector: options.fieldSelector,
    ...(options.shardSelector !== undefined && options.shardSelector !== ''
      ? { shardSelector: options.shardSelector }
      : {}),
  };

  const resolve = (): Observable<{ api: ApiResource; path: string }> =>
    defer(() => from(client.discovery.resolve(resource))).pipe(
      map((api) => {
        if (options.namespace !== undefined && !api.namespaced) {
          throw new InvalidArgumentError(
            'listWatchSource',
            'options.namespace',
            options.namespace,
            `must be left out: ${api.kind} is cluster-scoped`,
          );
        }
        return {
          api,
          path: api.path(options.namespace !== undefined ? { namespace: options.namespace } : {}),
        };
      }),
    );

  const target = (verb: string, api: ApiResource) => ({
    verb,
    group: api.group,
    resource: api.plural,
    ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
  });

  return {
    streamingLists: streamingListSupportOf(client),
    list(params: ListParams): Observable<ListPage<T>> {
      return resolve().pipe(
        switchMap(({ api, path }) =>
          from(
            client.transport.request<ObjectList<T>>({
              method: 'GET',
              path,
              query: { ...selectors, limit: params.limit, continue: params.continue },
              accept: metadataOnly ? ACCEPT_METADATA_LIST : 'application/json',
              target: target('list', api),
            }),
          ).pipe(map((list) => toPage(list, api, metadataOnly))),
        ),
        catchError((error: unknown) => notServed(error)),
      );
    },
    watch(params: WatchParams): Observable<RawWatchEvent<T>> {
      // One stage between the stream and the watcher instead of switchMap · catchError: each
      // event of the stream passed both (issue 21, the lean event path).
      return new Observable<RawWatchEvent<T>>((subscriber) => {
        const fail = (error: unknown): void => subscriber.error(notServedError(error));
        let stream: Subscription | undefined;
        let opened = false;
        const open = ({ api, path }: { api: ApiResource; path: string }): void => {
          opened = true;
          stream = client.transport
            .watch<T>(
              {
                method: 'GET',
                path,
                query: {
                  watch: 'true',
                  resourceVersion: params.resourceVersion,
                  allowWatchBookmarks: 'true',
                  ...(params.sendInitialEvents === true
                    ? { sendInitialEvents: 'true', resourceVersionMatch: 'NotOlderThan' }
                    : {}),
                  timeoutSeconds: params.timeoutSeconds,
                  ...selectors,
                },
                accept: metadataOnly ? ACCEPT_METADATA : 'application/json',
                target: target('watch', api),
              },
              maxLineBytes,
            )
            .subscribe({
              next: (event) => subscriber.next(event),
              error: fail,
              complete: () => subscriber.complete(),
            });
        };
        const resolved = resolve().subscribe({
          next: open,
          error: fail,
          complete: () => {
            if (!opened) subscriber.complete();
          },
        });
        return () => {
          resolved.unsubscribe();
          stream?.unsubscribe();
        };
      });
    },
  };

  /** A 404 for a resolved kind: it stopped being served (its CRD was deleted). */
  function notServed(error: unknown): Observable<never> {
    return throwError(() => notServedError(error));
  }

  /** `error`, or for a 404 a ResourceNotFoundError (discovery forgotten: the kind may come back). */
  function notServedError(error: unknown): unknown {
    if (!isNotFound(error)) return error;
    client.discovery.invalidate();
    return new ResourceNotFoundError(
      resource.apiVersion,
      resource.kind,
      'the server answered 404 for its path: its CustomResourceDefinition was deleted or is not Established',
    );
  }
}

/** Streaming-list support, per client (a client talks to one server). */
const streamingSupport = new WeakMap<object, StreamingListSupport>();

function streamingListSupportOf(client: KubeClient): StreamingListSupport {
  let support = streamingSupport.get(client);
  if (support === undefined) {
    let refused: string | undefined;
    support = {
      supported: () => refused === undefined,
      unsupported: (reason) => {
        if (refused !== undefined) return false;
        refused = reason;
        return true;
      },
    };
    streamingSupport.set(client, support);
  }
  return support;
}

function toPage<T extends KubeObject>(
  list: ObjectList<T>,
  api: ApiResource,
  metadataOnly: boolean,
): ListPage<T> {
  const items = Array.isArray(list.items) ? list.items : [];
  if (!metadataOnly) {
    for (const item of items as unknown as Record<string, unknown>[]) {
      if (item['apiVersion'] === undefined) item['apiVersion'] = api.apiVersion;
      if (item['kind'] === undefined) item['kind'] = api.kind;
    }
  }
  const meta = list.metadata ?? { resourceVersion: '' };
  return {
    items,
    resourceVersion: meta.resourceVersion,
    ...(meta.continue ? { continue: meta.continue } : {}),
  };
}
