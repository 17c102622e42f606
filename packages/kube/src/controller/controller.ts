/**
 * `controller()`: the API operator authors use. kube-rs `Controller::new(api).owns(..).watches(..)
 * .run(reconcile, ..)` and controller-runtime's builder, as one options object and
 * `run(reconcile)`. It reads top to bottom as stages, each in its own file:
 *
 *   validate-options → watches (Stores, indexes) → triggers (hold · relist gate · echo · predicates ·
 *   primary / owned / mapped) → queue (debounce · shutdown · applier or lanes) → reconcile-work
 *   (cache sync · read-own-writes · finalizer-stage · context) → report
 *
 * One {@link WriteTracker} per run keeps docs/promises.md promise 7: every write made through the context
 * (status, finalizer, apply/patch/create/delete) is tracked, its echo does not rerun the reconcile
 * that made it, and the next reconcile sees it. It does not elect a leader (the Manager does).
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import type { SchedulerLike } from 'rxjs';
import {
  asyncScheduler,
  combineLatest,
  defer,
  EMPTY,
  filter,
  from,
  ignoreElements,
  mergeMap,
  merge,
  Observable,
  Subject,
  take,
  takeUntil,
  throwError,
} from 'rxjs';

import type { Client } from '../client/client.js';
import type { KubeClient } from '../client/kube-client.js';
import { WriteTracker } from '../sink/write-tracker.js';
import type { StoreReader } from '../reflector/store-reader.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import type { KubeObject, ResourceType } from '../types.js';
import { WatchRegistry } from '../reflector/watch-registry.js';
import { cacheReader } from './cache-reader.js';
import { reconcileContext } from './context.js';
import { finalizerStage } from './finalizer-stage.js';
import { IdleTracker } from './idle.js';
import type {
  CacheReader,
  ControllerLogger,
  ControllerOptions,
  ControllerReconcile,
  ControllerWatch,
} from './options.js';
import { queue } from './queue.js';
import { reconcileWork } from './reconcile-work.js';
import type { ControllerResult } from './report.js';
import { logResult, toControllerResult } from './report.js';
import { requests } from './triggers.js';
import { traceHooks } from './trace-hooks.js';
import { userCodeReporter } from './user-code.js';
import {
  builtinNamespaced,
  ownerScopeRefusal,
  ownerScopeRefusalByDiscovery,
  ownerScopesNeedDiscovery,
} from './owner-scopes.js';
import { planController } from './validate-options.js';
import type { ControllerPlan } from './validate-options.js';
import type { WatchedKinds } from './watches.js';
import { watchedKinds } from './watches.js';

/**
 * The Stores of a controller's watched kinds (shared through its registry).
 *
 * ## Example
 * ```ts
 * const widgets = controller<Widget>({ for: widgetType, owns: [configMapType], client });
 * widgets.run(reconcile).subscribe();
 * widgets.stores.primary.ready; // true once the first list of widgets completed
 * widgets.stores.of(configMapType).size; // ConfigMaps cached for the owns entry
 * ```
 */
export interface ControllerStores<T extends KubeObject> {
  /** The primary kind (every namespace the controller watches). */
  readonly primary: StoreReader<T>;
  /**
   * The Store(s) of a watched kind, or of one mapped watch given its `ControllerWatch`.
   * @throws {InvalidArgumentError} for a kind not watched, or watched twice (pass the watch then).
   */
  of<O extends KubeObject = KubeObject>(resource: ResourceType<O> | ControllerWatch<O>): StoreReader<O>;
  /** Every watched kind with its Store(s): primary, owned, mapped. */
  readonly all: readonly {
    readonly resource: ResourceType;
    readonly role: 'primary' | 'owned' | 'mapped';
    readonly store: StoreReader;
  }[];
}

/**
 * A configured controller; `run` starts it.
 *
 * ## Example
 * ```ts
 * const widgets: Controller<Widget> = controller({ for: widgetType, client, name: 'widgets' });
 * widgets.run((request, ctx) => of(Action.awaitChange())).subscribe((r) => console.log(r.key, r.outcome));
 * await firstValueFrom(widgets.idle$.pipe(filter(Boolean))); // e.g. in a test: wait until nothing is pending
 * ```
 */
