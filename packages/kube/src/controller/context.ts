/**
 * The reconcile context: what a reconcile gets besides its request — the object (read-own-writes),
 * the Stores and the cache, and writes that go through the controller's {@link WriteTracker} so
 * their echoes do not rerun the reconcile and the next reconcile sees them.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import type { Action } from '@rxkube/core';
import { firstValueFrom, from, last, tap, throwError } from 'rxjs';
import type { Observable, ObservableInput, SchedulerLike } from 'rxjs';

import { applyChildren } from '../children/apply-children.js';
import type {
  ApplyChildrenOptions,
  ApplyChildrenResult,
  ChildrenClient,
} from '../children/apply-children.js';
import type {
  ApplyOptions,
  DeleteOptions,
  KubeClient,
  ObjectLike,
  Patch,
  PatchOptions,
  WriteOptions,
} from '../client/kube-client.js';
import type { Status } from '../errors.js';
import type { EventRequest } from '../events/record-events.js';
import { OWNER_INDEX } from '../reflector/store.js';
import type { StoreReader } from '../reflector/store-reader.js';
import type { StatusRecipe } from '../sink/draft-status.js';
import type { StatusPort } from '../sink/status-port.js';
import type { ResolvedStatusWriteOptions, StatusWriteOutcome } from '../sink/status-write.js';
import { writeStatus } from '../sink/status-write.js';
import type { WriteTracker } from '../sink/write-tracker.js';
import { writeId } from '../sink/write-tracker.js';
import type { KubeObject, ObjectRef, ResourceType } from '../types.js';
import { objectKey } from '../types.js';
import { UserCodeError } from '../user-code-error.js';
import type { CacheReader } from './cache-reader.js';
import { showWrites } from './cache-reader.js';
import type { ControllerLogger, ControllerWatch } from './options.js';
import type { WatchedKinds } from './watches.js';
import { sameResource } from './watches.js';

/** The status of a primary object type (`Record<string, unknown>` when `T` does not say). */
export type StatusOf<T extends KubeObject> =
  NonNullable<T['status']> extends object ? NonNullable<T['status']> : Record<string, unknown>;

/** What `ctx.status(…)` emits: the write's outcome. */
export type ControllerStatusOutcome<T> = StatusWriteOutcome<T>;

/** What a reconcile gets besides its request. */
export interface ReconcileContext<T extends KubeObject> {
  /**
   * The current object, read from the primary Store when the reconcile starts (deep-frozen) — or,
   * when the Store still holds a version the controller's own write replaced, that write's
   * response (read-own-writes). Inside a finalizer, the object with the finalizer.
   */
  readonly object: T;
  /** `namespace/name` (`name` when cluster-scoped). */
  readonly key: string;
  /** The primary Store (every namespace the controller watches). */
  readonly store: StoreReader<T>;
  /**
   * This object's children of an `owns` resource, from that watch's Store by the owner uid index
   * (children our own writes replaced or deleted are shown as written).
   * @throws {InvalidArgumentError} for a resource not listed in `owns`.
   */
  readonly owned: <C extends KubeObject = KubeObject>(resource: ResourceType<C>) => C[];
  /**
   * The Store of a watched kind (`for`, `owns` or `watches`) — or of one mapped watch, given the
   * very `ControllerWatch` object from `options.watches` (needed when one kind is watched twice).
   * @throws {InvalidArgumentError} for a kind the controller does not watch, or one it watches more
   *   than once (pass the `ControllerWatch` then).
   */
  readonly storeOf: <O extends KubeObject = KubeObject>(
    resource: ResourceType<O> | ControllerWatch<O>,
  ) => StoreReader<O>;
  /** Cached reads of every watched kind, showing this controller's own writes. */
  readonly cache: CacheReader;
  readonly client: KubeClient;
  readonly log: ControllerLogger;
  /**
   * Writes this object's desired status: an immer `recipe` drafting the status, or `{ status }` (the
   * whole desired status), computed against `ctx.object` (or our own newer write of it). Cold; emits
   * one outcome then completes; errors with the write's error (a 409 storm: `StatusConflictError`).
   * No request when nothing changed.
   * @throws {InvalidArgumentError} (as an error of the Observable) when `options.status` was not given.
   */
  readonly status: (
    write: StatusRecipe<StatusOf<T>> | { readonly status: StatusOf<T> },
  ) => Observable<ControllerStatusOutcome<T>>;
  /**
   * Records an Event about this object through `options.recorder` (aggregated, rate limited).
   * @throws {InvalidArgumentError} when `options.recorder` was not given; a `UserCodeError` (hook
   *   `record`) for an Event that cannot be built — it fails only this reconcile.
   */
  readonly record: (event: Omit<EventRequest, 'regarding'>) => void;
  /**
   * Server-side apply through the controller's write tracking (field manager `options.fieldManager`,
   * `force: true` unless given). Resolves with the applied object.
   */
  readonly apply: <O extends ObjectLike>(object: O, options?: Partial<ApplyOptions>) => Promise<O>;
  /** `client.patch` through the controller's write tracking. */
  readonly patch: <O extends ObjectLike = KubeObject>(
    ref: ObjectRef,
    patch: Patch,
    options?: PatchOptions,
  ) => Promise<O>;
  /** `client.create` through the controller's write tracking. */
  readonly create: <O extends ObjectLike>(object: O, options?: WriteOptions) => Promise<O>;
  /** `client.delete` through the controller's write tracking. */
  readonly delete: (ref: ObjectRef, options?: DeleteOptions) => Promise<KubeObject | Status>;
  /**
   * `applyChildren` of this object: existing children come from the owned Stores (no LIST), every
   * write goes through the controller's write tracking; `childTypes` default to `options.owns`.
   */
  readonly applyChildren: (
    desired: readonly ObjectLike[],
    options?: Partial<ApplyChildrenOptions>,
  ) => Promise<ApplyChildrenResult>;
}

