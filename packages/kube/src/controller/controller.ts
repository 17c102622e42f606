/**
 * `controller()`: the API operator authors use. It turns watches (the primary `for` resource, its
 * owned children, mapped watches) into requests, and runs a level-triggered reconcile for each
 * through `@rxkube/core`'s `applier` (one reconcile per key at a time, coalescing, backoff,
 * requeue). kube-rs `Controller::new(api).owns(..).watches(..).run(reconcile, ..)` and
 * controller-runtime's builder, as one options object and `run(reconcile)`.
 *
 * Wired in on request: a status sink (`options.status` → `ctx.status(recipe)`), a finalizer
 * (`options.finalizer` → added before the reconcile runs, `cleanup` on deletion) and an Event
 * recorder (`options.recorder` → `ctx.record(event)`); their writes are read back (`ctx.object`
 * shows them) and their watch echoes trigger no reconcile. It does not elect a leader.
 *
 * @module
 */
import type { MonoTypeOperatorFunction, Observable, ObservableInput, SchedulerLike } from 'rxjs';
import {
  asyncScheduler,
  combineLatest,
  connect,
  defer,
  EMPTY,
  filter,
  finalize,
  from,
  ignoreElements,
  map,
  merge,
  mergeMap,
  of,
  Subject,
  switchMap,
  take,
  takeUntil,
  tap,
  throwError,
} from 'rxjs';
import { Action, applier, debounceByKey } from '@rxkube/core';
import type {
  ApplierOptions,
  ReconcileError,
  ReconcileResult,
  RunByKeyObserver,
  TerminalError,
} from '@rxkube/core';

import { KubeClient } from '../client/kube-client.js';
import { EventRecorder } from '../events/event-recorder.js';
import type { EventRequest } from '../events/record-events.js';
import type { FinalizerReconcile, StuckFinalizer } from '../finalizer/finalizer.js';
import { finalizer } from '../finalizer/finalizer.js';
import type { FinalizerPort } from '../finalizer/finalizer-port.js';
import { finalizerPortFromClient } from '../finalizer/finalizer-port.js';
import type { StatusRecipe } from '../sink/draft-status.js';
import type { OwnWritesOptions } from '../sink/own-writes.js';
import { OwnWrites } from '../sink/own-writes.js';
import type { StatusPort } from '../sink/status-port.js';
import { statusPortFromClient } from '../sink/status-port.js';
import type {
  StatusSinkOptions,
  StatusSinkResult,
  StatusWrite,
  StatusWriteOutcome,
} from '../sink/status-sink.js';
import { statusSink } from '../sink/status-sink.js';
import { suppressOwnEcho } from '../sink/suppress-own-echo.js';
import { resync } from '../reflector/resync.js';
import type { ResyncEvent } from '../reflector/resync.js';
import type { Store } from '../reflector/store.js';
import { OWNER_INDEX } from '../reflector/store.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import { WatchRegistry } from '../reflector/watch-registry.js';
import type { KubeObject, ObjectRef, ResourceType, WatchEvent } from '../types.js';
import { objectKey } from '../types.js';
import { createWatchRegistry } from '../watch/create-watch-registry.js';
import { assertNumber, InvalidArgumentError } from '../watcher/internal/invalid-argument.js';
import { laneApplier } from './internal/lanes.js';
import { holdWhileWriting, WritesInFlight } from './internal/writes-in-flight.js';
import { ownerRequestOf, requestOf, requestOfObject } from './internal/triggers.js';

const OPERATOR = 'controller';
/** Default idle time after which an empty namespace lane is released. */
export const DEFAULT_LANE_IDLE_MS = 300_000;

/** A logger; every method optional. `fields` always carries `key` for per-object lines. */
export interface ControllerLogger {
  debug?(message: string, fields: Readonly<Record<string, unknown>>): void;
  info?(message: string, fields: Readonly<Record<string, unknown>>): void;
  warn?(message: string, fields: Readonly<Record<string, unknown>>): void;
  error?(message: string, fields: Readonly<Record<string, unknown>>): void;
}

/** Names the object a mapped watch event concerns (its `apiVersion`/`kind` are the `for` resource's). */
export interface RequestName {
  readonly namespace?: string;
  readonly name: string;
}

/** A mapped watch (controller-runtime `Watches(obj, EnqueueRequestsFromMapFunc)`, kube-rs `watches`). */
export interface ControllerWatch {
  /** The watched resource. */
  readonly resource: ResourceType;
  /** The primary objects an event of `object` concerns (added, modified or deleted). */
  readonly map: (object: KubeObject) => readonly RequestName[];
  /** Namespace of this watch; default the controller's `namespace`. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** Watch metadata only (cheaper; `map` then sees `PartialObjectMetadata`). Default false. */
  readonly metadataOnly?: boolean;
}

