/**
 * `statusSink`: the status writer of a controller — per-key latest-wins, serialised,
 * concurrency-limited status patches that are never sent when nothing changed, retried on 409
 * against the latest object, and fed back so their echoes do not trigger reconciles.
 *
 * @module
 */
import { InvalidArgumentError, sinkByKey } from '@rxkube/core';
import type { RunByKeyObserver, SinkResult } from '@rxkube/core';
import {
  asyncScheduler,
  defer,
  from,
  last,
  map,
  mergeMap,
  of,
  switchMap,
  throwError,
  timer,
  catchError,
} from 'rxjs';
import type { Observable, OperatorFunction, SchedulerLike } from 'rxjs';

import { isConflict } from '../errors.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';
import type { StatusRecipe } from './draft-status.js';
import { draftStatus } from './draft-status.js';
import { isPlainObject, jsonEqual } from './internal/json.js';
import { mergePatchOf } from './merge-patch.js';
import { OwnWrites } from './own-writes.js';
import type { StatusPatch, StatusPort } from './status-port.js';

/**
 * One desired status write: the object as the reconcile saw it, and either the whole desired
 * `status` or an `update` recipe that drafts it (immer) on top of the latest object.
 */
export type StatusWrite<T extends KubeObject<unknown, S>, S extends object> =
  { readonly object: T; readonly status: S } | { readonly object: T; readonly update: StatusRecipe<S> };

/** What a write did (the `result` of a `written` {@link SinkResult}). */
export type StatusWriteOutcome<T> =
  /** The status was patched; `object` is the server's response. */
  | {
      readonly type: 'patched';
      readonly object: T;
      readonly patch: StatusPatch;
      /** PATCH requests sent (1 + conflicts retried). */
      readonly requests: number;
      readonly conflicts: number;
    }
  /** The object already had the desired status: no request (or no further request) was sent. */
  | { readonly type: 'unchanged'; readonly requests: number; readonly conflicts: number };

/** What `statusSink` emits for each write: `written`, `failed` or `superseded`. */
export type StatusSinkResult<T extends KubeObject<unknown, S>, S extends object> = SinkResult<
  StatusWrite<T, S>,
  string,
  StatusWriteOutcome<T>
>;

/** Options of {@link statusSink}. */
export interface StatusSinkOptions<T extends KubeObject> {
  /**
   * `merge` (RFC 7386, default), `json` (RFC 6902 from the immer draft) or `apply` (server-side
   * apply of the whole desired status as the port's field manager; still no request when the draft
   * changed nothing).
   */
  readonly patchType?: 'merge' | 'json' | 'apply';
  /** Status writes in flight across objects; default 4. */
  readonly concurrency?: number;
  /** PATCH attempts per write when the server answers 409 Conflict; default 5. */
  readonly maxAttempts?: number;
  /** Delay before re-reading after the n-th conflict: `min(maxMs, baseMs × 2^(n-1))`; default 10 ms / 1 s. */
  readonly conflictBackoff?: { readonly baseMs?: number; readonly maxMs?: number };
  /** Shared with `suppressOwnEcho`; default: a private tracker per subscription. */
  readonly ownWrites?: OwnWrites;
  /** Called with every object a write returned (feed it to the Store: read-own-writes). */
  readonly onWritten?: (object: T) => void;
  /** Workqueue hooks of the underlying `sinkByKey`. */
  readonly observer?: RunByKeyObserver<string>;
}

/**
 * Thrown into a `failed` result when every attempt of a status write met 409 Conflict.
 */
export class StatusConflictError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'StatusConflictError' as const;
  override readonly name = 'StatusConflictError';
  /**
   * @param key the object's key.  @param attempts PATCH requests sent.
   * @param cause the last 409 error.
   */
  constructor(
    readonly key: string,
    readonly attempts: number,
    override readonly cause: unknown,
  ) {
    super(
      `status write of ${key} met 409 Conflict on all ${attempts} attempts (re-reading the object each time); ` +
        'another writer keeps changing it — the next reconcile will try again; raise maxAttempts if this is common',
    );
  }
}

