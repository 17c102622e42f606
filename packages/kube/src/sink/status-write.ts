/**
 * One status write as a call: compute the patch from the desired status against the latest known
 * object, send it (no request when nothing changed), retry 409 Conflicts against a re-read object.
 * `statusSink` queues these per object; a controller's `ctx.status` calls it directly (the
 * applier already serialises a key's reconciles).
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import { catchError, defer, from, last, map, mergeMap, of, switchMap, tap, throwError, timer } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';

import type { Client } from '../client/client.js';
import type { JsonPatchOperation } from '../client/verb-options.js';
import { isConflict } from '../errors.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';
import { UserCodeError } from '../user-code-error.js';
import type { StatusRecipe } from './draft-status.js';
import { draftStatus } from './draft-status.js';
import { isPlainObject, jsonEqual } from './internal/json.js';
import { mergePatchOf } from './merge-patch.js';
import type { MergePatch } from './merge-patch.js';
import type { WriteTracker } from './write-tracker.js';
import { writeId } from './write-tracker.js';

/**
 * A patch of the `status` subresource: a JSON merge patch, a JSON patch, or a server-side apply of
 * the whole desired status (the field manager's full intent: status fields it applied before and
 * omits now are removed, fields other managers own are kept).
 *
 * ## Example
 * ```ts
 * const patch: StatusPatch = { type: 'merge', body: { status: { phase: 'Ready' } } };
 * await client.patch({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w' }, patch, { subresource: 'status' });
 * ```
 */
export type StatusPatch =
  | { readonly type: 'merge'; readonly body: { readonly status: MergePatch | null } }
  | { readonly type: 'json'; readonly body: readonly JsonPatchOperation[] }
  | { readonly type: 'apply'; readonly body: StatusApplyBody };

/**
 * The body of a status server-side apply: identity plus the desired status.
 *
 * ## Example
 * ```ts
 * const body: StatusApplyBody = { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' }, status: { phase: 'Ready' } };
 * const patch: StatusPatch = { type: 'apply', body };
 * ```
 */
export interface StatusApplyBody {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string };
  readonly status: unknown;
}

/**
 * One desired status write: the object as the reconcile saw it, and either the whole desired
 * `status` or an `update` recipe that drafts it (immer) on top of the latest object.
 *
 * ## Example
 * ```ts
 * const whole: StatusWrite<Widget, WidgetStatus> = { object: widget, status: { phase: 'Ready' } };
 * const drafted: StatusWrite<Widget, WidgetStatus> = {
 *   object: widget,
 *   update: (s) => {
 *     s.phase = 'Ready';
 *   },
 * };
 * of(whole, drafted).pipe(statusSink(client)).subscribe();
 * ```
 */
export type StatusWrite<T extends KubeObject<unknown, S>, S extends object> =
  { readonly object: T; readonly status: S } | { readonly object: T; readonly update: StatusRecipe<S> };

/**
 * What a write did.
 *
 * ## Example
 * ```ts
 * desired$.pipe(statusSink(client)).subscribe((r) => {
 *   if (r.kind === 'written' && r.result.type === 'patched') console.log(r.key, `${r.result.conflicts} conflicts`);
 * });
 * ```
 */
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

/**
 * How status writes are sent (the sink's and the controller's shared settings).
 *
 * ## Example
 * ```ts
 * const options: StatusWriteOptions = { fieldManager: 'widget-controller', patchType: 'apply', maxAttempts: 3 };
 * desired$.pipe(statusSink(client, options)).subscribe();
 * ```
 */
export interface StatusWriteOptions {
  /**
   * `merge` (RFC 7386, default), `json` (RFC 6902 from the immer draft) or `apply` (server-side
   * apply of the whole desired status as `fieldManager`, with `force`: the controller owns its
   * status; still no request when the draft changed nothing).
   */
  readonly patchType?: 'merge' | 'json' | 'apply';
  /**
   * Names the writer in `managedFields` (e.g. the controller's name). Server-side apply needs one:
   * `rxkube` when unset; merge and JSON patches send none unless given.
   */
  readonly fieldManager?: string;
  /** PATCH attempts per write when the server answers 409 Conflict; default 5. */
  readonly maxAttempts?: number;
  /** Delay before re-reading after the n-th conflict: `min(maxMs, baseMs × 2^(n-1))`; default 10 ms / 1 s. */
  readonly conflictBackoff?: { readonly baseMs?: number; readonly maxMs?: number };
}

/** {@link StatusWriteOptions} with every default filled in. */
export interface ResolvedStatusWriteOptions {
  readonly patchType: 'merge' | 'json' | 'apply';
  readonly fieldManager: string | undefined;
  readonly maxAttempts: number;
  readonly baseMs: number;
  readonly maxMs: number;
}

/**
 * Thrown into a `failed` result when every attempt of a status write met 409 Conflict.
 *
 * ## Example
 * ```ts
 * if (error instanceof StatusConflictError) log.warn(`${error.key}: ${error.attempts} conflicts`);
 * ```
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
 * Checks the options of a status writer.
 * @throws {InvalidArgumentError} naming the bad option.
 */