/** Options of {@link controller}. */
export interface ControllerOptions<T extends KubeObject> {
  /** The primary resource: each request names one of its objects. */
  readonly for: ResourceType;
  /**
   * Owned child resources, watched metadata-only: a child event requests its controller owner
   * (`ownerReferences[controller=true]` of the `for` group and kind) in the child's namespace.
   */
  readonly owns?: readonly ResourceType[];
  /** Mapped watches. */
  readonly watches?: readonly ControllerWatch[];
  /** Watch one namespace (primary, owned and, by default, mapped). Default: all namespaces. */
  readonly namespace?: string;
  /** Label selector of the primary watch. */
  readonly labelSelector?: string;
  /** Reconciles in flight (per lane with `namespaceLanes`); integer >= 1. Default 1. */
  readonly concurrency?: number;
  /** Per-key trailing debounce of requests, `maxWaitMs` bounding how long a hot key waits. Off by default. */
  readonly debounce?: { readonly ms: number; readonly maxWaitMs?: number };
  /**
   * Filters of primary objects (`generationChanged()`, `labelsChanged()`, …), applied in order to
   * `InitApply`/`Apply` objects. Deletes, resyncs and child or mapped triggers bypass them.
   */
  readonly predicates?: readonly MonoTypeOperatorFunction<T>[];
  /**
   * One workqueue per namespace, each with `concurrency`: a busy namespace cannot starve the
   * others. A lane is released after `idleMs` (default {@link DEFAULT_LANE_IDLE_MS}) with nothing
   * to do. Default off.
   */
  readonly namespaceLanes?: boolean | { readonly idleMs: number };
  /** Re-request every primary object in the Store every `resyncMs` (a `Resync` trigger). Default off. */
  readonly resyncMs?: number;
  /** Per-key error backoff and global retry rate limit: see `ApplierOptions` of `@rxkube/core`. */
  readonly backoff?: ApplierOptions<string>['backoff'];
  readonly rateLimit?: ApplierOptions<string>['rateLimit'];
  /** Randomness of the backoff jitter, `[0, 1]`; inject in tests. */
  readonly random?: () => number;
  /**
   * Workqueue instrumentation (every lane's applier reports to it), e.g.
   * `new ControllerMetrics().observer('widgets')`. Its optional `reset()` is called when the run
   * ends, since cancelled reconciles never report `finished`.
   */
  readonly observer?: RunByKeyObserver<string> & { reset?(): void };
  /** The API client, handed to reconciles (and used for watches when no `registry` is given). */
  readonly client: KubeClient;
  /** Where watches come from; share one between controllers. Default `createWatchRegistry(client)`. */
  readonly registry?: WatchRegistry;
  /** Logger; default: errors and warnings to the console. */
  readonly log?: ControllerLogger;
  /** Enables `ctx.status(…)`: a `statusSink` per run over the `status` subresource. See {@link ControllerStatusOptions}. */
  readonly status?: ControllerStatusOptions<T>;
  /** A finalizer wrapped around the reconcile (added before it runs; `cleanup` on deletion). */
  readonly finalizer?: ControllerFinalizerOptions<T>;
  /**
   * Enables `ctx.record(event)`, and receives the finalizer's `FinalizerStuck` Events. The
   * controller keeps `recorder.outcomes$` subscribed while it runs.
   */
  readonly recorder?: EventRecorder;
  /**
   * Graceful stop (docs/promises.md promise 10): when this emits, intake stops — no new trigger is taken,
   * debounced ones and reruns queued behind a running key are dropped (controller-runtime shuts
   * its queue down the same way) — reconciles in flight finish, then the status sink's queued
   * writes, then the run completes. Unsubscribing instead
   * cancels everything at once. The Manager passes its shutdown signal here.
   */
  readonly shutdown?: ObservableInput<unknown>;
}

/** The status of a primary object type (`Record<string, unknown>` when `T` does not say). */
export type StatusOf<T extends KubeObject> =
  NonNullable<T['status']> extends object ? NonNullable<T['status']> : Record<string, unknown>;

/** Options of the controller's status sink (`options.status`). */
export interface ControllerStatusOptions<T extends KubeObject> extends Pick<
  StatusSinkOptions<T>,
  'patchType' | 'concurrency' | 'maxAttempts' | 'conflictBackoff'
> {
  /** Default `statusPortFromClient(client, { fieldManager })`; give one to observe or fake the writes. */
  readonly port?: StatusPort<T>;
  /** `managedFields` manager of the default port. */
  readonly fieldManager?: string;
  /** Bounds of the read-own-writes memory (shared by the status and finalizer writes). */
  readonly ownWrites?: OwnWritesOptions;
}

/** Options of the controller's finalizer (`options.finalizer`); see `finalizer()`. */
export interface ControllerFinalizerOptions<T extends KubeObject> {
  /** Domain-qualified finalizer name, e.g. `example.com/cleanup`. */
  readonly name: string;
  /** Runs when the object is being deleted; must be idempotent (it reruns after any failure). */
  readonly cleanup: (object: T, ctx: ReconcileContext<T>) => ObservableInput<unknown>;
  /** Default `finalizerPortFromClient(client, { fieldManager })`. */
  readonly port?: FinalizerPort<T>;
  readonly fieldManager?: string;
  readonly stuck?: { readonly failures?: number; readonly afterMs?: number };
  readonly onStuck?: (stuck: StuckFinalizer<T>) => void;
}