/**
 * Writes desired statuses to the `status` subresource: per object latest wins, one write at a time
 * per object, `concurrency` overall, and no request at all when the object already has the desired
 * status.
 *
 * ## Example
 * ```ts
 * const ownWrites = new OwnWrites();
 * desired$.pipe( // { object: widget, update: (s) => { setObservedGeneration(s, widget); s.phase = 'Ready'; } }
 *   statusSink(statusPortFromClient(client), { ownWrites, onWritten: (o) => store.apply({ type: 'Apply', object: o }) }),
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
 * - On success `onWritten(response)` runs and the write is recorded in `ownWrites`.
 * - complete / error / unsubscribe: as `sinkByKey` (queued writes finish on complete).
 *
 * ## Guarantees
 * - Never two writes of one object in flight; a newer desired status supersedes a waiting one.
 * - No request when the desired status equals the base; a given desired content is written at most
 *   once per base version.
 * - Every write yields exactly one result (`written` with `patched`/`unchanged`, `failed`, `superseded`).
 *
 * ## Memory
 * `sinkByKey`'s (per object with a write waiting or in flight) plus the bounded {@link OwnWrites}.
 *
 * @param port patches the status subresource and reads the latest object.
 * @param options see {@link StatusSinkOptions}.
 * @param scheduler clock of the conflict backoff and the workqueue hooks.
 * @throws {InvalidArgumentError} synchronously for a bad option.
 */
export function statusSink<T extends KubeObject<unknown, S>, S extends object>(
  port: StatusPort<T>,
  options: StatusSinkOptions<T> = {},
  scheduler: SchedulerLike = asyncScheduler,
): OperatorFunction<StatusWrite<T, S>, StatusSinkResult<T, S>> {
  const patchType = options.patchType ?? 'merge';
  const maxAttempts = options.maxAttempts ?? 5;
  const baseMs = options.conflictBackoff?.baseMs ?? 10;
  const maxMs = options.conflictBackoff?.maxMs ?? 1_000;
  if (
    typeof port !== 'object' ||
    typeof port.patchStatus !== 'function' ||
    typeof port.getLatest !== 'function'
  ) {
    throw new InvalidArgumentError(
      'statusSink',
      'port',
      port,
      'must have patchStatus and getLatest functions',
    );
  }
  if (patchType !== 'merge' && patchType !== 'json' && patchType !== 'apply') {
    throw new InvalidArgumentError(
      'statusSink',
      'options.patchType',
      patchType,
      'must be "merge", "json" or "apply"',
    );
  }
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new InvalidArgumentError(
      'statusSink',
      'options.maxAttempts',
      maxAttempts,
      'must be an integer >= 1',
    );
  }
  for (const [name, v] of [
    ['baseMs', baseMs],
    ['maxMs', maxMs],
  ] as const) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new InvalidArgumentError(
        'statusSink',
        `options.conflictBackoff.${name}`,
        v,
        'must be a finite number >= 0 (ms)',
      );
    }
  }
  const sinkOptions = {
    concurrency: options.concurrency ?? 4,
    ...(options.observer !== undefined ? { observer: options.observer } : {}),
  };
  // Validates concurrency and the scheduler now (sinkByKey throws synchronously).
  sinkByKey<StatusWrite<T, S>, string, StatusWriteOutcome<T>>(keyOfWrite, () => [], sinkOptions, scheduler);

  return (source) =>
    defer(() => {
      const ownWrites = options.ownWrites ?? new OwnWrites({}, scheduler);
      const write = (w: StatusWrite<T, S>, key: string): Observable<StatusWriteOutcome<T>> => {
        const ref = refOf(w.object, key);
        const attempt = (base: T, requests: number, conflicts: number): Observable<StatusWriteOutcome<T>> => {
          const patch = computePatch(base, w, patchType);
          if (patch === undefined) return of({ type: 'unchanged', requests, conflicts });
          return from(port.patchStatus(ref, patch)).pipe(
            last(),
            map((object): StatusWriteOutcome<T> => {
              ownWrites.recorded(base, object);
              options.onWritten?.(object);
              return { type: 'patched', object, patch, requests: requests + 1, conflicts };
            }),
            catchError((error: unknown) => {
              if (!isConflictError(error)) return throwError(() => error);
              if (requests + 1 >= maxAttempts) {
                return throwError(() => new StatusConflictError(key, requests + 1, error));
              }
              const delay = Math.min(maxMs, baseMs * 2 ** conflicts);
              return timer(delay, scheduler).pipe(
                switchMap(() => from(port.getLatest(ref)).pipe(last())),
                mergeMap((latest) => attempt(latest, requests + 1, conflicts + 1)),
              );
            }),
          );
        };
        return defer(() => attempt(ownWrites.baseFor(w.object), 0, 0));
      };
      return source.pipe(sinkByKey(keyOfWrite, write, sinkOptions, scheduler));
    });
}

