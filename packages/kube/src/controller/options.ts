/**
 * The options of `controller()` and the shapes its reconcile and map functions receive — the
 * reconcile context and the cache reader included. Types only: `validate-options.ts` checks the
 * options and turns them into a plan, `context.ts` and `cache-reader.ts` implement the shapes.
 *
 * @module
 */
import type { Action, ApplierOptions, RunByKeyObserver } from '@rxkube/core';
import type { MonoTypeOperatorFunction, Observable, ObservableInput } from 'rxjs';

import type { ApplyChildrenOptions, ApplyChildrenResult } from '../children/apply-children.js';
import type { Client } from '../client/client.js';
import type {
  ApplyOptions,
  DeleteOptions,
  ObjectLike,
  Patch,
  PatchOptions,
  WriteOptions,
} from '../client/verb-options.js';
import type { Status } from '../errors.js';
import type { EventRequest } from '../events/event-body.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { StuckFinalizer } from '../finalizer/finalizer.js';
import type { LabelSelectorInput } from '../reflector/label-selector.js';
import type { Indexer, StoreRef } from '../reflector/store.js';
import type { StoreReader } from '../reflector/store-reader.js';
import type { WatchRegistry } from '../reflector/watch-registry.js';
import type { StatusRecipe } from '../sink/draft-status.js';
import type { ReconcileTracing } from './tracing.js';
import type { StatusWriteOptions, StatusWriteOutcome } from '../sink/status-write.js';
import type { WriteTrackerOptions } from '../sink/write-tracker.js';
import type { KubeObject, ObjectRef, ResourceType } from '../types.js';
import type { UserCodeHook } from '../user-code-error.js';

/**
 * Default idle time after which an empty namespace lane is released.
 *
 * ## Example
 * ```ts
 * // release an idle namespace lane after 10 minutes instead of 5
 * controller({ for: widgetType, client, namespaceLanes: { idleMs: 2 * DEFAULT_LANE_IDLE_MS } });
 * ```
 */
export const DEFAULT_LANE_IDLE_MS = 300_000;

/**
 * Default deadline of one reconcile (`reconcileTimeoutMs`): 5 minutes — five times the API
 * server's own 60 s limit on a request, so a reconcile making several slow calls (or thousands of
 * quick ones) still finishes, while a hung one frees its worker. See docs/defaults.md.
 *
 * ## Example
 * ```ts
 * // a controller whose reconciles call a slow cloud API
 * controller({ for: widgetType, client, reconcileTimeoutMs: 2 * DEFAULT_RECONCILE_TIMEOUT_MS });
 * ```
 */
export const DEFAULT_RECONCILE_TIMEOUT_MS = 300_000;

/**
 * A logger; every method optional. `fields` always carries `key` for per-object lines.
 *
 * ## Example
 * ```ts
 * const log: ControllerLogger = { warn: (message, fields) => console.warn(message, fields) }; // debug/info/error dropped
 * controller({ for: widgetType, client, log });
 * ```
 */
export interface ControllerLogger {
  debug?(message: string, fields: Readonly<Record<string, unknown>>): void;
  info?(message: string, fields: Readonly<Record<string, unknown>>): void;
  warn?(message: string, fields: Readonly<Record<string, unknown>>): void;
  error?(message: string, fields: Readonly<Record<string, unknown>>): void;
}

/**
 * A function of `O` that a `ControllerWatch<O>` may hold where a `ControllerWatch<KubeObject>` is
 * expected (method-style bivariance): each `watches`/`owns` entry is typed by its own kind —
 * annotate the parameter, e.g. `indexes: { node: (p: Pod) => [p.spec?.nodeName ?? ''] }`.
 */
type Bivariant<F extends (...args: never[]) => unknown> = {
  hack(...args: Parameters<F>): ReturnType<F>;
}['hack'];