/** What `ctx.status(…)` emits: the sink's outcome, or `superseded` when a newer write of the key replaced it. */
export type ControllerStatusOutcome<T> = StatusWriteOutcome<T> | { readonly type: 'superseded' };

/** What a reconcile gets besides its request. */
export interface ReconcileContext<T extends KubeObject> {
  /**
   * The current object, read from the primary Store when the reconcile starts (deep-frozen) — or,
   * when the Store still holds a version the controller's own status or finalizer write replaced,
   * that write's response (read-own-writes). Inside a finalizer, the object with the finalizer.
   */
  readonly object: T;
  /** `namespace/name` (`name` when cluster-scoped). */
  readonly key: string;
  /** The primary Store. */
  readonly store: Store<T>;
  /**
   * This object's children of an `owns` resource (metadata only), from that watch's Store by the
   * owner uid index.
   * @throws {InvalidArgumentError} for a resource not listed in `owns`.
   */
  readonly owned: (resource: ResourceType) => KubeObject[];
  /**
   * The Store of an `owns` or `watches` resource — or of one mapped watch, given the very
   * `ControllerWatch` object from `options.watches` (needed when one kind is watched twice, e.g.
   * with two label selectors).
   * @throws {InvalidArgumentError} for a resource the controller does not watch, or one it watches
   *   more than once (pass the `ControllerWatch` then).
   */
  readonly storeOf: (resource: ResourceType | ControllerWatch) => Store<KubeObject>;
  readonly client: KubeClient;
  readonly log: ControllerLogger;
  /**
   * Writes this object's desired status through the controller's status sink (`options.status`):
   * an immer `recipe` drafting the status, or `{ status }` (the whole desired status), computed
   * against `ctx.object` (or our own newer write of it). Cold; emits one outcome then completes;
   * errors with the write's error (a 409 storm: `StatusConflictError`). No request when nothing
   * changed.
   * @throws {InvalidArgumentError} when `options.status` was not given.
   */
  readonly status: (
    write: StatusRecipe<StatusOf<T>> | { readonly status: StatusOf<T> },
  ) => Observable<ControllerStatusOutcome<T>>;
  /**
   * Records an Event about this object through `options.recorder` (aggregated, rate limited).
   * @throws {InvalidArgumentError} when `options.recorder` was not given, or for a bad event.
   */
  readonly record: (event: Omit<EventRequest, 'regarding'>) => void;
}

/** The reconcile: level-triggered, it reads `ctx.object`, never an event payload. */
export type ControllerReconcile<T extends KubeObject> = (
  request: ObjectRef,
  ctx: ReconcileContext<T>,
) => ObservableInput<Action>;

/**
 * One finished request: the applier's result, plus outcome `skipped` when the object was gone
 * from the Store (deleted) so the reconcile was not called.
 */
export interface ControllerResult {
  readonly key: string;
  readonly request: ObjectRef;
  readonly outcome: ReconcileResult<ObjectRef, string>['outcome'] | 'skipped';
  readonly action?: Action;
  readonly error?: ReconcileError<string> | TerminalError;
  readonly durationMs: number;
  readonly retryInMs?: number;
}

/** A configured controller; `run` starts it. */
export interface Controller<T extends KubeObject> {
  /**
   * Every watch this controller uses (primary, owned, mapped), as the registry keys them: the
   * Manager keeps them warm on standby replicas and checks their sync and health for `/readyz`.
   */
  readonly targets: readonly WatchTarget[];
  /**
   * Runs `reconcile` for every request until unsubscribed; emits one {@link ControllerResult} per
   * request handled. Cold: each subscription runs the controller once.
   */
  run(reconcile: ControllerReconcile<T>): Observable<ControllerResult>;
}

/** The action of a skipped request (identity-compared, so a user's awaitChange is never taken for it). */
const SKIPPED: Action = Object.freeze({ type: 'awaitChange' });

const consoleLogger: ControllerLogger = {
  warn: (message, fields) => console.warn(message, fields),
  error: (message, fields) => console.error(message, fields),
};

