/**
 * Triggers: which requests (objects of the `for` kind) the events of each watched kind stand for.
 * Per watch: hold events of objects being written → relist gate → echo recognition → predicates
 * (isolated) → the kind's mapping (primary: itself; owned: its controller owner; mapped: `map`,
 * isolated and retried). The request of the reconcile that made a write is dropped from that
 * write's echo.
 *
 * @module
 */
import { PerKeyBackoff } from '@rxkube/core';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import { concat, connect, filter, from, map, merge, mergeMap, Observable as Rx } from 'rxjs';

import { resync } from '../reflector/resync.js';
import type { ResyncEvent } from '../reflector/resync.js';
import type { WriteTracker } from '../sink/write-tracker.js';
import type { KubeObject, ObjectRef, OwnerReference, ResourceType, WatchEvent } from '../types.js';
import { objectKey } from '../types.js';
import { UserCodeError } from '../user-code-error.js';
import { fanOut } from './fan-out.js';
import { holdWhileWriting } from './hold-while-writing.js';
import type { IdleTracker } from './idle.js';
import type { ControllerLogger, MapContext, RequestName } from './options.js';
import type { Trigger } from './relist-gate.js';
import { relistGate } from './relist-gate.js';
import type { UserCodeReporter } from './user-code.js';
import { isolatePredicate } from './user-code.js';
import type { ControllerPlan } from './validate-options.js';
import type { WatchedKind, WatchedKinds } from './watches.js';
import { groupOf } from './watches.js';

/** A trigger, with the reconcile that wrote it when it is the echo of one of our writes. */
interface Annotated<O extends KubeObject = KubeObject> extends Trigger<O> {
  /** Set for our own echoes: the writer's key (`*` when the write named none). */
  readonly writer?: string;
}

/** Everything the trigger stage needs. */
export interface TriggerDeps<T extends KubeObject> {
  readonly plan: ControllerPlan<T>;
  readonly kinds: WatchedKinds<T>;
  readonly tracker: WriteTracker;
  readonly report: UserCodeReporter;
  /** Where a recovered streak of map failures is told (optional). */
  readonly log?: ControllerLogger;
  readonly idle: IdleTracker;
  readonly mapContext: MapContext;
  readonly random: (() => number) | undefined;
  readonly scheduler: SchedulerLike;
  /** Told each request with the watch role and the trigger it came from (tracing; optional). */
  readonly onTrigger?: ((request: ObjectRef, role: TriggerRole, trigger: Trigger) => void) | undefined;
}

/** Which watch a trigger came from. */
export type TriggerRole = 'primary' | 'owned' | 'mapped';

/** Every request the controller's watches stand for. */
export function requests<T extends KubeObject>(deps: TriggerDeps<T>): Observable<ObjectRef> {
  const { kinds } = deps;
  return merge(
    primaryRequests(kinds.primary as unknown as WatchedKind, deps),
    ...kinds.owned.map((k) => ownedRequests(k, deps)),
    ...kinds.mapped.map((k) => mappedRequests(k, deps)),
  );
}

function primaryRequests<T extends KubeObject>(
  kind: WatchedKind,
  deps: TriggerDeps<T>,
): Observable<ObjectRef> {
  const forType = deps.plan.primary.resource;
  return triggersOf(kind, deps, deps.plan.resyncMs).pipe(
    fanOut((t) =>
      noted(deps, 'primary', t, [
        requestOf(forType, t.object.metadata.namespace, t.object.metadata.name ?? ''),
      ]),
    ),
  );
}

function ownedRequests<T extends KubeObject>(kind: WatchedKind, deps: TriggerDeps<T>): Observable<ObjectRef> {
  const forType = deps.plan.primary.resource;
  const scope = ownerScope(deps);
  const requestsOf = (t: Annotated, as: OwnerScope | undefined): readonly ObjectRef[] => {
    const requests = ownerRequestsOf(forType, t.object, as);
    return requests.length === 0 ? [] : noted(deps, 'owned', t, requests);
  };
  return triggersOf(kind, deps).pipe(
    fanOut((t) => {
      const now = scope.now();
      const answered = scope.answered;
      if (now !== undefined || answered === undefined) return requestsOf(t, now);
      // Seen before the owner kind's scope is known: the namespaced owner at once (the common
      // case, and its request joins the first reconcile's), the cluster-scoped one only if
      // discovery then says so or cannot tell — never a request naming nothing for a namespaced
      // owner kind, which would end as a `skipped` result.
      return concat(
        requestsOf(t, 'namespaced'),
        from(answered).pipe(mergeMap(() => (scope.now() === 'namespaced' ? [] : requestsOf(t, 'cluster')))),
      );
    }),
  );
}

/** Whether the owner (`for`) kind is cluster-scoped. */
type OwnerScope = 'cluster' | 'namespaced';

/**
 * Whether the `for` kind is cluster-scoped, as far as is known (`now()`): from the primary Store's
 * objects (a namespaced kind's objects carry a namespace), else from discovery once it answered;
 * `undefined` while neither knows. `answered` settles when discovery has answered (or failed);
 * `undefined` without a discovery to ask.
 */
