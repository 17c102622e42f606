/**
 * The port the status sink writes through, and its adapter to `KubeClient`.
 *
 * @module
 */
import { defer } from 'rxjs';
import type { Observable, ObservableInput } from 'rxjs';

import type { Client } from '../client/client.js';
import type { JsonPatchOperation } from '../client/verb-options.js';
import type { KubeObject, ObjectRef } from '../types.js';
import type { MergePatch } from './merge-patch.js';

/**
 * A patch of the `status` subresource: a JSON merge patch, a JSON patch, or a server-side apply of
 * the whole desired status (the field manager's full intent: status fields it applied before and
 * omits now are removed, fields other managers own are kept).
 *
 * ## Example
 * ```ts
 * const patch: StatusPatch = { type: 'merge', body: { status: { phase: 'Ready' } } };
 * port.patchStatus({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w' }, patch);
 * ```
 */
export type StatusPatch =
  | { readonly type: 'merge'; readonly body: { readonly status: MergePatch | null } }
  | { readonly type: 'json'; readonly body: readonly JsonPatchOperation[] }
  | { readonly type: 'apply'; readonly body: StatusApplyBody };

/** The body of a status server-side apply: identity plus the desired status. */
export interface StatusApplyBody {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly status: unknown;
}

/**
 * What `statusSink` needs from the API: patch the status subresource, and read the latest object
 * from the server (after a 409 Conflict).
 *
 * ## Example
 * ```ts
 * const port: StatusPort<Widget> = {
 *   patchStatus: (ref, patch) => cold('--a|', { a: written }),
 *   getLatest: (ref) => cold('-l|', { l: latest }),
 * };
 * ```
 */
export interface StatusPort<T extends KubeObject> {
  /**
   * `PATCH …/status` with the patch's content type; emits the updated object. `options.signal`
   * (a reconcile's `ctx.signal`) cancels the request.
   */
  patchStatus(
    ref: ObjectRef,
    patch: StatusPatch,
    options?: { readonly signal?: AbortSignal },
  ): ObservableInput<T>;
  /** `GET` the object from the API server (not from a cache); emits it. `options.signal` cancels it. */
  getLatest(ref: ObjectRef, options?: { readonly signal?: AbortSignal }): ObservableInput<T>;
}

/**
 * Options of {@link statusPortFromClient}.
 *
 * ## Example
 * ```ts
 * const options: StatusPortOptions = { fieldManager: 'widget-controller' };
 * desired$.pipe(statusSink(statusPortFromClient<Widget>(client, options), { patchType: 'apply' })).subscribe();
 * ```
 */
export interface StatusPortOptions {
  /**
   * Names the writer in `managedFields` (e.g. the controller's name). Server-side apply needs one:
   * `rxkube` when unset.
   */
  readonly fieldManager?: string;
}

/**
 * A {@link StatusPort} over a `KubeClient`: `patch(ref, patch, { subresource: 'status' })` and
 * `get(ref)`, each started on subscribe (`defer`).
 *
 * ## Example
 * ```ts
 * const port = statusPortFromClient<Widget>(client, { fieldManager: 'widget-controller' });
 * desired$.pipe(statusSink(port)).subscribe(log);
 * ```
 */
export function statusPortFromClient<T extends KubeObject>(
  client: Client,
  options: StatusPortOptions = {},
): StatusPort<T> {
  const manager = options.fieldManager !== undefined ? { fieldManager: options.fieldManager } : {};
  return {
    patchStatus: (ref, patch, call = {}): Observable<T> =>
      defer(() =>
        patch.type === 'apply'
          ? // The controller owns its status: force takes fields over from earlier Update writers.
            client.patch<T>(ref, patch, {
              subresource: 'status',
              fieldManager: options.fieldManager ?? 'rxkube',
              force: true,
              ...call,
            })
          : client.patch<T>(ref, patch, { subresource: 'status', ...manager, ...call }),
      ),
    getLatest: (ref, call = {}): Observable<T> => defer(() => client.get<T>(ref, call)),
  };
}
