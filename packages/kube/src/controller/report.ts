/**
 * Results of a controller: the applier's result as a {@link ControllerResult} (with `skipped` for
 * gone objects and the user-code hook that failed), and the one log line per failed reconcile.
 *
 * @module
 */
import type { ReconcileError, ReconcileResult, TerminalError } from '@rxkube/core';
import type { Action } from '@rxkube/core';

import type { ObjectRef } from '../types.js';
import type { UserCodeHook } from '../user-code-error.js';
import type { ControllerLogger } from './options.js';
import { isReconcileFailure, SKIPPED, userCodeErrorIn } from './reconcile-work.js';

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

/** The applier's result as a {@link ControllerResult} of the controller named `controller`. */
export function toControllerResult(
  r: ReconcileResult<ObjectRef, string>,
  controller: string,
): ControllerResult {
  const cause = r.error?.cause;
  const hook =
    r.error === undefined
      ? undefined
      : (userCodeErrorIn(cause)?.hook ?? (isReconcileFailure(cause) ? 'reconcile' : undefined));
  return {
    controller,
    key: r.key,
    request: r.value,
    outcome: r.action === SKIPPED ? 'skipped' : r.outcome,
    ...(r.action !== undefined && r.action !== SKIPPED ? { action: r.action } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
    ...(hook !== undefined ? { hook } : {}),
    durationMs: r.durationMs,
    ...(r.retryInMs !== undefined ? { retryInMs: r.retryInMs } : {}),
  };
}

/** Logs a failed reconcile once: `warn` when retried, `error` when terminal; success at `debug`. */
export function logResult(log: ControllerLogger, controller: string | undefined, r: ControllerResult): void {
  const fields = {
    ...(controller !== undefined ? { controller } : {}),
    key: r.key,
    ...(r.hook !== undefined ? { hook: r.hook } : {}),
  };
  if (r.outcome === 'error') {
    const retry =
      r.retryInMs !== undefined
        ? `retrying in ${Math.round(r.retryInMs)} ms`
        : 'rerunning for a newer trigger';
    // A ReconcileError's message already names the key: `reconcile of "ns/a" failed: …`.
    log.warn?.(`${r.error?.message ?? `reconcile of ${r.key} failed`}; ${retry}`, {
      ...fields,
      error: r.error,
      ...(r.retryInMs !== undefined ? { retryInMs: r.retryInMs } : {}),
    });
  } else if (r.outcome === 'terminal') {
    log.error?.(`reconcile of ${r.key} failed terminally (not retried): ${r.error?.message ?? ''}`, {
      ...fields,
      error: r.error,
    });
  } else {
    log.debug?.(`reconcile of ${r.key}: ${r.outcome}`, { ...fields, durationMs: r.durationMs });
  }
}