/**
 * Builds a controller: watches of the primary resource, its owned children and mapped
 * resources, turned into requests for a level-triggered reconcile.
 *
 * ## Example
 * ```ts
 * const results$ = controller<Widget>({
 *   for: { apiVersion: 'example.com/v1', kind: 'Widget' },
 *   owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
 *   predicates: [generationChanged()],
 *   concurrency: 4,
 *   client,
 * }).run((request, { object, owned }) =>
 *   defer(async () => {
 *     if (owned({ apiVersion: 'v1', kind: 'ConfigMap' }).length === 0) await client.create(configMapFor(object));
 *     return Action.requeue(300_000);
 *   }),
 * );
 * const sub = results$.subscribe((r) => metrics.reconciles.inc({ outcome: r.outcome })); // unsubscribe = stop
 * ```
 *
 * ## Semantics
 * - Triggers: primary `InitApply`/`Apply` objects (after `predicates`), primary `Delete`s and
 *   `Resync`s → the object's request; owned children (any event, metadata-only watch) → their
 *   controller owner's request; mapped watches (any event) → `map(object)`.
 * - Pipeline: triggers → (debounce) → (namespace lanes) → `applier`. Requests are keyed by
 *   `namespace/name`; a request's `apiVersion`/`kind` are always the `for` resource's.
 * - Reconcile: waits until every Store of the controller is ready (its first list is complete,
 *   controller-runtime's WaitForCacheSync), then reads the object from the primary Store. Gone →
 *   outcome `skipped`, the reconcile is not called. Present (also while being finalized, with a
 *   `deletionTimestamp`) → `reconcile(request, ctx)`; its first value is the Action.
 * - Errors: a reconcile that throws or errors is retried with per-key exponential backoff and the
 *   global rate limit; a `TerminalError` is not retried. Each is logged (`warn`/`error`) with the
 *   key, and emitted as a result.
 * - unsubscribe: reconciles in flight are unsubscribed, timers cancelled, watches released (a
 *   shared watch stops once no controller uses it).
 * - complete / error: never completes on its own (watches never end); errors only for a
 *   misconfiguration found while running (e.g. a watch target the server refuses outright is
 *   retried by the watcher, not an error).
 *
 * ## Guarantees
 * - At most one reconcile per key at a time; at most `concurrency` (per lane) overall; a trigger
 *   for a busy key coalesces into one rerun with the latest object.
 * - No reconcile before the caches are synced; never for an object the Store no longer has.
 *
 * ## Memory
 * The Stores (shared through the registry); the applier's per-key state until the key is idle;
 * predicate memory (their ttl); debounce entries while pending; one entry per namespace lane
 * until it is idle for `idleMs`.
 *
 * @param options see {@link ControllerOptions}.
 * @param scheduler time source of debounce, backoff, requeue, lanes and resync; `TestScheduler.run`
 *   virtualises it.
 * @throws {InvalidArgumentError} synchronously for an unusable option.
 */