export interface Controller<T extends KubeObject> {
  /** `options.name`. */
  readonly name: string | undefined;
  /**
   * Every watch this controller uses (primary, owned, mapped; one per namespace), as the registry
   * keys them: the Manager keeps them warm on standby replicas and checks their sync and health.
   */
  readonly targets: readonly WatchTarget[];
  /** The Stores of every watched kind (empty and not ready until a run or the registry lists them). */
  readonly stores: ControllerStores<T>;
  /** Cached reads of every watched kind (no read-own-writes outside a reconcile). */
  readonly cache: CacheReader;
  /**
   * `true` while nothing is queued, running, waiting for a retry, a requeue or a debounce, no relist
   * is being gathered and no map retry waits — across every run of this controller. Replays the
   * current value; emits on change.
   */
  readonly idle$: Observable<boolean>;
  /** The current value of {@link idle$}. */
  readonly idle: boolean;
  /**
   * Runs `reconcile` for every request until unsubscribed; emits one {@link ControllerResult} per
   * request handled. Cold: each subscription runs the controller once.
   */
  run(reconcile: ControllerReconcile<T>): Observable<ControllerResult>;
}

const consoleLogger: ControllerLogger = {
  warn: (message, fields) => console.warn(message, fields),
  error: (message, fields) => console.error(message, fields),
};

/**
 * Builds a controller: watches of the primary resource, its owned children and mapped resources,
 * turned into requests for a level-triggered reconcile.
 *
 * ## Example
 * ```ts
 * const results$ = controller<Widget>({
 *   for: { apiVersion: 'example.com/v1', kind: 'Widget' },
 *   owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
 *   predicates: [generationChanged()],
 *   concurrency: 4,
 *   client,
 * }).run((request, ctx) =>
 *   defer(async () => {
 *     await ctx.applyChildren([configMapFor(ctx.object)]); // tracked: its echo reruns nothing
 *     return Action.requeue(300_000);
 *   }),
 * );
 * const sub = results$.subscribe((r) => log.debug({ key: r.key, outcome: r.outcome }, 'reconciled')); // unsubscribe = stop
 * ```
 *
 * ## Semantics
 * - Triggers: primary `Apply`s (after `predicates`), `Delete`s and `Resync`s → the object's request;
 *   owned children → their controller owner's request; mapped watches → `map(object, ctx)`. A
 *   (re)list's objects trigger at its `InitDone` (so the reconcile reads the new list), and after
 *   the first list only those that changed or appeared while the watch was away.
 * - The echo of a write the controller made through `ctx` does not request the reconcile that made
 *   it (other keys it maps to are still requested).
 * - Pipeline: triggers → per-key debounce (0 ms unless set: a same-tick burst coalesces) →
 *   (namespace lanes) → `applier`. Requests are keyed by `namespace/name`.
 * - Reconcile: waits until every Store of the controller is ready (WaitForCacheSync), then reads
 *   the object from the primary Store (or our newer write of it). Gone → outcome `skipped`, the
 *   reconcile is not called. Present (also while being finalized) → `reconcile(request, ctx)`; its
 *   first value is the Action.
 * - Errors: a reconcile that throws or errors is retried with per-key exponential backoff and the
 *   global rate limit; a `TerminalError` is not retried. User code that throws (reconcile, map,
 *   predicate, indexer, cleanup, status recipe) fails only the key or object it ran for: counted
 *   (`observer.userCodeError`) and logged once.
 * - unsubscribe: reconciles in flight are unsubscribed, timers cancelled, watches released (a
 *   shared watch stops once no controller uses it).
 * - complete / error: never completes on its own (watches never end) unless `shutdown` drained it.
 *
 * ## Guarantees
 * - At most one reconcile per key at a time; at most `concurrency` (per lane) overall; a trigger
 *   for a busy key coalesces into one rerun with the latest object.
 * - No reconcile before the caches are synced; never for an object the Store no longer has; never
 *   on a list the relist is still replacing.
 *
 * ## Memory
 * The Stores (shared through the registry); the applier's per-key state until the key is idle;
 * predicate memory (their ttl); debounce entries while pending; a relist's changed objects until
 * its `InitDone`; the write tracker (bounded, see `WriteTracker`); one entry per namespace lane.
 *
 * @param options see {@link ControllerOptions}.
 * @param scheduler time source of debounce, backoff, requeue, lanes and resync; `TestScheduler.run`
 *   virtualises it.
 * @throws {InvalidArgumentError} synchronously for an unusable option, and for an `owns` entry of a
 *   built-in cluster-scoped kind under a namespaced `for` kind (a custom kind's scope is checked
 *   through discovery when the run starts: the run errors with the same error).
 */