/** The reconcile: level-triggered, it reads `ctx.object`, never an event payload. */
export type ControllerReconcile<T extends KubeObject> = (
  request: ObjectRef,
  ctx: ReconcileContext<T>,
) => ObservableInput<Action>;

/** What building contexts needs (one per run). */
export interface ContextDeps<T extends KubeObject> {
  readonly kinds: WatchedKinds<T>;
  readonly cache: CacheReader;
  readonly tracker: WriteTracker;
  readonly client: KubeClient | undefined;
  readonly log: ControllerLogger;
  readonly fieldManager: string;
  readonly status: { readonly port: StatusPort<T>; readonly options: ResolvedStatusWriteOptions } | undefined;
  readonly record: ((object: T, event: Omit<EventRequest, 'regarding'>) => void) | undefined;
  readonly scheduler: SchedulerLike;
}

/** Builds the context of one reconcile of `key` over `object`. */
export function reconcileContext<T extends KubeObject>(
  deps: ContextDeps<T>,
  key: string,
  object: T,
): ReconcileContext<T> {
  const { kinds, tracker } = deps;
  const client = deps.client ?? missingClient();
  /** Runs a write counted in flight for its object, recording its response as this key's write. */
  const tracked = async <R>(
    target: { apiVersion?: string; kind?: string; metadata?: { namespace?: string; name?: string } },
    send: () => Promise<R>,
    record: (before: KubeObject | undefined, result: R) => void,
  ): Promise<R> => {
    const type = { apiVersion: target.apiVersion ?? '', kind: target.kind ?? '' };
    const meta = target.metadata ?? {};
    const before = kinds.lookup(type)?.store.get(
      objectKey({
        name: meta.name ?? '',
        ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
      }),
    );
    return firstValueFrom(
      tracker.track(writeId(type, meta), () => from(send()).pipe(tap((result) => record(before, result)))),
    );
  };
  const recordWrite = (before: KubeObject | undefined, after: unknown): void => {
    if (isObject(after)) tracker.recorded(before, after, key);
  };
  const refTarget = (ref: ObjectRef) => ({
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: { name: ref.name, ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}) },
  });
  const owned = <C extends KubeObject>(resource: ResourceType<C>): C[] => {
    const kind = kinds.owned.find((k) => sameResource(k.plan.resource, resource));
    if (kind === undefined) {
      throw new InvalidArgumentError(
        'ReconcileContext.owned',
        'resource',
        resource,
        'must be one of the controller options.owns resources',
      );
    }
    const uid = object.metadata.uid;
    if (uid === undefined) return [];
    return showWrites(tracker, kind.plan.resource, kind.store.byIndex(OWNER_INDEX, uid) as C[]);
  };
  const ctx: ReconcileContext<T> = {
    object,
    key,
    store: kinds.primary.store,
    owned,
    storeOf: (resource) => deps.cache.storeOf(resource),
    cache: deps.cache,
    client,
    log: {
      debug: (m, f) => deps.log.debug?.(m, { key, ...f }),
      info: (m, f) => deps.log.info?.(m, { key, ...f }),
      warn: (m, f) => deps.log.warn?.(m, { key, ...f }),
      error: (m, f) => deps.log.error?.(m, { key, ...f }),
    },
    status: (desired) => {
      if (deps.status === undefined) {
        return throwError(
          () =>
            new InvalidArgumentError(
              'ReconcileContext.status',
              'options.status',
              undefined,
              'must be given to the controller (e.g. status: { fieldManager }) to write statuses',
            ),
        );
      }
      const base = object as unknown as KubeObject<unknown, object>;
      const write =
        typeof desired === 'function'
          ? { object: base, update: desired as StatusRecipe<object> }
          : { object: base, status: desired.status as object };
      return writeStatus(
        deps.status.port as unknown as StatusPort<KubeObject<unknown, object>>,
        write,
        deps.status.options,
        tracker,
        deps.scheduler,
        key,
      ).pipe(last()) as unknown as Observable<ControllerStatusOutcome<T>>;
    },
    record: (event) => {
      if (deps.record === undefined) {
        throw new InvalidArgumentError(
          'ReconcileContext.record',
          'options.recorder',
          undefined,
          'must be given to the controller (new EventRecorder(eventPortFromClient(client), …)) to record Events',
        );
      }
      try {
        deps.record(object, event);
      } catch (error) {
        throw new UserCodeError('record', error, { key });
      }
    },
    apply: (body, options) =>
      tracked(
        body,
        () => client.apply(body, { fieldManager: deps.fieldManager, force: true, ...options }),
        recordWrite,
      ),
    patch: <O extends ObjectLike = KubeObject>(ref: ObjectRef, patch: Patch, options?: PatchOptions) =>
      tracked(refTarget(ref), () => client.patch<O>(ref, patch, options), recordWrite),
    create: (body, options) => tracked(body, () => client.create(body, options), recordWrite),
    delete: (ref, options) =>
      tracked(
        refTarget(ref),
        () => client.delete<KubeObject>(ref, options),
        (before, result) => {
          if (isObject(result) && result.kind !== 'Status') tracker.recorded(before, result, key);
          else tracker.deleted(before ?? refTarget(ref), key, ref);
        },
      ),
    applyChildren: (desired, options = {}) => {
      const children: ChildrenClient = {
        discovery: client.discovery,
        apply: (body, o) => ctx.apply(body, o),
        delete: ((ref: ObjectRef, o?: DeleteOptions) => ctx.delete(ref, o)) as ChildrenClient['delete'],
        list: (type, o) => client.list(type, o),
      };
      return applyChildren(children, object, desired, {
        fieldManager: deps.fieldManager,
        childTypes: kinds.owned.map((k) => k.plan.resource),
        existing: (type, namespace) =>
          kinds.lookup(type) === undefined
            ? undefined
            : deps.cache.list(type, namespace !== undefined ? { namespace } : {}),
        ...options,
      });
    },
  };
  return ctx;
}

function isObject(value: unknown): value is KubeObject {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { metadata?: unknown }).metadata === 'object'
  );
}

/** The `ctx.client` of a controller built without one (marble tests): every call rejects, saying why. */
function missingClient(): KubeClient {
  const refuse = (): Promise<never> =>
    Promise.reject(
      new InvalidArgumentError(
        'ReconcileContext.client',
        'options.client',
        undefined,
        'must be given to the controller to talk to the API server (the controller was built with a registry only)',
      ),
    );
  return new Proxy({} as KubeClient, { get: () => refuse });
}
