/**
 * The port `finalizer` patches objects through, and its adapter to `KubeClient`.
 *
 * @module
 */
import { defer } from 'rxjs';
import type { Observable, ObservableInput } from 'rxjs';

import type { Client } from '../client/client.js';
import type { JsonPatchOperation } from '../client/verb-options.js';
import type { KubeObject, ObjectRef } from '../types.js';

/**
 * What `finalizer` needs from the API: a JSON Patch (RFC 6902) of the object itself.
 *
 * ## Example
 * ```ts
 * const port: FinalizerPort<Widget> = { patch: (ref, ops) => cold('-(r|)', { r: patched }) };
 * ```
 */
export interface FinalizerPort<T extends KubeObject> {
  /**
   * `PATCH` with `application/json-patch+json`; emits the updated object. `options.signal` (the
   * reconcile's `ctx.signal`) cancels the request.
   */
  patch(
    ref: ObjectRef,
    ops: readonly JsonPatchOperation[],
    options?: { readonly signal?: AbortSignal },
  ): ObservableInput<T>;
}

/**
 * A {@link FinalizerPort} over a `KubeClient`, started on subscribe.
 *
 * ## Example
 * ```ts
 * const reconcile = finalizer('example.com/cleanup', { port: finalizerPortFromClient(client), apply, cleanup });
 * ```
 */
export function finalizerPortFromClient<T extends KubeObject>(
  client: Client,
  options: { readonly fieldManager?: string } = {},
): FinalizerPort<T> {
  const manager = options.fieldManager !== undefined ? { fieldManager: options.fieldManager } : {};
  return {
    patch: (ref, ops, call = {}): Observable<T> =>
      defer(() => client.patch<T>(ref, { type: 'json', body: ops }, { ...manager, ...call })),
  };
}