export function controller<T extends KubeObject = KubeObject>(
  options: ControllerOptions<T>,
  scheduler: SchedulerLike = asyncScheduler,
): Controller<T> {
  const settings = validate(options);
  const forType = options.for;
  const registry = options.registry ?? createWatchRegistry(options.client, {}, scheduler);
  const log = options.log ?? consoleLogger;
  const ns = options.namespace !== undefined ? { namespace: options.namespace } : {};

  const primaryTarget: WatchTarget = {
    resource: forType,
    ...ns,
    ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
  };
  const ownedTargets = (options.owns ?? []).map((resource): WatchTarget => ({
    resource,
    ...ns,
    metadataOnly: true,
  }));
  const mapped = (options.watches ?? []).map((w) => ({
    watch: w,
    target: {
      resource: w.resource,
      ...(w.namespace !== undefined ? { namespace: w.namespace } : ns),
      ...(w.labelSelector !== undefined ? { labelSelector: w.labelSelector } : {}),
      ...(w.metadataOnly === true ? { metadataOnly: true } : {}),
    } satisfies WatchTarget,
  }));

  const applierOptions: ApplierOptions<string> = {
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.backoff !== undefined ? { backoff: options.backoff } : {}),
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
    ...(options.random !== undefined ? { random: options.random } : {}),
    ...(options.observer !== undefined ? { observer: options.observer } : {}),
  };
  const keyOf = (ref: ObjectRef): string => objectKey(ref);
  // Built now so that a bad concurrency/backoff/debounce throws here, not at subscribe.
  applier(keyOf, () => of(Action.awaitChange()), applierOptions, scheduler);
  const debounce =
    options.debounce === undefined
      ? undefined
      : debounceByKey(
          keyOf,
          options.debounce.ms,
          options.debounce.maxWaitMs !== undefined ? { maxWait: options.debounce.maxWaitMs } : {},
          scheduler,
        );

  const run = (reconcile: ControllerReconcile<T>): Observable<ControllerResult> => {
    if (typeof reconcile !== 'function') {
      throw new InvalidArgumentError(
        `${OPERATOR}.run`,
        'reconcile',
        reconcile,
        'must be a function (request, ctx) => ObservableInput<Action>',
      );
    }
    return defer(() => {
      const primary = registry.watch<T>(primaryTarget);
      // Read-own-writes: what the status sink and the finalizer wrote, until their echo arrives.
      const ownWrites = new OwnWrites(options.status?.ownWrites ?? {}, scheduler);
      const writes = new WritesInFlight();
      /** `write` counted in flight for its key until it settled (after its response was recorded). */
      const tracked = <R>(key: string, write: () => ObservableInput<R>): Observable<R> =>
        defer(() => {
          writes.begin(key);
          return from(write()).pipe(finalize(() => writes.end(key)));
        });
      const statusWrites = new Subject<StatusWrite<KubeObject<unknown, object>, object>>();
      const statusResults = new Subject<StatusSinkResult<KubeObject<unknown, object>, object>>();
      const statusRun$: Observable<never> =
        options.status === undefined
          ? EMPTY
          : statusWrites.pipe(
              statusSink<KubeObject<unknown, object>, object>(
                trackedStatusPort(
                  (options.status.port ??
                    statusPortFromClient<T>(
                      options.client,
                      options.status.fieldManager !== undefined
                        ? { fieldManager: options.status.fieldManager }
                        : {},
                    )) as unknown as StatusPort<KubeObject<unknown, object>>,
                  tracked,
                ),
                { ...statusSinkOptions(options.status), ownWrites },
                scheduler,
              ),
              tap((r) => statusResults.next(r)),
              ignoreElements(),
            );
      const recorderRun$: Observable<never> =
        options.recorder === undefined ? EMPTY : options.recorder.outcomes$.pipe(ignoreElements());
      /**
       * Deleting objects whose finalizer we removed, by key, with the versions that still show it:
       * skipped until the Store moves on (their Delete, or a newer version). Released then.
       */
      const released = new Map<string, { uid: string | undefined; versions: (string | undefined)[] }>();
      /** Per key while its finalizer-wrapped reconcile runs (one per key at a time: the applier's). */
      const running = new Map<string, { request: ObjectRef; object: T }>();
      let finalized: FinalizerReconcile<T> | undefined;
      const owned = ownedTargets.map((target) => ({ target, watch: registry.watch(target) }));
      const watched = mapped.map((m) => ({ ...m, shared: registry.watch(m.target) }));
      const stores: Store<KubeObject>[] = [
        primary.store as unknown as Store<KubeObject>,
        ...owned.map((o) => o.watch.store),
        ...watched.map((w) => w.shared.store),
      ];
      const synced$ = combineLatest(stores.map((s) => s.ready$)).pipe(
        filter((ready) => ready.every(Boolean)),
        take(1),
      );

      // The echoes of our own writes are dropped here, so a status write triggers no reconcile.
      const ownEvents$ = primary.events$.pipe(holdWhileWriting<T>(writes), suppressOwnEcho<T>(ownWrites));
      let primaryEvents$: Observable<WatchEvent<T> | ResyncEvent<T>> = ownEvents$;
      if (settings.resyncMs !== undefined) {
        primaryEvents$ = ownEvents$.pipe(resync(settings.resyncMs, primary.store, scheduler));
      }
      const fromPrimary$ = primaryEvents$.pipe(
        connect((events$) => {
          let applied$ = events$.pipe(
            filter((e) => e.type === 'Apply' || e.type === 'InitApply'),
            map((e) => e.object),
          );
          for (const predicate of options.predicates ?? []) applied$ = applied$.pipe(predicate);
          return merge(
            applied$,
            events$.pipe(
              filter((e) => e.type === 'Delete' || e.type === 'Resync'),
              map((e) => e.object),
            ),
          ).pipe(map((object) => requestOfObject(forType, object)));
        }),
      );
      const fromOwned$ = owned.map(({ watch }) =>
        watch.events$.pipe(
          mergeMap((e) => {
            if (e.type !== 'Apply' && e.type !== 'InitApply' && e.type !== 'Delete') return [];
            const request = ownerRequestOf(forType, e.object);
            return request === undefined ? [] : [request];
          }),
        ),
      );
      const fromWatches$ = watched.map(({ watch, shared }) =>
        shared.events$.pipe(
          mergeMap((e) => {
            if (e.type !== 'Apply' && e.type !== 'InitApply' && e.type !== 'Delete') return [];
            return watch.map(e.object).map((r) => requestOf(forType, r.namespace, r.name));
          }),
        ),
      );

      let requests$ = merge(fromPrimary$, ...fromOwned$, ...fromWatches$);
      if (debounce !== undefined) requests$ = requests$.pipe(debounce);
      // After the debounce: stopping intake drops the triggers it still holds.
      if (options.shutdown !== undefined) requests$ = requests$.pipe(takeUntil(from(options.shutdown)));
      /** Emits once the applier drained after a shutdown; the side runs stop then. */
      const drained = new Subject<void>();

      const ctxLog = (key: string): ControllerLogger => ({
        debug: (m, f) => log.debug?.(m, { key, ...f }),
        info: (m, f) => log.info?.(m, { key, ...f }),
        warn: (m, f) => log.warn?.(m, { key, ...f }),
        error: (m, f) => log.error?.(m, { key, ...f }),
      });
      const ownedStoreOf = (resource: ResourceType): Store<KubeObject> => {
        const found = owned.find((o) => sameResource(o.target.resource, resource));
        if (found === undefined) {
          throw new InvalidArgumentError(
            'ReconcileContext.owned',
            'resource',
            resource,
            'must be one of the controller options.owns resources',
          );
        }
        return found.watch.store;
      };
      const contextOf = (request: ObjectRef, key: string, object: T): ReconcileContext<T> => ({
        object,
        key,
        store: primary.store,
        owned: (resource) => {
          const uid = object.metadata.uid;
          return uid === undefined ? [] : ownedStoreOf(resource).byIndex(OWNER_INDEX, uid);
        },
        storeOf: (resource) => {
          const exact = watched.find((w) => w.watch === resource);
          if (exact !== undefined) return exact.shared.store;
          const type = 'map' in resource ? resource.resource : resource;
          const found = [
            ...owned.filter((o) => sameResource(o.target.resource, type)).map((o) => o.watch.store),
            ...watched.filter((w) => sameResource(w.target.resource, type)).map((w) => w.shared.store),
          ];
          if (found.length !== 1) {
            throw new InvalidArgumentError(
              'ReconcileContext.storeOf',
              'resource',
              resource,
              found.length === 0
                ? 'must be one of the controller options.owns or options.watches resources'
                : `is watched ${found.length} times: pass the ControllerWatch object from options.watches`,
            );
          }
          return found[0] as Store<KubeObject>;
        },
        client: options.client,
        log: ctxLog(key),
        status: (write) => writeStatus(object, write),
        record: (event) => {
          if (options.recorder === undefined) {
            throw new InvalidArgumentError(
              'ReconcileContext.record',
              'options.recorder',
              undefined,
              'must be given to the controller (new EventRecorder(eventPortFromClient(client), …)) to record Events',
            );
          }
          options.recorder.record(object, event);
        },
      });
      const writeStatus = (
        object: T,
        desired: StatusRecipe<StatusOf<T>> | { readonly status: StatusOf<T> },
      ): Observable<ControllerStatusOutcome<T>> =>
        defer(() => {
          if (options.status === undefined) {
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
          const write: StatusWrite<KubeObject<unknown, object>, object> = typeof desired === 'function'
            ? { object: base, update: desired }
            : { object: base, status: desired.status };
          const outcome$ = statusResults.pipe(
            filter((r) => r.value === write),
            take(1),
            mergeMap((r): Observable<ControllerStatusOutcome<T>> => {
              if (r.kind === 'failed') return throwError(() => r.error);
              if (r.kind === 'superseded') return of({ type: 'superseded' as const });
              return of(r.result as StatusWriteOutcome<T>);
            }),
          );
          // Listen first: the sink may answer synchronously (nothing to write).
          return merge(
            outcome$,
            defer(() => (statusWrites.next(write), EMPTY)),
          );
        });
      const fin = options.finalizer;
      if (fin !== undefined) {
        const port = fin.port ?? finalizerPortFromClient<T>(options.client, fieldManagerOf(fin.fieldManager));
        finalized = finalizer<T>(
          fin.name,
          {
            port: {
              patch: (ref, ops) => {
                const key = objectKey(ref);
                const before = running.get(key)?.object;
                return tracked(key, () =>
                  from(port.patch(ref, ops)).pipe(
                    tap((after) => {
                      if (before !== undefined) ownWrites.recorded(before, after);
                      // Our finalizer is off a deleting object: done with it. The server may answer
                      // with the resourceVersion it had
                      // (packages/testing/fixtures/kube-wire/13-finalizers.json #7), so read-own-writes cannot tell
                      // the Store's copy is stale; remember both versions instead.
                      const meta = after.metadata;
                      if (
                        meta.deletionTimestamp !== undefined &&
                        !(meta.finalizers ?? []).includes(fin.name)
                      ) {
                        released.set(key, {
                          uid: meta.uid,
                          versions: [before?.metadata.resourceVersion, meta.resourceVersion],
                        });
                      }
                    }),
                  ),
                );
              },
            },
            apply: (object) => {
              const key = objectKey(object);
              const run = running.get(key);
              if (run === undefined)
                return throwError(() => new Error(`finalizer apply of ${key} outside its reconcile`));
              return reconcile(run.request, contextOf(run.request, key, object));
            },
            cleanup: (object) => {
              const key = objectKey(object);
              const run = running.get(key);
              if (run === undefined)
                return throwError(() => new Error(`finalizer cleanup of ${key} outside its reconcile`));
              return fin.cleanup(object, contextOf(run.request, key, object));
            },
            ...(fin.stuck !== undefined ? { stuck: fin.stuck } : {}),
            ...(fin.onStuck !== undefined ? { onStuck: fin.onStuck } : {}),
            ...(options.recorder !== undefined ? { events: options.recorder } : {}),
          },
          scheduler,
        );
      }
      const work = (request: ObjectRef, key: string): Observable<Action> =>
        synced$.pipe(
          switchMap(() => {
            const stored = primary.store.get(key);
            if (stored === undefined) {
              released.delete(key);
              return of(SKIPPED);
            }
            const done = released.get(key);
            if (done !== undefined) {
              const same =
                done.uid === stored.metadata.uid && done.versions.includes(stored.metadata.resourceVersion);
              // Until a newer version (or the Delete) arrives, a request for it is a stale echo.
              if (same) return of(SKIPPED);
              released.delete(key);
            }
            const object = ownWrites.baseFor(stored);
            if (finalized === undefined) return from(reconcile(request, contextOf(request, key, object)));
            running.set(key, { request, object });
            return finalized(object).pipe(finalize(() => running.delete(key)));
          }),
        );

      const results$ =
        settings.laneIdleMs === undefined
          ? requests$.pipe(applier(keyOf, work, applierOptions, scheduler))
          : requests$.pipe(
              laneApplier(
                (r) => r.namespace ?? '',
                keyOf,
                work,
                applierOptions,
                settings.laneIdleMs,
                scheduler,
              ),
            );
      return merge(
        statusRun$,
        recorderRun$.pipe(takeUntil(drained)),
        results$.pipe(
          map(toControllerResult),
          tap({
            next: (r) => report(log, r),
            // Only after a shutdown: the applier completes once its reconciles finished; the
            // status sink then writes what is queued and completes.
            complete: () => {
              statusWrites.complete();
              drained.next();
            },
          }),
        ),
      ).pipe(finalize(() => options.observer?.reset?.()));
    });
  };

  return { run, targets: [primaryTarget, ...ownedTargets, ...mapped.map((m) => m.target)] };
}