function ownerScope<T extends KubeObject>(
  deps: TriggerDeps<T>,
): { now: () => 'cluster' | 'namespaced' | undefined; answered: Promise<void> | undefined } {
  const primary = deps.kinds.primary;
  let known: 'cluster' | 'namespaced' | undefined;
  // A controller built without a client (marble tests) has none to ask.
  const discovery = (deps.mapContext.client as Partial<MapContext['client']> | undefined)?.discovery;
  const answered =
    typeof discovery?.resolve === 'function'
      ? discovery.resolve(deps.plan.primary.resource).then(
          (r) => {
            known = r.namespaced ? 'namespaced' : 'cluster';
          },
          () => undefined, // not served yet: the Store answers once it holds an object
        )
      : undefined;
  const now = (): 'cluster' | 'namespaced' | undefined => {
    if (known !== undefined) return known;
    // Store keys are `namespace/name` or, cluster-scoped, `name` (names never hold a `/`).
    const first = primary.store.keys().next();
    if (first.done === true) return undefined;
    known = first.value.includes('/') ? 'namespaced' : 'cluster';
    return known;
  };
  return { now, answered };
}

/** Requests of a mapped watch: `map` per trigger; a map that throws is reported and retried with backoff. */
function mappedRequests<T extends KubeObject>(
  kind: WatchedKind,
  deps: TriggerDeps<T>,
): Observable<ObjectRef> {
  const forType = deps.plan.primary.resource;
  const watch = kind.plan.watch;
  if (watch === undefined) throw new Error('a mapped kind without its watch (bug)');
  const triggers$ = triggersOf(kind, deps);
  return new Rx<ObjectRef>((subscriber) => {
    const backoff = new PerKeyBackoff<string>({
      ...deps.plan.applier.backoff,
      ...(deps.random !== undefined ? { random: deps.random } : {}),
    });
    const retries = new Map<string, Subscription>();
    /** Failures in a row per key: a streak is logged once, when it starts (issue 19 §5). */
    const failing = new Map<string, number>();
    const pending = deps.idle.source();
    const cancel = (key: string): void => {
      retries.get(key)?.unsubscribe();
      retries.delete(key);
      pending.set(retries.size);
    };
    const run = (t: Annotated): void => {
      const key = objectKey(t.object);
      let names: readonly RequestName[];
      try {
        names = checkNames(watch.map(t.object, deps.mapContext));
      } catch (error) {
        const failure = new UserCodeError('map', error, {
          ...(deps.plan.name !== undefined ? { controller: deps.plan.name } : {}),
          key,
        });
        const streak = (failing.get(key) ?? 0) + 1;
        failing.set(key, streak);
        if (streak === 1) deps.report(failure);
        else deps.report.count(failure); // counted, not logged again until it recovered

        retries.set(
          key,
          deps.scheduler.schedule(() => {
            retries.delete(key);
            pending.set(retries.size);
            // The object as it is now (a deleted one as it was last seen).
            const now = t.type === 'Delete' ? undefined : kind.store.get(key);
            run(now === undefined ? t : { type: 'Apply', object: now });
          }, backoff.next(key)),
        );
        pending.set(retries.size);
        return;
      }
      backoff.reset(key);
      const streak = failing.get(key);
      if (streak !== undefined) {
        failing.delete(key);
        deps.log?.info?.(`map succeeded again for "${key}" after ${streak} failure(s)`, {
          ...(deps.plan.name !== undefined ? { controller: deps.plan.name } : {}),
          key,
          hook: 'map',
          failures: streak,
        });
      }
      for (const r of noted(
        deps,
        'mapped',
        t,
        names.map((n) => requestOf(forType, n.namespace, n.name)),
      )) {
        subscriber.next(r);
      }
    };
    const upstream = triggers$.subscribe({
      next: (t) => {
        cancel(objectKey(t.object));
        run(t);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    });
    return () => {
      upstream.unsubscribe();
      for (const r of retries.values()) r.unsubscribe();
      retries.clear();
      failing.clear();
      pending.release();
    };
  });
}

/**
 * The triggers of one watched kind: each namespace's events through the write hold and the relist
 * gate, merged; our echoes annotated; `Apply`s through the kind's predicates (isolated).
 */
function triggersOf<T extends KubeObject>(
  kind: WatchedKind,
  deps: TriggerDeps<T>,
  resyncMs?: number,
): Observable<Annotated> {
  const resource = kind.plan.resource;
  const parts = kind.parts.map((part) => {
    const held = deps.idle.source();
    let events$: Observable<WatchEvent | ResyncEvent> = part.shared.events$.pipe(
      holdWhileWriting<WatchEvent>(deps.tracker, resource),
    );
    if (resyncMs !== undefined) {
      events$ = part.shared.events$.pipe(
        resync(resyncMs, part.store, deps.scheduler),
        holdWhileWriting<WatchEvent | ResyncEvent>(deps.tracker, resource),
      );
    }
    return new Rx<Annotated>((subscriber) => {
      const sub = events$
        .pipe(
          relistGate(
            part.store,
            (n) => held.set(n),
            (t) => annotate(t, deps.tracker, resource),
          ),
        )
        .subscribe(subscriber);
      return () => {
        sub.unsubscribe();
        held.release();
      };
    });
  });
  // echoes annotated by the relist gate itself (no map stage per event)
  const annotated$ = merge(...parts);
  const predicates = kind.plan.predicates;
  if (predicates.length === 0) return annotated$;
  return annotated$.pipe(
    connect((t$) => {
      const annotations = new WeakMap<object, Annotated>();
      let applied$ = t$.pipe(
        filter((t) => t.type === 'Apply'),
        map((t) => {
          annotations.set(t.object, t);
          return t.object;
        }),
      );
      for (const predicate of predicates) {
        applied$ = applied$.pipe(
          isolatePredicate(predicate, (error, object) => {
            deps.report(
              new UserCodeError('predicate', error, {
                ...(deps.plan.name !== undefined ? { controller: deps.plan.name } : {}),
                ...(object !== undefined ? { key: objectKey(object) } : {}),
              }),
            );
          }),
        );
      }
      return merge(
        applied$.pipe(map((object): Annotated => annotations.get(object) ?? { type: 'Apply', object })),
        t$.pipe(filter((t) => t.type !== 'Apply')),
      );
    }),
  );
}

/** Recognises the echo of one of our writes (an `Apply` with our resourceVersion, a `Delete` of ours). */
function annotate(t: Trigger, tracker: WriteTracker, resource: ResourceType): Annotated {
  if (t.type === 'Resync') return t;
  const echo =
    t.type === 'Apply' ? tracker.takeEcho(t.object, resource) : tracker.takeDeleteEcho(t.object, resource);
  return echo === undefined ? t : { ...t, writer: echo.writer ?? '*' };
}

/** `requests` without the one of the reconcile whose own write this trigger echoes. */
/** {@link dropWriter}, each request left told to `deps.onTrigger`. */
function noted<T extends KubeObject>(
  deps: TriggerDeps<T>,
  role: TriggerRole,
  t: Annotated,
  requests: readonly ObjectRef[],
): readonly ObjectRef[] {
  const left = dropWriter(t, requests);
  const note = deps.onTrigger;
  if (note !== undefined) for (const r of left) note(r, role, t);
  return left;
}

function dropWriter(t: Annotated, requests: readonly ObjectRef[]): readonly ObjectRef[] {
  if (t.writer === undefined) return requests;
  if (t.writer === '*') return [];
  return requests.filter((r) => objectKey(r) !== t.writer);
}

function checkNames(names: unknown): readonly RequestName[] {
  if (
    !Array.isArray(names) ||
    !names.every((n) => n !== null && typeof n === 'object' && typeof (n as RequestName).name === 'string')
  ) {
    throw new TypeError(
      `map returned ${JSON.stringify(names) ?? String(names)}, not an array of { namespace?, name }`,
    );
  }
  return names as readonly RequestName[];
}

/** The request of `resource` named `name` in `namespace` (cluster-scoped when `namespace` is empty). */
export function requestOf(resource: ResourceType, namespace: string | undefined, name: string): ObjectRef {
  // two literals rather than a spread: no intermediate object per request
  return namespace !== undefined && namespace !== ''
    ? { apiVersion: resource.apiVersion, kind: resource.kind, namespace, name }
    : { apiVersion: resource.apiVersion, kind: resource.kind, name };
}

/**
 * The request(s) of an owned child: its controller owner reference (`controller: true`) when that
 * owner is of the `for` kind (same group and kind; any version of the group matches, as
 * controller-runtime's `EnqueueRequestForOwner` with `OnlyControllerOwner` does). A namespaced
 * owner is in the child's namespace (Kubernetes only allows namespaced owners from the same
 * namespace); a cluster-scoped owner's request has no namespace (issue 18 §1). While the owner
 * kind's scope is not known (`undefined`: no discovery to ask), both are requested: the one naming
 * no object is skipped.
 */
export function ownerRequestsOf(
  owner: ResourceType,
  child: KubeObject,
  scope: 'cluster' | 'namespaced' | undefined,
): ObjectRef[] {
  const refs: readonly OwnerReference[] | undefined = child.metadata.ownerReferences;
  if (refs === undefined) return [];
  const group = groupOf(owner.apiVersion);
  const ref = refs.find(
    (r) => r.controller === true && r.kind === owner.kind && groupOf(r.apiVersion) === group,
  );
  if (ref === undefined) return [];
  const namespace = child.metadata.namespace;
  if (scope === 'cluster' || namespace === undefined || namespace === '')
    return [requestOf(owner, undefined, ref.name)];
  if (scope === 'namespaced') return [requestOf(owner, namespace, ref.name)];
  return [requestOf(owner, namespace, ref.name), requestOf(owner, undefined, ref.name)];
}
