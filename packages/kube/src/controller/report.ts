/**
 * Results of a controller: the applier's result as a {@link ControllerResult} (with `skipped` for
 * gone objects and the user-code hook that failed), and the one log line per failed reconcile.
 *
 * @module
 */
import type { ReconcileResult } from '@rxkube/core';

import type { ObjectRef } from '../types.js';
import type { ControllerLogger } from './options.js';
import { isReconcileFailure, SKIPPED, userCodeErrorIn } from './reconcile-work.js';
import type { ControllerResult } from './result.js';

export type { ControllerResult } from './result.js';

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