function toControllerResult(r: ReconcileResult<ObjectRef, string>): ControllerResult {
  return {
    key: r.key,
    request: r.value,
    outcome: r.action === SKIPPED ? 'skipped' : r.outcome,
    ...(r.action !== undefined && r.action !== SKIPPED ? { action: r.action } : {}),
    ...(r.error !== undefined ? { error: r.error } : {}),
    durationMs: r.durationMs,
    ...(r.retryInMs !== undefined ? { retryInMs: r.retryInMs } : {}),
  };
}

function report(log: ControllerLogger, r: ControllerResult): void {
  if (r.outcome === 'error') {
    const retry =
      r.retryInMs !== undefined
        ? `retrying in ${Math.round(r.retryInMs)} ms`
        : 'rerunning for a newer trigger';
    // A ReconcileError's message already names the key: `reconcile of "ns/a" failed: …`.
    log.warn?.(`${r.error?.message ?? `reconcile of ${r.key} failed`}; ${retry}`, {
      key: r.key,
      error: r.error,
      ...(r.retryInMs !== undefined ? { retryInMs: r.retryInMs } : {}),
    });
  } else if (r.outcome === 'terminal') {
    log.error?.(`reconcile of ${r.key} failed terminally (not retried): ${r.error?.message ?? ''}`, {
      key: r.key,
      error: r.error,
    });
  } else {
    log.debug?.(`reconcile of ${r.key}: ${r.outcome}`, { key: r.key, durationMs: r.durationMs });
  }
}

