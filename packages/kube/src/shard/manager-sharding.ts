/**
 * What a Manager does with `sharding: { ring }`: one {@link ShardRing} per Manager, and for each
 * controller the two hooks the controller offers — `admit` (a key's whole work, finalizer
 * included, runs only while this replica holds the fence of the key's bucket; counted in flight
 * for the hand-off's drain) and `reconcileOn` (when a bucket is acquired, every primary object of
 * it in the Store is requested, so keys whose triggers arrived while the bucket was elsewhere are
 * reconciled). Children and mapped triggers request their primary, so they follow its bucket.
 *
 * A controller registered with `single: true` runs on one member: with leader election, under
 * the leader Lease (the Manager gates it as before); without, all its keys hash to bucket 0, so
 * the holder of bucket 0's fence runs it, with the same fenced hand-off.
 *
 * The primary watch of a sharded controller (a target no other role watches) is a
 * {@link shardedWatch} of the buckets the ring gives this replica: its Store holds their objects
 * only; `/readyz` waits for its first lists.
 *
 * @module
 */
import type { Action } from '@rxkube/core';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Observable, SchedulerLike, Subscription } from 'rxjs';
import { asyncScheduler, EMPTY, filter, from, merge, mergeMap } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import type { ControllerOptions } from '../controller/options.js';
import { groupOf } from '../controller/watches.js';
import type { ProbeCheck } from '../ops/probes.js';
import type { StoreReader } from '../reflector/store-reader.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import { watchTargetKey } from '../reflector/watch-registry.js';
import type { KubeObject, ObjectRef, ResourceType } from '../types.js';
import type { WatcherConfig } from '../watcher/config.js';
import type { WatcherHealth } from '../watcher/health.js';
import { observeRing } from './metrics.js';
import type { ShardingOptions } from './options.js';
import { resolveShardingOptions } from './options.js';
import { ShardRing } from './shard-ring.js';
import type { ShardedWatch } from './sharded-watch.js';
import { shardedWatch } from './sharded-watch.js';

/** The bucket every key of a `single` controller maps to. */
const SINGLE_BUCKET = 0;

/**
 * The sharding of one Manager.
 *
 * ## Example
 * ```ts
 * const sharding = new ManagerSharding(client, { ring: 'widgets' }, mgr.identity, log, metrics.registry);
 * await sharding.start();
 * const hooks = sharding.hooks({ for: widgetType }, false, () => mgr.controller('widget')?.stores.primary);
 * ```
 */
export class ManagerSharding {
  /** The ring. */
  readonly ring: ShardRing;
  private subscriptions: Subscription[] = [];
  private readonly watches = new Map<string, ShardedWatch>();

  /** @throws {InvalidArgumentError} for bad settings (see `resolveShardingOptions`). */
  constructor(
    private readonly client: KubeClient,
    options: ShardingOptions,
    identity: string,
    private readonly log: Logger,
    private readonly registry: Registry,
    private readonly onFatal: (error: Error) => void = () => undefined,
  ) {
    const resolved = resolveShardingOptions(options, identity);
    this.ring = new ShardRing(client, resolved, options.scheduler ?? asyncScheduler);
  }

  /**
   * Joins the ring (metrics and hand-off logs start). A duplicate identity found later stops the
   * ring and is logged, then handed to `onFatal` (the Manager stops).
   * @throws {DuplicateShardIdentityError}
   */
  async start(): Promise<void> {
    this.subscriptions = observeRing(this.ring, this.registry, this.log);
    this.subscriptions.push(
      this.ring.fatal$.subscribe((error) => {
        this.log.error({ err: error, ring: this.ring.options.ring }, error.message);
        this.onFatal(error);
      }),
    );
    await this.ring.join();
    this.log.info(
      { ring: this.ring.options.ring, identity: this.ring.identity, buckets: this.ring.options.buckets },
      `shard ring ${this.ring.options.ring}: joined`,
    );
  }

  /** Leaves gracefully (drain, release fences, release membership). */
  async leave(): Promise<void> {
    await this.ring.leave();
    for (const s of this.subscriptions) s.unsubscribe();
    this.subscriptions = [];
  }

  /** Stops without releasing (the others take over when the membership expires). */
  stop(): void {
    this.ring.stop();
    for (const s of this.subscriptions) s.unsubscribe();
    this.subscriptions = [];
  }