/**
 * Names the object a mapped watch event concerns (its `apiVersion`/`kind` are the `for` resource's).
 *
 * ## Example
 * ```ts
 * // a ConfigMap event requests the Widget of the same name
 * const map = (cm: KubeObject): readonly RequestName[] => [{ namespace: cm.metadata.namespace ?? '', name: cm.metadata.name ?? '' }];
 * controller({ for: widgetType, client, watches: [{ resource: configMapType, map }] });
 * ```
 */
export interface RequestName {
  readonly namespace?: string;
  readonly name: string;
}

/**
 * What a `watches[].map` function gets besides the object (controller-runtime's map functions get
 * a client and the cache): the cache over every kind the controller watches — its primary kind
 * included, across every namespace it watches — and the client.
 *
 * ## Example
 * ```ts
 * declare const configMapKeysOf: (w: Widget) => string[]; // the `namespace/name` of each ConfigMap a Widget reads
 * const toWidgets = (cm: KubeObject, ctx: MapContext): readonly RequestName[] =>
 *   ctx.cache
 *     .list(widgetType, { matchingFields: { configMap: objectKey(cm) } })
 *     .map((w) => ({ namespace: w.metadata.namespace ?? '', name: w.metadata.name ?? '' }));
 * controller({ for: widgetType, client, indexes: { configMap: configMapKeysOf }, watches: [{ resource: configMapType, map: toWidgets }] });
 * ```
 */
export interface MapContext {
  /** Cached reads of every watched kind (see {@link CacheReader}). */
  readonly cache: CacheReader;
  /** The API client (prefer the cache: a map runs for every event). */
  readonly client: Client;
}

/**
 * A mapped watch (controller-runtime `Watches(obj, EnqueueRequestsFromMapFunc)`, kube-rs
 * `watches`): events of `resource` request the primary objects `map` names.
 *
 * ## Example
 * ```ts
 * const secrets: ControllerWatch = {
 *   resource: { apiVersion: 'v1', kind: 'Secret' },
 *   labelSelector: 'example.com/widget',
 *   metadataOnly: true,
 *   map: (s) => [{ namespace: s.metadata.namespace ?? '', name: s.metadata.labels?.['example.com/widget'] ?? '' }],
 * };
 * controller({ for: widgetType, client, watches: [secrets] });
 * ```
 */
export interface ControllerWatch<W extends KubeObject = KubeObject> {
  /** The watched resource. */
  readonly resource: ResourceType<W>;
  /**
   * The primary objects an event of `object` concerns (added, modified or deleted). Runs for
   * every event: keep it cheap, read through `ctx.cache`. A map that throws fails only that object:
   * reported, and retried with backoff.
   */
  readonly map: Bivariant<(object: W, ctx: MapContext) => readonly RequestName[]>;
  /** Namespace of this watch; default the controller's namespace(s). */
  readonly namespace?: string;
  readonly labelSelector?: string;
  /** Watch metadata only (cheaper; `map` then sees `PartialObjectMetadata`). Default false. */
  readonly metadataOnly?: boolean;
  /** Filters of this watch's objects (`Apply` events; deletes pass), e.g. `labelsChanged()`. */
  readonly predicates?: readonly Bivariant<MonoTypeOperatorFunction<W>>[];
  /** Indexes of this watch's Store, by name (controller-runtime `IndexField`): see `CacheReader.list`. */
  readonly indexes?: Readonly<Record<string, Bivariant<Indexer<W>>>>;
}

/**
 * An owned child kind with options (a bare `ResourceType` means all defaults).
 *
 * ## Example
 * ```ts
 * const configMaps: ControllerOwns = { resource: { apiVersion: 'v1', kind: 'ConfigMap' }, metadataOnly: true };
 * controller({ for: widgetType, client, owns: [configMaps, { apiVersion: 'apps/v1', kind: 'Deployment' }] });
 * ```
 */
