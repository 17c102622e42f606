/**
 * What one reconcile came to, as the controller reports it (its own file so that the tracing hooks
 * can name it without importing the controller's options).
 *
 * @module
 */
import type { Action, ReconcileError, ReconcileResult, TerminalError } from '@rxkube/core';

import type { ObjectRef } from '../types.js';
import type { UserCodeHook } from '../user-code-error.js';

/**
 * One finished request: the applier's result, plus outcome `skipped` when the object was gone
 * from the Store (deleted) so the reconcile was not called.
 *
 * ## Example
 * ```ts
 * controller({ for: widgetType, client }).run(reconcile).subscribe((r: ControllerResult) => {
 *   if (r.outcome === 'error' || r.outcome === 'terminal') console.error(r.controller, r.key, r.hook, r.error?.message);
 * });
 * ```
 */
export interface ControllerResult {
  /**
   * The controller's name: `options.name` (a Manager's registration name), else the primary kind
   * in lower case (controller-runtime's default name).
   */
  readonly controller: string;
  readonly key: string;
  readonly request: ObjectRef;
  readonly outcome: ReconcileResult<ObjectRef, string>['outcome'] | 'skipped';
  readonly action?: Action;
  readonly error?: ReconcileError<string> | TerminalError;
  /** The user function that failed, when the error is a `UserCodeError`. */
  readonly hook?: UserCodeHook;
  readonly durationMs: number;
  readonly retryInMs?: number;
}