export function controller<T extends KubeObject = KubeObject>(
  options: ControllerOptions<T>,
  scheduler: SchedulerLike = asyncScheduler,
): Controller<T> {
  const plan = planController(options);
  const operator = plan.name !== undefined ? `controller("${plan.name}")` : 'controller';
  const owns = options.owns ?? [];
  const refused = ownerScopeRefusal(operator, options.for, owns, builtinNamespaced);
  if (refused !== undefined) throw refused;
  const registry = options.registry ?? new WatchRegistry(options.client as KubeClient, {}, scheduler);
  const log = options.log ?? consoleLogger;
  const report = userCodeReporter(plan.name, log, options.observer);
  const kinds = watchedKinds(plan, registry, report);
  const idle = new IdleTracker(scheduler);
  const run = (reconcile: ControllerReconcile<T>): Observable<ControllerResult> => {
    if (typeof reconcile !== 'function') {
      throw new InvalidArgumentError(
        'controller.run',
        'reconcile',
        reconcile,
        'must be a function (request, ctx) => ObservableInput<Action>',
      );
    }
    const run$ = defer(() => runOnce({ options, plan, kinds, idle, log, report, reconcile, scheduler }));
    // Kinds the built-in table does not know (custom resources): discovery decides, alongside the
    // run (nothing waits for it); an impossible `owns` ends the run with the same error.
    const discovery = (options.client as Partial<Client> | undefined)?.discovery;
    if (!ownerScopesNeedDiscovery(options.for, owns) || typeof discovery?.resolve !== 'function') return run$;
    const refusal$ = defer(() =>
      ownerScopeRefusalByDiscovery(operator, options.for, owns, (t) => discovery.resolve(t)),
    ).pipe(
      mergeMap((error) => (error === undefined ? EMPTY : throwError(() => error))),
      ignoreElements(),
    );
    return merge(refusal$, run$);
  };
  return {
    name: plan.name,
    targets: kinds.all.flatMap((k) => k.plan.targets),
    stores: {
      primary: kinds.primary.store,
      of: <O extends KubeObject>(resource: ResourceType<O> | ControllerWatch<O>) =>
        kinds.find(resource, 'Controller.stores.of').store as unknown as StoreReader<O>,
      all: kinds.all.map((k) => ({ resource: k.plan.resource, role: k.plan.role, store: k.store })),
    },
    cache: cacheReader(kinds, undefined, 'Controller.cache'),
    idle$: idle.idle$,
    get idle() {
      return idle.idle;
    },
    run,
  };
}

interface RunDeps<T extends KubeObject> {
  readonly options: ControllerOptions<T>;
  readonly plan: ControllerPlan<T>;
  readonly kinds: WatchedKinds<T>;
  readonly idle: IdleTracker;
  readonly log: ControllerLogger;
  readonly report: ReturnType<typeof userCodeReporter>;
  readonly reconcile: ControllerReconcile<T>;
  readonly scheduler: SchedulerLike;
}