export interface ControllerOwns<C extends KubeObject = KubeObject> {
  readonly resource: ResourceType<C>;
  /**
   * Cache metadata only (`PartialObjectMetadata`: cheaper, but `ctx.owned()` then has no spec or
   * status). Default false: full objects, as controller-runtime's `Owns`.
   */
  readonly metadataOnly?: boolean;
  readonly labelSelector?: string;
  /** Filters of this kind's objects (`Apply` events; deletes pass), e.g. `generationChanged()`. */
  readonly predicates?: readonly Bivariant<MonoTypeOperatorFunction<C>>[];
  /** Indexes of this kind's Store, by name. */
  readonly indexes?: Readonly<Record<string, Bivariant<Indexer<C>>>>;
}

/**
 * Instrumentation of a controller: the workqueue hooks of its applier(s), `reset()` when a run
 * ends (cancelled reconciles never report `finished`), and `userCodeError(hook)` for every user
 * function that failed (`ControllerMetrics.observer(name)` implements all three).
 *
 * ## Example
 * ```ts
 * const metrics = new ControllerMetrics();
 * const observer: ControllerObserver = metrics.observer('widgets');
 * controller({ for: widgetType, client, observer });
 * ```
 */
export interface ControllerObserver extends RunByKeyObserver<string> {
  reset?(): void;
  userCodeError?(hook: UserCodeHook): void;
  /**
   * A reconcile "panicked" (`controller_runtime_reconcile_panics_total`): the reconcile function
   * threw synchronously, or returned something that is not an ObservableInput, instead of failing
   * through its result. Counted under `userCodeError('reconcile')` too.
   */
  panicked?(): void;
}

/**
 * The status of a primary object type (`Record<string, unknown>` when `T` does not say).
 *
 * ## Example
 * ```ts
 * type WidgetStatus = StatusOf<Widget>; // Widget's status type, or Record<string, unknown> when it has none
 * ```
 */
export type StatusOf<T extends KubeObject> =
  NonNullable<T['status']> extends object ? NonNullable<T['status']> : Record<string, unknown>;

/**
 * What a reconcile gets besides its request.
 *
 * Everything but `object`, `key`, `store` and `cache` is made when first read (accessors: most
 * reconciles read none of them), so a copy made with spread (`{ ...ctx }`) carries only those
 * four; read the others from `ctx` (destructuring, `const { apply, signal } = ctx`, works).
 *
 * ## Example
 * ```ts
 * const reconcile = (request: ObjectRef, ctx: ReconcileContext<Widget>) =>
 *   defer(async () => {
 *     ctx.log.info?.('reconciling', { key: ctx.key, children: ctx.owned(configMapType).length });
 *     await ctx.applyChildren([configMapFor(ctx.object)]);
 *     ctx.record({ type: 'Normal', reason: 'Synced', action: 'Reconcile', note: 'children applied' });
 *     return Action.awaitChange();
 *   });
 * ```
 */
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
  /**
   * The client (a {@link Client}: `KubeClient`, or a test's stub). Its writes (`create`, `replace`,
   * `patch`, `apply`, `delete`) go through the controller's write tracking like `ctx.apply` and
   * the others: their echoes do not rerun this reconcile and the next one sees them. Every call
   * rejects with `signal.reason` as soon as {@link signal} aborts.
   */
  readonly client: Client;
  /**
   * Aborted when this reconcile ends: it ran past `reconcileTimeoutMs` (the reason is a
   * `ReconcileTimeoutError`), it was cancelled (shutdown deadline, lost leadership), or it settled.
   * Pass it to your own I/O — `fetch(url, { signal: ctx.signal })` — so a hung call cannot hold
   * the key's worker; the context's own calls (`ctx.client`, `ctx.apply`, …) honour it already.
   * controller-runtime's `ctx` of `Reconcile(ctx, req)`.
   */
  readonly signal: AbortSignal;
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
  ) => Observable<StatusWriteOutcome<T>>;
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