/** The status port with every PATCH counted in flight (GETs do not produce echoes). */
function trackedStatusPort<T extends KubeObject>(
  port: StatusPort<T>,
  tracked: <R>(key: string, write: () => ObservableInput<R>) => Observable<R>,
): StatusPort<T> {
  return {
    patchStatus: (ref, patch) => tracked(objectKey(ref), () => port.patchStatus(ref, patch)),
    getLatest: (ref) => port.getLatest(ref),
  };
}

function fieldManagerOf(fieldManager: string | undefined): { fieldManager?: string } {
  return fieldManager !== undefined ? { fieldManager } : {};
}

function statusSinkOptions<T extends KubeObject>(
  o: ControllerStatusOptions<T>,
): Pick<
  StatusSinkOptions<KubeObject<unknown, object>>,
  'patchType' | 'concurrency' | 'maxAttempts' | 'conflictBackoff'
> {
  return {
    ...(o.patchType !== undefined ? { patchType: o.patchType } : {}),
    ...(o.concurrency !== undefined ? { concurrency: o.concurrency } : {}),
    ...(o.maxAttempts !== undefined ? { maxAttempts: o.maxAttempts } : {}),
    ...(o.conflictBackoff !== undefined ? { conflictBackoff: o.conflictBackoff } : {}),
  };
}

function sameResource(a: ResourceType, b: ResourceType): boolean {
  return a.apiVersion === b.apiVersion && a.kind === b.kind;
}

interface Settings {
  readonly resyncMs: number | undefined;
  readonly laneIdleMs: number | undefined;
}