export function resolveStatusWriteOptions(
  operator: string,
  client: unknown,
  options: StatusWriteOptions,
): ResolvedStatusWriteOptions {
  const patchType = options.patchType ?? 'merge';
  const maxAttempts = options.maxAttempts ?? 5;
  const baseMs = options.conflictBackoff?.baseMs ?? 10;
  const maxMs = options.conflictBackoff?.maxMs ?? 1_000;
  const c = client as Partial<Pick<Client, 'get' | 'patch'>> | null | undefined;
  if (c === null || typeof c !== 'object' || typeof c.patch !== 'function' || typeof c.get !== 'function') {
    throw new InvalidArgumentError(
      operator,
      'client',
      client,
      'must be a Client (a KubeClient, or any object with get and patch functions)',
    );
  }
  const fieldManager = options.fieldManager;
  if (fieldManager !== undefined && (typeof fieldManager !== 'string' || fieldManager === '')) {
    throw new InvalidArgumentError(
      operator,
      'options.fieldManager',
      fieldManager,
      'must be a non-empty string',
    );
  }
  if (patchType !== 'merge' && patchType !== 'json' && patchType !== 'apply') {
    throw new InvalidArgumentError(
      operator,
      'options.patchType',
      patchType,
      'must be "merge", "json" or "apply"',
    );
  }
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) {
    throw new InvalidArgumentError(operator, 'options.maxAttempts', maxAttempts, 'must be an integer >= 1');
  }
  for (const [name, v] of [
    ['baseMs', baseMs],
    ['maxMs', maxMs],
  ] as const) {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) {
      throw new InvalidArgumentError(
        operator,
        `options.conflictBackoff.${name}`,
        v,
        'must be a finite number >= 0 (ms)',
      );
    }
  }
  return { patchType, fieldManager, maxAttempts, baseMs, maxMs };
}

/**
 * Sends one status write (cold): the patch is computed against `tracker.latest(write.object)` (our
 * own newer write of it, if any); nothing is sent when it is empty; a 409 waits the conflict
 * backoff, re-reads the object and recomputes. Every PATCH is tracked in flight, and its response
 * recorded in `tracker` as written by `writer`. Emits one outcome, then completes; errors with the
 * write's error (unwrapped, so `isNotFound(e)` works), a {@link StatusConflictError} after
 * `maxAttempts` conflicts, or a {@link UserCodeError} (hook `status`) when the recipe throws.
 * Requests go through `client` (`patch(ref, patch, { subresource: 'status', … })`, `get(ref)`),
 * each carrying `signal` when one is given. Internal: `ctx.status` calls it, `statusSink` queues it.
 */
export function writeStatus<T extends KubeObject<unknown, S>, S extends object>(
  client: Pick<Client, 'get' | 'patch'>,
  write: StatusWrite<T, S>,
  options: ResolvedStatusWriteOptions,
  tracker: WriteTracker,
  scheduler: SchedulerLike,
  writer?: string,
  signal?: AbortSignal,
): Observable<StatusWriteOutcome<T>> {
  const call = signal !== undefined ? { signal } : {};
  const patchOptions =
    options.patchType === 'apply'
      ? // The controller owns its status: force takes fields over from earlier Update writers.
        { subresource: 'status', fieldManager: options.fieldManager ?? 'rxkube', force: true, ...call }
      : {
          subresource: 'status',
          ...(options.fieldManager !== undefined ? { fieldManager: options.fieldManager } : {}),
          ...call,
        };
  return defer(() => {
    const key = objectKey(write.object);
    const ref = refOf(write.object, key);
    const id = writeId(ref, ref);
    const attempt = (base: T, requests: number, conflicts: number): Observable<StatusWriteOutcome<T>> => {
      const patch = computePatch(base, write, options.patchType, key);
      if (patch === undefined) return of({ type: 'unchanged', requests, conflicts });
      return tracker
        .track(id, () =>
          from(client.patch<T>(ref, patch, patchOptions)).pipe(
            last(),
            tap((object) => tracker.recorded(base, object, writer)),
          ),
        )
        .pipe(
          map((object): StatusWriteOutcome<T> => ({
            type: 'patched',
            object,
            patch,
            requests: requests + 1,
            conflicts,
          })),
          catchError((error: unknown) => {
            if (!isConflictError(error)) return throwError(() => error);
            if (requests + 1 >= options.maxAttempts) {
              return throwError(() => new StatusConflictError(key, requests + 1, error));
            }
            const delay = Math.min(options.maxMs, options.baseMs * 2 ** conflicts);
            return timer(delay, scheduler).pipe(
              switchMap(() => from(client.get<T>(ref, call)).pipe(last())),
              mergeMap((latest) => attempt(latest, requests + 1, conflicts + 1)),
            );
          }),
        );
    };
    return attempt(tracker.latest(write.object), 0, 0);
  });
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
  key: string,
): StatusPatch | undefined {
  const recipe: StatusRecipe<S> = 'update' in w ? w.update : (draft) => assignDeep(draft as object, w.status);
  let drafted: ReturnType<typeof draftStatus<S>>;
  try {
    drafted = draftStatus<S>(base, recipe);
  } catch (error) {
    throw new UserCodeError('status', error, { key });
  }
  const { next, patch } = drafted;
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