/**
 * The reconcile: level-triggered, it reads `ctx.object`, never an event payload.
 *
 * ## Example
 * ```ts
 * const reconcile: ControllerReconcile<Widget> = (request, ctx) =>
 *   ctx.status({ status: { phase: 'Ready' } }).pipe(map(() => Action.requeue(300_000)));
 * controller({ for: widgetType, client, status: {} }).run(reconcile).subscribe();
 * ```
 */
export type ControllerReconcile<T extends KubeObject> = (
  request: ObjectRef,
  ctx: ReconcileContext<T>,
) => ObservableInput<Action>;

/**
 * Filters of {@link CacheReader.list} (controller-runtime's `InNamespace`, `MatchingLabels`, `MatchingFields`).
 *
 * ## Example
 * ```ts
 * const options: CacheListOptions = { namespace: 'shop', labelSelector: { app: 'web' } };
 * ctx.cache.list({ apiVersion: 'v1', kind: 'ConfigMap' }, options);
 * ```
 */
export interface CacheListOptions {
  /** Only this namespace. */
  readonly namespace?: string;
  /** `app=web,tier in (a,b)` or `{ app: 'web' }`. */
  readonly labelSelector?: LabelSelectorInput;
  /**
   * Index name → value, every one must match. Each name must be an index declared with the
   * registration (`indexes` of `for`, an `owns` entry or a `watches` entry), e.g.
   * `{ 'spec.configMapRef': 'ns/app-config' }`.
   */
  readonly matchingFields?: Readonly<Record<string, string>>;
}

/**
 * Cached reads of the kinds a controller watches (its primary kind, owned and mapped kinds). Typed
 * by the resource given (`ResourceType<Widget>` → `Widget`).
 *
 * ## Example
 * ```ts
 * type Deployment = Resource<{ replicas?: number }, { readyReplicas?: number }>;
 * declare const configMapsOf: (d: Deployment) => string[]; // the `namespace/name` of each ConfigMap it mounts
 * const deployments: ResourceType<Deployment> = { apiVersion: 'apps/v1', kind: 'Deployment' };
 * controller({ for: deployments, client,
 *   indexes: { configMaps: (d) => configMapsOf(d) },
 *   watches: [{ resource: configMapType,
 *     map: (cm, { cache }) => cache.list(deployments, { matchingFields: { configMaps: objectKey(cm) } })
 *       .map((d) => ({ namespace: d.metadata.namespace ?? '', name: d.metadata.name ?? '' })) }],
 * });
 * ```
 *
 * ## Semantics
 * - Reads never go to the API server; a kind the controller does not watch is refused
 *   (`InvalidArgumentError`), as is a field index that was not declared.
 * - Objects are the Store's (deep-frozen); inside a reconcile, an object the controller's own write
 *   replaced or deleted is shown as written (`get` also shows one it created).
 */
export interface CacheReader {
  /** The object named `ref` (`namespace/name`, `{ namespace, name }` or an object). */
  get<O extends KubeObject = KubeObject>(resource: ResourceType<O>, ref: StoreRef): O | undefined;
  /** The objects matching every filter given. A new array. */
  list<O extends KubeObject = KubeObject>(resource: ResourceType<O>, options?: CacheListOptions): O[];
  /** The Store(s) of a watched kind, or of one mapped watch given its `ControllerWatch`. */
  storeOf<O extends KubeObject = KubeObject>(resource: ResourceType<O> | ControllerWatch<O>): StoreReader<O>;
}

/**
 * Options of {@link controller}.
 *
 * ## Example
 * ```ts
 * const options: ControllerOptions<Widget> = {
 *   for: { apiVersion: 'example.com/v1', kind: 'Widget' },
 *   owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
 *   predicates: [generationChanged()],
 *   concurrency: 4,
 *   status: { patchType: 'merge' },
 *   client,
 * };
 * controller(options).run(reconcile).subscribe();
 * ```
 */