function assertResource(argument: string, value: unknown): void {
  const r = value as Partial<ResourceType> | null | undefined;
  if (
    r === null ||
    typeof r !== 'object' ||
    typeof r.apiVersion !== 'string' ||
    typeof r.kind !== 'string' ||
    r.apiVersion === '' ||
    r.kind === ''
  ) {
    throw new InvalidArgumentError(
      OPERATOR,
      argument,
      value,
      "must be a resource type like { apiVersion: 'v1', kind: 'ConfigMap' }",
    );
  }
}

function validate<T extends KubeObject>(options: ControllerOptions<T>): Settings {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError(
      OPERATOR,
      'options',
      options,
      'must be an object with at least { for, client }',
    );
  }
  assertResource('options.for', options.for);
  if (!(options.client instanceof KubeClient)) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.client',
      options.client,
      'must be a KubeClient (KubeClient.default())',
    );
  }
  if (options.registry !== undefined && !(options.registry instanceof WatchRegistry)) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.registry',
      options.registry,
      'must be a WatchRegistry (createWatchRegistry(client)) or undefined',
    );
  }
  if (options.owns !== undefined) {
    if (!Array.isArray(options.owns)) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.owns',
        options.owns,
        'must be an array of resource types',
      );
    }
    options.owns.forEach((r, i) => assertResource(`options.owns[${i}]`, r));
  }
  if (options.watches !== undefined) {
    if (!Array.isArray(options.watches)) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.watches',
        options.watches,
        'must be an array of { resource, map }',
      );
    }
    options.watches.forEach((w: Partial<ControllerWatch> | null, i) => {
      assertResource(`options.watches[${i}].resource`, w?.resource);
      if (typeof w?.map !== 'function') {
        throw new InvalidArgumentError(
          OPERATOR,
          `options.watches[${i}].map`,
          w?.map,
          'must be a function (object) => { namespace?, name }[]',
        );
      }
    });
  }
  for (const field of ['namespace', 'labelSelector'] as const) {
    const value: unknown = options[field];
    if (value !== undefined && (typeof value !== 'string' || value === '')) {
      throw new InvalidArgumentError(
        OPERATOR,
        `options.${field}`,
        value,
        'must be a non-empty string or undefined',
      );
    }
  }
  if (options.predicates !== undefined) {
    if (!Array.isArray(options.predicates) || !options.predicates.every((p) => typeof p === 'function')) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.predicates',
        options.predicates,
        'must be an array of operators like generationChanged()',
      );
    }
  }
  if (options.debounce !== undefined && (options.debounce === null || typeof options.debounce !== 'object')) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.debounce',
      options.debounce,
      'must be { ms, maxWaitMs? } or undefined',
    );
  }
  if (options.resyncMs !== undefined) assertNumber(OPERATOR, 'options.resyncMs', options.resyncMs, 1, false);
  let laneIdleMs: number | undefined;
  const lanes = options.namespaceLanes;
  if (lanes === true) laneIdleMs = DEFAULT_LANE_IDLE_MS;
  else if (lanes !== undefined && lanes !== false) {
    if (lanes === null || typeof lanes !== 'object') {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.namespaceLanes',
        lanes,
        'must be a boolean or { idleMs }',
      );
    }
    assertNumber(OPERATOR, 'options.namespaceLanes.idleMs', lanes.idleMs, 0, false);
    laneIdleMs = lanes.idleMs;
  }
  if (options.status !== undefined) {
    if (options.status === null || typeof options.status !== 'object') {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.status',
        options.status,
        'must be an object like { fieldManager } (or omitted)',
      );
    }
    // statusSink checks its options (and the port) synchronously.
    statusSink(
      (options.status.port as StatusPort<KubeObject<unknown, object>> | undefined) ?? {
        patchStatus: () => EMPTY,
        getLatest: () => EMPTY,
      },
      statusSinkOptions(options.status),
    );
  }
  if (options.finalizer !== undefined) {
    const fin = options.finalizer as Partial<ControllerFinalizerOptions<T>> | null;
    if (fin === null || typeof fin !== 'object' || typeof fin.cleanup !== 'function') {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.finalizer',
        fin,
        "must be { name: 'example.com/cleanup', cleanup: (object, ctx) => ObservableInput }",
      );
    }
    // finalizer() checks the name, the port and the stuck thresholds synchronously.
    finalizer(fin.name as string, {
      port: fin.port ?? { patch: () => EMPTY },
      apply: () => EMPTY,
      cleanup: fin.cleanup as () => ObservableInput<unknown>,
      ...(fin.stuck !== undefined ? { stuck: fin.stuck } : {}),
    });
  }
  if (options.recorder !== undefined && !(options.recorder instanceof EventRecorder)) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.recorder',
      options.recorder,
      'must be an EventRecorder (new EventRecorder(eventPortFromClient(client), { reportingController, reportingInstance }))',
    );
  }
  if (options.log !== undefined && (options.log === null || typeof options.log !== 'object')) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.log',
      options.log,
      'must be a logger object or undefined',
    );
  }
  return { resyncMs: options.resyncMs, laneIdleMs };
}