/** One run: the stages wired together. */
function runOnce<T extends KubeObject>(deps: RunDeps<T>): Observable<ControllerResult> {
  const { options, plan, kinds, scheduler } = deps;
  const tracker = new WriteTracker(options.writeTracker ?? {}, scheduler);
  const cache = cacheReader(kinds, tracker, 'ReconcileContext.cache');
  const client = options.client;
  const stores = kinds.all.flatMap((k) => k.parts.map((p) => p.store));
  const synced$ = combineLatest(stores.map((s) => s.ready$)).pipe(
    filter((ready) => ready.every(Boolean)),
    take(1),
  );
  const synced = (): boolean => stores.every((s) => s.ready);
  const traces = traceHooks(options.tracing, plan, kinds, tracker);
  const triggered$ = requests({
    plan,
    kinds,
    tracker,
    report: deps.report,
    log: deps.log,
    idle: deps.idle,
    mapContext: { cache, client: client as Client },
    random: options.random,
    scheduler,
    onTrigger: traces?.onTrigger,
  });
  const requests$ =
    options.reconcileOn === undefined
      ? triggered$
      : merge(triggered$, traces === undefined ? options.reconcileOn : traces.requested(options.reconcileOn));
  const recorder = options.recorder;
  const contextDeps = (key: string) => ({
    kinds,
    cache,
    tracker,
    client: traces === undefined || client === undefined ? client : traces.clientOf(key, client),
    log: deps.log,
    fieldManager: plan.fieldManager,
    status: plan.status,
    record:
      recorder === undefined
        ? undefined
        : (object: T, event: Parameters<typeof recorder.record>[1]) => recorder.record(object, event),
    scheduler,
    requests: traces?.requestsOf(key),
  });
  // untraced, the deps are the same for every key: built once, not per reconcile
  const untracedDeps = traces === undefined ? contextDeps('') : undefined;
  const contextOf = (key: string, object: T, signalOf: () => AbortSignal) =>
    reconcileContext<T>(untracedDeps ?? contextDeps(key), key, object, signalOf);
  const fin = options.finalizer;
  const untraced = reconcileWork<T>({
    controller: plan.name,
    primary: kinds.primary,
    tracker,
    synced$,
    synced,
    contextOf,
    reconcile: traces === undefined ? deps.reconcile : traces.reconcile(deps.reconcile),
    finalizer:
      fin === undefined
        ? undefined
        : {
            name: fin.name,
            cleanup: fin.cleanup,
            run: finalizerStage(fin, {
              client,
              tracker,
              events: recorder,
              log: deps.log,
              controller: plan.name,
              scheduler,
            }),
          },
    report: deps.report,
    shutdown$: options.shutdown === undefined ? undefined : from(options.shutdown),
    timeoutMs: plan.reconcileTimeoutMs,
    scheduler,
    admit: options.admit,
  });
  const work = traces === undefined ? untraced : traces.work(untraced);
  /** Emits once the applier drained after a shutdown; the recorder stops then. */
  const drained = new Subject<void>();
  const queued$ = queue(requests$, {
    plan: plan as unknown as ControllerPlan<never>,
    work,
    observer: traces === undefined ? options.observer : traces.observer(options.observer),
    idle: deps.idle,
    shutdown: options.shutdown,
    scheduler,
  });
  const resultName = plan.name ?? plan.primary.resource.kind.toLowerCase();
  // One stage per result instead of map · tap · merge · finalize (issue 21, the lean event path).
  return new Observable<ControllerResult>((subscriber) => {
    // The recorder runs until the applier drained after a shutdown (subscribed first, as it was
    // merged first: a run that drains at once still stops it).
    const recording =
      recorder === undefined
        ? undefined
        : recorder.outcomes$.pipe(takeUntil(drained)).subscribe({
            error: (error: unknown) => subscriber.error(error),
          });
    const results = queued$.subscribe({
      next: (raw) => {
        const r = toControllerResult(raw, resultName);
        traces?.ended(r);
        if (plan.logResults) logResult(deps.log, plan.name, r);
        subscriber.next(r);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        drained.next();
        subscriber.complete();
      },
    });
    return () => {
      results.unsubscribe();
      recording?.unsubscribe();
      traces?.cancelled();
      options.observer?.reset?.();
    };
  });
}

export type { ControllerResult } from './report.js';
export type {
  CacheListOptions,
  CacheReader,
  ControllerReconcile,
  ReconcileContext,
  StatusOf,
  ControllerFinalizerOptions,
  ControllerLogger,
  ControllerObserver,
  ControllerOptions,
  ControllerOwns,
  ControllerWatch,
  MapContext,
  RequestName,
} from './options.js';