function keyOfWrite(w: { readonly object: KubeObject }): string {
  return objectKey(w.object);
}

function refOf(object: KubeObject, key: string): ObjectRef {
  const { apiVersion, kind } = object;
  if (typeof apiVersion !== 'string' || apiVersion === '' || typeof kind !== 'string' || kind === '') {
    throw new InvalidArgumentError(
      'statusSink',
      `write.object (${key})`,
      object,
      'must carry apiVersion and kind (objects from a watch or the Store do); set them before writing its status',
    );
  }
  const name = object.metadata.name ?? '';
  const namespace = object.metadata.namespace;
  return { apiVersion, kind, name, ...(namespace !== undefined ? { namespace } : {}) };
}

function isConflictError(error: unknown): boolean {
  return (
    isConflict(error) ||
    (error !== null && typeof error === 'object' && (error as { code?: unknown }).code === 409)
  );
}

/** The patch turning `base.status` into the desired status, or `undefined` when there is nothing to send. */
function computePatch<T extends KubeObject<unknown, S>, S extends object>(
  base: T,
  w: StatusWrite<T, S>,
  patchType: 'merge' | 'json' | 'apply',
): StatusPatch | undefined {
  const recipe: StatusRecipe<S> = 'update' in w ? w.update : (draft) => assignDeep(draft as object, w.status);
  const { next, patch } = draftStatus<S>(base, recipe);
  if (patch.length === 0) return undefined;
  if (patchType === 'json') return { type: 'json', body: patch };
  if (patchType === 'apply') {
    const { name = '', namespace } = base.metadata;
    return {
      type: 'apply',
      body: {
        apiVersion: base.apiVersion ?? '',
        kind: base.kind ?? '',
        metadata: { name, ...(namespace !== undefined ? { namespace } : {}) },
        status: next ?? {},
      },
    };
  }
  if (next === undefined) return { type: 'merge', body: { status: null } };
  const merge = mergePatchOf(base.status, next);
  return merge === undefined ? undefined : { type: 'merge', body: { status: merge } };
}

/** Makes `draft` deep-equal `desired` by writing only what differs (so immer reports minimal patches). */
function assignDeep(draft: object, desired: object): void {
  const d = draft as Record<string, unknown>;
  const want = desired as Record<string, unknown>;
  for (const key of Object.keys(d)) {
    if (want[key] === undefined) delete d[key];
  }
  for (const [key, value] of Object.entries(want)) {
    if (value === undefined) continue;
    const current = d[key];
    if (isPlainObject(value) && current !== null && typeof current === 'object' && !Array.isArray(current)) {
      assignDeep(current, value);
    } else if (!jsonEqual(current, value)) {
      d[key] = value;
    }
  }
}
