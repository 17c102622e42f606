/**
 * What one reconcile came to, as the controller reports it (its own file so that the tracing hooks
 * can name it without importing the controller's options).
 *
 * @module
 */
import type { ReconcileResult } from '@rxkube/core';

import type { ObjectRef } from '../types.js';
import type { UserCodeHook } from '../user-code-error.js';

/**
 * One finished request: `@rxkube/core`'s {@link ReconcileResult} of the applier under the
 * controller — same `key`, `action`, `error`, `durationMs`, `retryInMs` — with the request
 * (`ObjectRef`) in place of the applier's `value`, the controller's name, the failing hook, and
 * outcome `skipped` when the reconcile was not called: the object was gone from the Store
 * (deleted), `admit` refused the key (sharding), or the controller stopped while the request
 * waited for its caches. The one result of a reconcile across the controller, the Manager (`results$`,
 * `logReconcile`) and the metrics.
 *
 * ## Example
 * ```ts
 * controller({ for: widgetType, client }).run(reconcile).subscribe((r: ControllerResult) => {
 *   if (r.outcome === 'error' || r.outcome === 'terminal') console.error(r.controller, r.key, r.hook, r.error?.message);
 * });
 * ```
 */
export interface ControllerResult extends Omit<ReconcileResult<ObjectRef, string>, 'value' | 'outcome'> {
  /**
   * The controller's name: `options.name` (a Manager's registration name), else the primary kind
   * in lower case (controller-runtime's default name).
   */
  readonly controller: string;
  readonly request: ObjectRef;
  readonly outcome: ReconcileResult<ObjectRef, string>['outcome'] | 'skipped';
  /** The user function that failed, when the error is a `UserCodeError`. */
  readonly hook?: UserCodeHook;
}