export interface ControllerOptions<T extends KubeObject> {
  /** The primary resource: each request names one of its objects. */
  readonly for: ResourceType<T>;
  /**
   * Owned child resources: a child event requests its controller owner
   * (`ownerReferences[controller=true]` of the `for` group and kind) in the child's namespace.
   * Full objects are cached by default (`{ resource, metadataOnly: true }` to save memory).
   */
  readonly owns?: readonly (ResourceType | ControllerOwns)[];
  /** Mapped watches. */
  readonly watches?: readonly ControllerWatch[];
  /**
   * The controller's name: in its log lines, user-code errors and `ctx.apply`'s default field
   * manager. The Manager sets it to the registration name.
   */
  readonly name?: string;
  /** Watch one namespace (primary, owned and, by default, mapped). Default: all namespaces. */
  readonly namespace?: string;
  /**
   * Watch these namespaces (one watch per namespace and kind, read as one cache). Exclusive with
   * `namespace`. Default: all namespaces.
   */
  readonly namespaces?: readonly string[];
  /** Label selector of the primary watch. */
  readonly labelSelector?: string;
  /** Indexes of the primary Store, by name (controller-runtime `IndexField`). */
  readonly indexes?: Readonly<Record<string, Indexer<T>>>;
  /** Reconciles in flight (per lane with `namespaceLanes`); integer >= 1. Default 1. */
  readonly concurrency?: number;
  /**
   * Deadline of one reconcile in ms, counted from its start after the caches synced
   * (controller-runtime's `ReconciliationTimeout`): past it the reconcile is cancelled,
   * `ctx.signal` aborts, and the request fails with a `ReconcileTimeoutError` — counted as a
   * user-code error (hook `reconcile`), logged, retried with the key's backoff — so a hung call
   * cannot hold a worker. `false` turns it off. Default {@link DEFAULT_RECONCILE_TIMEOUT_MS}.
   */
  readonly reconcileTimeoutMs?: number | false;
  /**
   * Per-key trailing debounce of requests, `maxWaitMs` bounding how long a hot key waits. Default:
   * 0 ms — triggers of one key that arrive in the same tick (a relist, a burst of watch lines)
   * coalesce into one request.
   */
  readonly debounce?: { readonly ms: number; readonly maxWaitMs?: number };
  /**
   * Filters of primary objects (`generationChanged()`, `labelsChanged()`, …), applied in order to
   * `Apply` objects (a relist's changed objects included). Deletes, resyncs and child or mapped
   * triggers bypass them. A predicate that throws lets its object through (reported).
   */
  readonly predicates?: readonly MonoTypeOperatorFunction<T>[];
  /**
   * One workqueue per namespace, each with `concurrency`: a busy namespace cannot starve the
   * others. A lane is released after `idleMs` (default {@link DEFAULT_LANE_IDLE_MS}) with nothing
   * to do. The retry rate limit (`rateLimit`) stays one limit shared by all lanes. Default off.
   */
  readonly namespaceLanes?: boolean | { readonly idleMs: number };
  /** Re-request every primary object in the Store every `resyncMs` (a `Resync` trigger). Default off. */
  readonly resyncMs?: number;
  /** Per-key error backoff and global retry rate limit: see `ApplierOptions` of `@rxkube/core`. */
  readonly backoff?: ApplierOptions<string>['backoff'];
  readonly rateLimit?: { readonly qps: number; readonly burst: number } | false;
  /** Randomness of the backoff jitter, `[0, 1]`; inject in tests. */
  readonly random?: () => number;
  /** Workqueue and user-code instrumentation, e.g. `new ControllerMetrics().observer('widgets')`. */
  readonly observer?: ControllerObserver;
  /**
   * The API client, handed to reconciles; watches use it too when no `registry` is given (then it
   * must be a `KubeClient`). With a `registry`, any {@link Client} will do — a test's stub client.
   * Every write of the controller goes through it: `ctx.client`, `ctx.apply`/`patch`/`create`/
   * `delete`, `ctx.applyChildren`, `ctx.status`, the finalizer's patches (docs/design.md, "Writes").
   * Left out, the context's writes reject, saying so.
   */
  readonly client?: Client;
  /** Where watches come from; share one between controllers. Default `new WatchRegistry(client)`. */
  readonly registry?: WatchRegistry;
  /** Logger; default: errors and warnings to the console. */
  readonly log?: ControllerLogger;
  /**
   * Log one line per failed reconcile through `log` (default true). The Manager turns it off: it
   * logs every outcome itself, once.
   */
  readonly logResults?: boolean;
  /** `managedFields` manager of `ctx.apply` (default: `name`, else `rxkube`). */
  readonly fieldManager?: string;
  /** Bounds of the memory of the controller's own writes (see `WriteTracker`). */
  readonly writeTracker?: WriteTrackerOptions;
  /**
   * Enables `ctx.status(…)`, written through `client` (`patch` of the `status` subresource, `get`
   * after a conflict): patch type, field manager, conflict retries.
   */
  readonly status?: StatusWriteOptions;
  /** A finalizer wrapped around the reconcile (added before it runs; `cleanup` on deletion). */
  readonly finalizer?: ControllerFinalizerOptions<T>;
  /**
   * Enables `ctx.record(event)`, and receives the finalizer's Warning Events. The controller keeps
   * `recorder.outcomes$` subscribed while it runs.
   */
  readonly recorder?: EventRecorder;
  /**
   * Graceful stop (docs/promises.md promise 10): when this emits, intake stops — no new trigger is taken,
   * debounced ones and reruns queued behind a running key are dropped (controller-runtime shuts
   * its queue down the same way) — reconciles in flight (and their writes) finish, then the run
   * completes. Unsubscribing instead cancels everything at once. The Manager passes its shutdown
   * signal here.
   */
  readonly shutdown?: ObservableInput<unknown>;
  /**
   * More requests, from a source of the caller's (kube-rs `reconcile_on`): each is reconciled like
   * a trigger of the primary object it names. The Manager's sharding requests a bucket's keys here
   * when it acquires the bucket.
   */
  readonly reconcileOn?: Observable<ObjectRef>;
  /**
   * Wraps the whole work of a key (finalizer included) once its object is read: return `work` (or
   * an Observable around it) to run it, `undefined` to skip the key (outcome `skipped`). The
   * Manager's sharding admits only keys of buckets whose fence it holds. Default: all admitted.
   */
  readonly admit?: (object: T, work: Observable<Action>) => Observable<Action> | undefined;
  /**
   * Traces every reconcile (`reconcileTracing(tracer)` from `@rxkube/kube/trace`): a root span per
   * reconcile, a child span per API request it makes. Default: off, and nothing of OpenTelemetry
   * is loaded.
   */
  readonly tracing?: ReconcileTracing;
}

/**
 * Options of the controller's finalizer (`options.finalizer`); see `finalizer()`.
 *
 * ## Example
 * ```ts
 * const finalizer: ControllerFinalizerOptions<Widget> = {
 *   name: 'example.com/cleanup',
 *   cleanup: (widget, ctx) => deleteBucket(widget, ctx.client), // idempotent: succeeds when already gone
 *   stuck: { failures: 5 },
 * };
 * controller({ for: widgetType, client, finalizer }).run(reconcile).subscribe();
 * ```
 */
export interface ControllerFinalizerOptions<T extends KubeObject> {
  /** Domain-qualified finalizer name, e.g. `example.com/cleanup`. */
  readonly name: string;
  /** Runs when the object is being deleted; must be idempotent (it reruns after any failure). */
  readonly cleanup: (object: T, ctx: ReconcileContext<T>) => ObservableInput<unknown>;
  /** `managedFields` manager of the finalizer's patches (sent through `options.client`). */
  readonly fieldManager?: string;
  readonly stuck?: { readonly failures?: number; readonly afterMs?: number };
  readonly onStuck?: (stuck: StuckFinalizer<T>) => void;
}
