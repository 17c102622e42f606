/**
 * The reconcile context: what a reconcile gets besides its request — the object (read-own-writes),
 * the Stores and the cache, and writes that go through the controller's {@link WriteTracker} so
 * their echoes do not rerun the reconcile and the next reconcile sees them.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import { firstValueFrom, from, last, tap, throwError } from 'rxjs';
import type { Observable, SchedulerLike } from 'rxjs';

import { applyChildren } from '../children/apply-children.js';
import type { Client } from '../client/client.js';
import type {
  ApplyOptions,
  DeleteOptions,
  ObjectLike,
  Patch,
  PatchOptions,
  WriteOptions,
} from '../client/verb-options.js';
import type { EventRequest } from '../events/event-body.js';
import { OWNER_INDEX } from '../reflector/store.js';
import type { StatusRecipe } from '../sink/draft-status.js';
import type { ResolvedStatusWriteOptions, StatusWriteOutcome } from '../sink/status-write.js';
import { writeStatus } from '../sink/status-write.js';
import type { WriteTracker } from '../sink/write-tracker.js';
import { writeId } from '../sink/write-tracker.js';
import type { RequestObserver } from '../transport/request-scope.js';
import { withRequestObserver } from '../transport/request-scope.js';
import type { KubeObject, ObjectRef, ResourceType } from '../types.js';
import { objectKey } from '../types.js';
import { UserCodeError } from '../user-code-error.js';
import { showWrites } from './cache-reader.js';
import type { CacheReader, ControllerLogger, ReconcileContext } from './options.js';
import type { WatchedKinds } from './watches.js';
import { sameResource } from './watches.js';

/** What building contexts needs (one per run). */
export interface ContextDeps<T extends KubeObject> {
  readonly kinds: WatchedKinds<T>;
  readonly cache: CacheReader;
  readonly tracker: WriteTracker;
  readonly client: Client | undefined;
  readonly log: ControllerLogger;
  readonly fieldManager: string;
  /** `options.status` checked; `ctx.status` writes through `client`. */
  readonly status: ResolvedStatusWriteOptions | undefined;
  readonly record: ((object: T, event: Omit<EventRequest, 'regarding'>) => void) | undefined;
  readonly scheduler: SchedulerLike;
  /** Told every API request of this reconcile (tracing; optional). */
  readonly requests?: RequestObserver | undefined;
}

/**
 * Builds the context of one reconcile of `key` over `object`; `signalOf` gives `ctx.signal`.
 * The context is a {@link Context}: `object`, `key`, `store` and `cache` are own data properties;
 * `signal` and every other member are accessors on the class prototype, made when first read
 * (a member's closures all at once, by {@link contextMembers}). Most reconciles read none of
 * them: the AbortController (and the abort Event when the reconcile settles) and some twenty
 * closures per reconcile are spared (issue 21). Accessors on a prototype cost nothing per object;
 * accessors in an object literal did (~1.3 µs against ~0.1 µs: V8 defines each at run time).
 */
export function reconcileContext<T extends KubeObject>(
  deps: ContextDeps<T>,
  key: string,
  object: T,
  signalOf: () => AbortSignal = () => new AbortController().signal,
): ReconcileContext<T> {
  return new Context<T>(deps, key, object, signalOf);
}

