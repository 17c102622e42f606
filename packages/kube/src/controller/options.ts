/**
 * The options of `controller()` and the shapes its reconcile and map functions receive. Types only;
 * `validate-options.ts` checks them and turns them into a plan.
 *
 * @module
 */
import type { ApplierOptions, RunByKeyObserver } from '@rxkube/core';
import type { MonoTypeOperatorFunction, ObservableInput } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import type { EventRecorder } from '../events/event-recorder.js';
import type { StuckFinalizer } from '../finalizer/finalizer.js';
import type { FinalizerPort } from '../finalizer/finalizer-port.js';
import type { Indexer } from '../reflector/store.js';
import type { WatchRegistry } from '../reflector/watch-registry.js';
import type { StatusPort } from '../sink/status-port.js';
import type { StatusWriteOptions } from '../sink/status-write.js';
import type { WriteTrackerOptions } from '../sink/write-tracker.js';
import type { KubeObject, ResourceType } from '../types.js';
import type { UserCodeHook } from '../user-code-error.js';
import type { CacheReader } from './cache-reader.js';
import type { ReconcileContext } from './context.js';

/** Default idle time after which an empty namespace lane is released. */
export const DEFAULT_LANE_IDLE_MS = 300_000;

/** A logger; every method optional. `fields` always carries `key` for per-object lines. */
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

/** Names the object a mapped watch event concerns (its `apiVersion`/`kind` are the `for` resource's). */
export interface RequestName {
  readonly namespace?: string;
  readonly name: string;
}

/**
 * What a `watches[].map` function gets besides the object (controller-runtime's map functions get
 * a client and the cache): the cache over every kind the controller watches — its primary kind
 * included, across every namespace it watches — and the client.
 */
export interface MapContext {
  /** Cached reads of every watched kind (see {@link CacheReader}). */
  readonly cache: CacheReader;
  /** The API client (prefer the cache: a map runs for every event). */
  readonly client: KubeClient;
}

/**
 * A mapped watch (controller-runtime `Watches(obj, EnqueueRequestsFromMapFunc)`, kube-rs
 * `watches`): events of `resource` request the primary objects `map` names.
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

/** An owned child kind with options (a bare `ResourceType` means all defaults). */
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
 */
export interface ControllerObserver extends RunByKeyObserver<string> {
  reset?(): void;
  userCodeError?(hook: UserCodeHook): void;
}

/** Options of {@link controller}. */
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
   * The API client, handed to reconciles (and used for watches when no `registry` is given).
   * Optional when `registry` and the `status`/`finalizer` ports are given (marble tests); the
   * context's writes then reject, saying so.
   */
  readonly client?: KubeClient;
  /** Where watches come from; share one between controllers. Default `createWatchRegistry(client)`. */
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
  /** Enables `ctx.status(…)`. See {@link ControllerStatusOptions}. */
  readonly status?: ControllerStatusOptions<T>;
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
}

/** Options of the controller's status writes (`options.status`). */
export interface ControllerStatusOptions<T extends KubeObject> extends StatusWriteOptions {
  /** Default `statusPortFromClient(client, { fieldManager })`; give one to observe or fake the writes. */
  readonly port?: StatusPort<T>;
  /** `managedFields` manager of the default port. */
  readonly fieldManager?: string;
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
