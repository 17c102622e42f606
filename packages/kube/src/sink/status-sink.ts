/**
 * `statusSink`: status writes as a stream — per-key latest-wins, serialised, concurrency-limited
 * status patches that are never sent when nothing changed, retried on 409 against the latest
 * object, and recorded in a {@link WriteTracker} so their echoes can be recognised. (A controller's
 * `ctx.status` sends the same writes as a call: see `writeStatus`.)
 *
 * @module
 */
import { sinkByKey } from '@rxkube/core';
import type { RunByKeyObserver, SinkResult } from '@rxkube/core';
import { asyncScheduler, defer, tap } from 'rxjs';
import type { OperatorFunction, SchedulerLike } from 'rxjs';

import type { Client } from '../client/client.js';
import type { KubeObject } from '../types.js';
import { objectKey } from '../types.js';
import type { StatusWrite, StatusWriteOptions, StatusWriteOutcome } from './status-write.js';
import { resolveStatusWriteOptions, writeStatus } from './status-write.js';
import { WriteTracker } from './write-tracker.js';

export { StatusConflictError } from './status-write.js';
export type { StatusWrite, StatusWriteOutcome } from './status-write.js';

/**
 * What `statusSink` emits for each write: `written`, `failed` or `superseded`.
 *
 * ## Example
 * ```ts
 * desired$.pipe(statusSink<Widget, WidgetStatus>(client)).subscribe((r: StatusSinkResult<Widget, WidgetStatus>) => {
 *   if (r.kind === 'failed') log.warn({ key: r.key, err: r.error }, 'status write failed');
 * });
 * ```
 */
export type StatusSinkResult<T extends KubeObject<unknown, S>, S extends object> = SinkResult<
  StatusWrite<T, S>,
  string,
  StatusWriteOutcome<T>
>;

/**
 * Options of {@link statusSink}.
 *
 * ## Example
 * ```ts
 * const options: StatusSinkOptions<Widget> = { concurrency: 8, patchType: 'json', fieldManager: 'widgets', tracker: new WriteTracker() };
 * desired$.pipe(statusSink(client, options)).subscribe();
 * ```
 */
export interface StatusSinkOptions<T extends KubeObject> extends StatusWriteOptions {
  /** Status writes in flight across objects; default 4. */
  readonly concurrency?: number;
  /** Shared with `suppressOwnEcho`; default: a private tracker per subscription. */
  readonly tracker?: WriteTracker;
  /** Called with every object a write returned (feed it to the Store: read-own-writes). */
  readonly onWritten?: (object: T) => void;
  /** Workqueue hooks of the underlying `sinkByKey`. */
  readonly observer?: RunByKeyObserver<string>;
}

/**
 * Writes desired statuses to the `status` subresource: per object latest wins, one write at a time
 * per object, `concurrency` overall, and no request at all when the object already has the desired
 * status.
 *
 * ## Example
 * ```ts
 * const tracker = new WriteTracker();
 * desired$.pipe( // { object: widget, update: (s) => { setObservedGeneration(s, widget); s.phase = 'Ready'; } }
 *   statusSink<Widget, WidgetStatus>(client, { tracker, onWritten: (o) => store.apply({ type: 'Apply', object: o }) }),
 * ).subscribe((r) => r.kind === 'failed' && log.warn({ key: r.key, err: r.error }));
 * ```
 *
 * ## Semantics
 * - Key: `namespace/name` of `write.object` (one sink per resource type).
 * - Base: `write.object`, or, when that is a version our own earlier write replaced, the object
 *   that write returned (so a write computed before the Store caught up is not sent twice).
 * - The patch is computed against the base: `status` → diffed as a whole; `update` → drafted with
 *   immer. `merge` sends the minimal RFC 7386 patch `{ status: … }`; `json` the RFC 6902 operations
 *   (never a `test` on resourceVersion, never a PUT). Empty → `unchanged`, no request.
 * - 409 Conflict (`isConflict`, or any error with `code: 409`): wait `conflictBackoff`, GET the
 *   latest object, recompute (possibly `unchanged`), retry; after `maxAttempts` PATCHes the result is
 *   `failed` with a {@link StatusConflictError}. Other errors fail at once, unwrapped (so
 *   `isNotFound(result.error)` works).
 * - On success the write is recorded in `tracker` and `onWritten(response)` runs.
 * - A recipe that throws fails that write with a `UserCodeError` (hook `status`).
 * - complete / error / unsubscribe: as `sinkByKey` (queued writes finish on complete).
 *
 * ## Guarantees
 * - Never two writes of one object in flight; a newer desired status supersedes a waiting one.
 * - No request when the desired status equals the base; a given desired content is written at most
 *   once per base version.
 * - Every write yields exactly one result (`written` with `patched`/`unchanged`, `failed`, `superseded`).
 *
 * ## Memory
 * `sinkByKey`'s (per object with a write waiting or in flight) plus the bounded {@link WriteTracker}.
 *
 * @param client patches the status subresource (`client.patch(ref, patch, { subresource: 'status' })`)
 * and reads the latest object after a conflict (`client.get`): a `KubeClient`, the Manager's
 * client, or a test's `stubClient()`.
 * @param options see {@link StatusSinkOptions}.
 * @param scheduler clock of the conflict backoff and the workqueue hooks.
 * @throws {InvalidArgumentError} synchronously for a bad option.
 */
export function statusSink<T extends KubeObject<unknown, S>, S extends object>(
  client: Pick<Client, 'get' | 'patch'>,
  options: StatusSinkOptions<T> = {},
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<StatusWrite<T, S>, StatusSinkResult<T, S>> {
  const settings = resolveStatusWriteOptions('statusSink', client, options);
  const sinkOptions = {
    concurrency: options.concurrency ?? 4,
    ...(options.observer !== undefined ? { observer: options.observer } : {}),
  };
  // Validates concurrency and the scheduler now (sinkByKey throws synchronously).
  sinkByKey<StatusWrite<T, S>, string, StatusWriteOutcome<T>>(keyOfWrite, () => [], sinkOptions, scheduler);

  return (source) =>
    defer(() => {
      const tracker = options.tracker ?? new WriteTracker({}, scheduler);
      const write = (w: StatusWrite<T, S>) =>
        writeStatus(client, w, settings, tracker, scheduler).pipe(
          tap((outcome) => {
            if (outcome.type === 'patched') options.onWritten?.(outcome.object);
          }),
        );
      return source.pipe(sinkByKey(keyOfWrite, write, sinkOptions, scheduler));
    });
}

function keyOfWrite(w: { readonly object: KubeObject }): string {
  return objectKey(w.object);
}