/** The members of a context made on first read; `theSignal` is the context's `signal`. */
function contextMembers<T extends KubeObject>(
  deps: ContextDeps<T>,
  key: string,
  object: T,
  theSignal: () => AbortSignal,
): Members<T> {
  const { kinds, tracker } = deps;
  const raw = deps.client ?? (missing ??= missingClient());
  /** `call()`, rejecting with the signal's reason as soon as it aborts (the reconcile is over). */
  const guarded = <R>(call: () => Promise<R>): Promise<R> => {
    const signal = theSignal();
    if (signal.aborted) return Promise.reject(abortReason(signal));
    const observer = deps.requests;
    return new Promise<R>((resolve, reject) => {
      const onAbort = (): void => reject(abortReason(signal));
      signal.addEventListener('abort', onAbort, { once: true });
      (observer === undefined ? call() : withRequestObserver(observer, call)).then(
        (value) => {
          signal.removeEventListener('abort', onAbort);
          resolve(value);
        },
        (error: unknown) => {
          signal.removeEventListener('abort', onAbort);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  };
  /** `options` with `ctx.signal`: an abort destroys the call's HTTP request. */
  const sig = <O extends object>(options: O | undefined): O & { signal: AbortSignal } => ({
    ...(options as O),
    signal: theSignal(),
  });
  const client = raw;
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
    return guarded(() =>
      firstValueFrom(
        tracker.track(writeId(type, meta), () => from(send()).pipe(tap((result) => record(before, result)))),
      ),
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
  const trackedDelete = (ref: ObjectRef, options: DeleteOptions | undefined) =>
    tracked(
      refTarget(ref),
      () => client.delete<KubeObject>(ref, sig(options)),
      (before, result) => {
        if (isObject(result) && result.kind !== 'Status') tracker.recorded(before, result, key);
        else tracker.deleted(before ?? refTarget(ref), key, ref);
      },
    );
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
  const makeClient = (): Client => ({
    discovery: raw.discovery,
    get: (ref, options) => guarded(() => raw.get(ref, sig(options))),
    list: (type, options) => guarded(() => raw.list(type, sig(options))),
    create: ((body: ObjectLike, options?: WriteOptions) =>
      tracked(body, () => raw.create(body, sig(options)), recordWrite)) as Client['create'],
    replace: ((body: ObjectLike, options?: WriteOptions) =>
      tracked(body, () => raw.replace(body, sig(options)), recordWrite)) as Client['replace'],
    patch: (ref: ObjectRef, patch: Patch, options?: PatchOptions) =>
      tracked(refTarget(ref), () => raw.patch(ref, patch, sig(options)), recordWrite),
    apply: ((body: ObjectLike, options: ApplyOptions) =>
      tracked(body, () => raw.apply(body, sig(options)), recordWrite)) as Client['apply'],
    delete: ((ref: ObjectRef, options?: DeleteOptions) => trackedDelete(ref, options)) as Client['delete'],
  });
  const makeLog = (): ControllerLogger => ({
    debug: (m, f) => deps.log.debug?.(m, { key, ...f }),
    info: (m, f) => deps.log.info?.(m, { key, ...f }),
    warn: (m, f) => deps.log.warn?.(m, { key, ...f }),
    error: (m, f) => deps.log.error?.(m, { key, ...f }),
  });
  const members: Members<T> = {
    client: makeClient(),
    log: makeLog(),
    owned,
    storeOf: (resource) => deps.cache.storeOf(resource),
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
      // through the controller's one client, its requests carrying ctx.signal
      return writeStatus(client, write, deps.status, tracker, deps.scheduler, key, theSignal()).pipe(
        last(),
      ) as unknown as Observable<StatusWriteOutcome<T>>;
    },
    record: (event) => {
      if (deps.record === undefined) {
        throw new InvalidArgumentError(
          'ReconcileContext.record',
          'options.recorder',
          undefined,
          'must be given to the controller (new EventRecorder(client, …)) to record Events',
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
        () =>
          client.apply(body, {
            fieldManager: deps.fieldManager,
            force: true,
            ...options,
            signal: theSignal(),
          }),
        recordWrite,
      ),
    patch: <O extends ObjectLike = KubeObject>(ref: ObjectRef, patch: Patch, options?: PatchOptions) =>
      tracked(refTarget(ref), () => client.patch<O>(ref, patch, sig(options)), recordWrite),
    create: (body, options) => tracked(body, () => client.create(body, sig(options)), recordWrite),
    delete: (ref, options) => trackedDelete(ref, options),
    applyChildren: (desired, options = {}) => {
      const children: Pick<Client, 'discovery' | 'apply' | 'delete' | 'list'> = {
        discovery: client.discovery,
        apply: (body, o) => members.apply(body, o),
        delete: ((ref: ObjectRef, o?: DeleteOptions) => members.delete(ref, o)) as Client['delete'],
        list: (type, o) => guarded(() => client.list(type, sig(o))),
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
  return members;
}

/** The members of a {@link Context} made on first read. */
type Members<T extends KubeObject> = Omit<
  ReconcileContext<T>,
  'object' | 'key' | 'store' | 'cache' | 'signal'
>;

/**
 * A reconcile's context: four own data properties, everything else made when first read. The
 * accessors return the same value on every read, so `const { apply, client } = ctx` works.
 */
class Context<T extends KubeObject> implements ReconcileContext<T> {
  readonly store: ReconcileContext<T>['store'];
  readonly cache: CacheReader;
  private lazySignal: AbortSignal | undefined = undefined;
  private built: Members<T> | undefined = undefined;

  constructor(
    private readonly deps: ContextDeps<T>,
    readonly key: string,
    readonly object: T,
    private readonly signalOf: () => AbortSignal,
  ) {
    this.store = deps.kinds.primary.store;
    this.cache = deps.cache;
  }

  get signal(): AbortSignal {
    return (this.lazySignal ??= this.signalOf());
  }

  private get members(): Members<T> {
    return (this.built ??= contextMembers(this.deps, this.key, this.object, () => this.signal));
  }

  get client(): Client {
    return this.members.client;
  }

  get log(): ControllerLogger {
    return this.members.log;
  }

  get owned(): Members<T>['owned'] {
    return this.members.owned;
  }

  get storeOf(): Members<T>['storeOf'] {
    return this.members.storeOf;
  }

  get status(): Members<T>['status'] {
    return this.members.status;
  }

  get record(): Members<T>['record'] {
    return this.members.record;
  }

  get apply(): Members<T>['apply'] {
    return this.members.apply;
  }

  get patch(): Members<T>['patch'] {
    return this.members.patch;
  }

  get create(): Members<T>['create'] {
    return this.members.create;
  }

  get delete(): Members<T>['delete'] {
    return this.members.delete;
  }

  get applyChildren(): Members<T>['applyChildren'] {
    return this.members.applyChildren;
  }
}

/** Why `signal` aborted, as an Error. */
function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error('the reconcile ended (ctx.signal aborted)');
}

function isObject(value: unknown): value is KubeObject {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { metadata?: unknown }).metadata === 'object'
  );
}

/** The one {@link missingClient} (made once: a Proxy per reconcile was measurable). */
let missing: Client | undefined;

/** The `ctx.client` of a controller built without one (marble tests): every call rejects, saying why. */
function missingClient(): Client {
  const refuse = (): Promise<never> =>
    Promise.reject(
      new InvalidArgumentError(
        'ReconcileContext.client',
        'options.client',
        undefined,
        'must be given to the controller to talk to the API server (the controller was built with a registry only)',
      ),
    );
  return new Proxy({} as Client, { get: () => refuse });
}