  /** `/readyz`: not ready until every bucket assigned to this replica was held once. */
  readonly check: ProbeCheck = {
    name: 'shard',
    check: () => {
      if (!this.ring.synced) {
        return {
          ok: false,
          reason: `shard ring ${this.ring.options.ring}: the buckets assigned to this replica are not all acquired yet`,
        };
      }
      for (const [key, w] of this.watches) {
        if (w.connected && !w.synced) {
          return {
            ok: false,
            reason: `shard ring ${this.ring.options.ring}: the watch ${key} has not listed its buckets yet`,
          };
        }
      }
      return { ok: true };
    },
  };

  /**
   * The sharded watch of `target` when it is one of `sharded` (target keys), else `undefined`;
   * one per target. A target mapped to a kind is the owned kind of a controller of that primary
   * kind: its objects are in the bucket of their controller owner's uid (client-side: the server
   * cannot select on it), and one with no such owner is in none. Mapped to `undefined`: a primary.
   */
  watch(
    target: WatchTarget,
    sharded: ReadonlyMap<string, ResourceType | undefined>,
    extras: {
      readonly watcher?: Omit<WatcherConfig, 'health'>;
      readonly health?: (health: WatcherHealth) => void;
      readonly scheduler?: SchedulerLike;
    } = {},
  ): ShardedWatch | undefined {
    const key = watchTargetKey(target);
    if (!sharded.has(key)) return undefined;
    const owner = sharded.get(key);
    let w = this.watches.get(key);
    if (w === undefined) {
      w = shardedWatch(
        {
          ...(owner !== undefined ? { keyOf: (o: KubeObject) => controllerOwnerUid(o, owner) } : {}),
          client: this.client,
          target,
          buckets: this.ring.options.buckets,
          key: this.ring.options.key,
          watched$: this.ring.watched$,
          ...(this.ring.options.filtering !== undefined ? { filtering: this.ring.options.filtering } : {}),
          ...(extras.watcher !== undefined ? { watcher: extras.watcher } : {}),
          ...(extras.health !== undefined ? { health: extras.health } : {}),
        },
        extras.scheduler,
      );
      this.watches.set(key, w);
    }
    return w;
  }

  /** The bucket of a controller's key. */
  bucketOf(object: KubeObject, single: boolean): number {
    return single ? SINGLE_BUCKET : this.ring.bucketOfObject(object);
  }

  /**
   * The controller hooks of one registration: `admit` through the ring's gate, `reconcileOn`
   * merging the user's own with the keys of each acquired bucket.
   */
  hooks(
    options: Pick<ControllerOptions<KubeObject>, 'reconcileOn' | 'for'>,
    single: boolean,
    primary: () => StoreReader | undefined,
  ): Pick<ControllerOptions<KubeObject>, 'admit' | 'reconcileOn'> {
    const ring = this.ring;
    const admit = (object: KubeObject, work: Observable<Action>): Observable<Action> | undefined =>
      ring.gate.run(this.bucketOf(object, single), work);
    const acquired$: Observable<ObjectRef> = ring.acquired$.pipe(
      filter((bucket) => !single || bucket === SINGLE_BUCKET),
      mergeMap((bucket) =>
        from(
          (primary()?.list() ?? [])
            .filter((o) => single || ring.bucketOfObject(o) === bucket)
            .map((o) => refOf(options.for, o)),
        ),
      ),
    );
    return { admit, reconcileOn: merge(acquired$, options.reconcileOn ?? EMPTY) };
  }
}

/** The uid of `child`'s controller owner reference of `owner`'s group and kind, if any. */
function controllerOwnerUid(child: KubeObject, owner: ResourceType): string | undefined {
  const group = groupOf(owner.apiVersion);
  return child.metadata.ownerReferences?.find(
    (r) => r.controller === true && r.kind === owner.kind && groupOf(r.apiVersion) === group,
  )?.uid;
}

function refOf(type: { readonly apiVersion: string; readonly kind: string }, o: KubeObject): ObjectRef {
  const namespace = o.metadata.namespace;
  return {
    apiVersion: type.apiVersion,
    kind: type.kind,
    ...(namespace !== undefined && namespace !== '' ? { namespace } : {}),
    name: o.metadata.name ?? '',
  };
}
