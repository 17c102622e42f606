/**
 * `runShardedSoak()`: the soak's multi-replica mode (`pnpm soak -- --replicas 3`). Several
 * Managers in this process shard one controller over a ring (`sharding: { ring }`), each with its
 * own identity, against the embedded API server, while writes stream on and faults strike: the
 * server's (dropped, stalled, cut watches, 410s, 5xx, 429, delays) and the replicas' own — kills
 * (the ring stops without releasing anything, as after SIGKILL), restarts under the same identity
 * (a StatefulSet's pod) or a new one (a Deployment's), joins of extra replicas and graceful leaves.
 *
 * Checks, recorded by the soak itself (not by the framework under test): no two reconciles of one
 * key ever overlapped, across replicas; once the storm is over and every name exists again, every
 * key's last reconcile read the server's final resourceVersion; and each live replica's Store holds
 * exactly the objects of the buckets it holds.
 *
 * Lease timings are scaled down with the storm (3 s lease, 2 s renew deadline, 0.5 s retry) so a
 * killed replica's buckets move within seconds.
 *
 * @module
 */
import type { KubeObject, ObjectRef } from '@rxkube/kube';
import { Action } from '@rxkube/core';
import {
  isAlreadyExists,
  isConflict,
  isNotFound,
  KubeClient,
  loadKubeConfigFile,
  Manager,
  objectKey,
} from '@rxkube/kube';
import { bucketOf } from '@rxkube/kube/shard';
import { firstValueFrom, Observable } from 'rxjs';

import type { SoakConfig } from './config.js';
import type { FaultKind } from './faults.js';
import { FAULT_WEIGHTS } from './faults.js';
import { Random } from './random.js';
import { startSoakServer } from './server.js';
import { pool } from './workload.js';

const NS = 'soak-sharded';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const RING = 'soak';
const BUCKETS = 64;
/** Scaled with the storm: a killed replica's buckets move after ~3.5 s. */
const TIMINGS = { leaseDurationMs: 3_000, renewDeadlineMs: 2_000, retryPeriodMs: 500, drainTimeoutMs: 1_000 };

type Cm = KubeObject & { data?: Record<string, string> };

/** The replica faults of the multi-replica mode. */
export const REPLICA_FAULTS = ['kill', 'restartSameIdentity', 'restartNewIdentity', 'join', 'leave'] as const;
/** A replica fault. */
export type ReplicaFault = (typeof REPLICA_FAULTS)[number];

/** The first replica faults of every run, in this order. */
const FIRST_FAULTS: readonly ReplicaFault[] = ['join', 'kill'];

/** What a multi-replica soak measured and found. */
export interface ShardedSoakReport {
  readonly config: SoakConfig;
  readonly ms: { readonly seed: number; readonly storm: number; readonly converge: number };
  readonly writes: number;
  readonly replicaFaults: Readonly<Record<ReplicaFault, number>>;
  readonly serverFaults: Readonly<Partial<Record<FaultKind, number>>>;
  /** Replicas alive at the end (at least one). */
  readonly alive: number;
  readonly reconciles: number;
  /** Two reconciles of one object, or of one key in one replica, at once (must be none). */
  readonly overlaps: readonly string[];
  /**
   * Two replicas reconciling two incarnations of one name at once (the old one's reconcile still
   * in flight when the name was created again in another replica's bucket): allowed, counted.
   */
  readonly incarnations: readonly string[];
  /** Keys whose last reconcile did not read the server's final version (must be none). */
  readonly stale: readonly string[];
  /** Live replicas whose Store is not exactly their buckets' objects (must be none). */
  readonly stores: readonly string[];
  readonly errors: { readonly unhandled: number };
  readonly ok: boolean;
}

interface Replica {
  readonly id: string;
  readonly mgr: Manager;
}

/** The soak's own record of reconciles, across replicas. */
class Recorder {
  /** The reconcile running now per key: its replica and the uid of the object it read. */
  readonly running = new Map<string, { readonly replica: string; readonly uid: string }>();
  readonly overlaps: string[] = [];
  readonly incarnations: string[] = [];
  readonly last = new Map<string, string>();
  reconciles = 0;

  constructor(
    private readonly random: Random,
    private readonly maxMs: number,
  ) {}

  reconcile(replica: string) {
    return (request: ObjectRef, ctx: { readonly object: Cm }): Observable<Action> =>
      new Observable<Action>((subscriber) => {
        const key = objectKey(request);
        const uid = ctx.object.metadata.uid ?? '';
        const other = this.running.get(key);
        if (other !== undefined) {
          const line = `${key}: ${other.replica} (uid ${other.uid}) and ${replica} (uid ${uid})`;
          // Two incarnations of a name (deleted and created again) hash to two buckets: their
          // owners may each reconcile their own at once (promise 13). One object twice, or one
          // replica running a key twice, is an overlap.
          if (other.uid !== uid && other.replica !== replica) this.incarnations.push(line);
          else this.overlaps.push(line);
        }
        const mine = { replica, uid };
        this.running.set(key, mine);
        const version = ctx.object.metadata.resourceVersion ?? '';
        const work = setTimeout(
          () => {
            if (this.running.get(key) === mine) this.running.delete(key);
            this.last.set(key, version);
            this.reconciles++;
            subscriber.next(Action.awaitChange());
            subscriber.complete();
          },
          this.random.int(this.maxMs + 1),
        );
        return () => {
          clearTimeout(work);
          if (this.running.get(key) === mine) this.running.delete(key);
        };
      });
  }
}

/**
 * Runs one multi-replica soak (`config.replicas` replicas at the start).
 *
 * ## Example
 * ```ts
 * const report = await runShardedSoak({ ...SHORT, replicas: 3 }, (line) => console.log(line));
 * if (!report.ok) process.exitCode = 1;
 * ```
 */
export async function runShardedSoak(
  config: SoakConfig,
  log: (line: string) => void = () => undefined,
): Promise<ShardedSoakReport> {
  const random = new Random(config.seed);
  const errors = { unhandled: 0 };
  const onUnhandled = (): void => {
    errors.unhandled++;
  };
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
  const server = await startSoakServer(config.serverInWorker);
  const client = KubeClient.fromKubeConfig(loadKubeConfigFile(server.kubeconfigPath));
  const recorder = new Recorder(random, config.maxReconcileMs);
  const alive: Replica[] = [];
  /** Killed replicas: stopped without releasing; their Managers are closed at the end. */
  const dead: Replica[] = [];
  let serial = 0;
  const faultRandom = new Random(config.seed + 1);
  let faultsDone = 0;
  /** The storm's writes: on a failure they stop, and are awaited before the client closes. */
  let writes: Promise<void> | undefined;
  let aborted = false;
  const start = async (id: string): Promise<Replica> => {
    const mgr = new Manager({
      client,
      name: 'soak-sharded',
      logLevel: 'silent',
      reconcileTimeoutMs: 250,
      watcher: {
        idleTimeoutMs: 8_000,
        backoff: { initialMs: 100, maxMs: 2_000, factor: 2, jitter: 0.5, resetAfterMs: 10_000 },
      },
      sharding: { ring: RING, identity: id, namespace: NS, buckets: BUCKETS, ...TIMINGS },
    });
    mgr.add<Cm>('cm', { for: CM, namespace: NS, concurrency: 4 }, recorder.reconcile(id));
    await mgr.start();
    const r = { id, mgr };
    alive.push(r);
    return r;
  };
  const replicaFaults = Object.fromEntries(REPLICA_FAULTS.map((k) => [k, 0])) as Record<ReplicaFault, number>;
  const serverFaults: Partial<Record<FaultKind, number>> = {};
  const names = Array.from({ length: config.objects }, (_, i) => `cm-${i}`);
  try {
    let t = Date.now();
    await client
      .create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })
      .catch((e: unknown) => {
        if (!isAlreadyExists(e)) throw e;
      });
    await pool(
      names.map(
        (name) => () => client.create<Cm>({ ...CM, metadata: { name, namespace: NS }, data: { v: '0' } }),
      ),
      config.writeConcurrency,
    );
    const seedMs = Date.now() - t;
    for (let i = 0; i < Math.max(1, config.replicas); i++) await start(`replica-${serial++}`);
    log(
      `soak (sharded): ${config.objects} ConfigMaps, ${alive.length} replicas; storm of ${config.writes} writes`,
    );

    t = Date.now();
    let writing = true;
    let written = 0;
    const write = async (): Promise<void> => {
      // Paced, so the storm lasts long enough for replica faults and lease expiries to interleave.
      await sleep(10);
      if (aborted) return;
      const name = random.pick(names);
      try {
        if (random.chance(0.1)) {
          await client.delete({ ...CM, namespace: NS, name });
          await client.create<Cm>({ ...CM, metadata: { name, namespace: NS }, data: { v: String(written) } });
        } else {
          await client.patch(
            { ...CM, namespace: NS, name },
            { type: 'merge', body: { data: { v: String(written) } } },
          );
        }
      } catch (e) {
        // A delete and a re-create racing another write of the same name: the end restores it.
        if (!isNotFound(e) && !isAlreadyExists(e) && !isConflict(e)) throw e;
      }
      written++;
    };
    writes = pool(
      Array.from({ length: config.writes }, () => write),
      config.writeConcurrency,
    ).finally(() => {
      writing = false;
    });
    // The faults: one every 50 ms (the server's kinds, its injected rules reset every second),
    // and a replica fault every second (at least one replica stays alive).
    let tick = 0;
    let faults = 0;
    while (writing) {
      await sleep(50);
      tick++;
      if (faults < config.faults) {
        const kind = random.weighted(FAULT_WEIGHTS);
        await server.fault(kind, faults++).catch(() => undefined);
        serverFaults[kind] = (serverFaults[kind] ?? 0) + 1;
      }
      if (tick % 20 === 0) await server.reset();
      if (tick % 20 === 10) await replicaFault();
    }
    await writes;
    await server.reset();
    // Every name exists again, at a version written after the storm.
    await pool(
      names.map((name) => async () => {
        try {
          await client.patch(
            { ...CM, namespace: NS, name },
            { type: 'merge', body: { data: { v: 'final' } } },
          );
        } catch (e) {
          if (!isNotFound(e)) throw e;
          await client.create<Cm>({ ...CM, metadata: { name, namespace: NS }, data: { v: 'final' } });
        }
      }),
      config.writeConcurrency,
    );
    const stormMs = Date.now() - t;
    log(`soak (sharded): storm done in ${stormMs} ms (${written} writes); converging`);

    t = Date.now();
    const deadline = Date.now() + config.convergeTimeoutMs;
    let stale: string[] = [];
    let stores: string[] = [];
    for (;;) {
      const items = (await client.list<Cm>(CM, { namespace: NS })).items;
      stale = items
        .filter((o) => recorder.last.get(objectKey(o)) !== o.metadata.resourceVersion)
        .map((o) => objectKey(o));
      stores = alive.filter((r) => !storeIsItsBuckets(r, items)).map((r) => r.id);
      const idle = (await Promise.all(alive.map((r) => firstValueFrom(r.mgr.idle$)))).every(Boolean);
      if ((stale.length === 0 && stores.length === 0 && idle) || Date.now() > deadline) break;
      await sleep(200);
    }
    const convergeMs = Date.now() - t;
    return {
      config,
      ms: { seed: seedMs, storm: stormMs, converge: convergeMs },
      writes: written,
      replicaFaults,
      serverFaults,
      alive: alive.length,
      reconciles: recorder.reconciles,
      overlaps: recorder.overlaps,
      incarnations: recorder.incarnations,
      stale,
      stores,
      errors,
      ok:
        recorder.overlaps.length === 0 && stale.length === 0 && stores.length === 0 && errors.unhandled === 0,
    };
  } finally {
    aborted = true;
    await writes?.catch(() => undefined);
    for (const r of [...alive, ...dead]) await r.mgr.stop();
    client.close();
    await server.stop();
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
  }

  async function replicaFault(): Promise<void> {
    // A join and a kill first, so every run kills a replica however short its storm; then at
    // random, from a stream of their own: how the storm interleaves does not change the faults.
    let fault = FIRST_FAULTS[faultsDone] ?? faultRandom.pick(REPLICA_FAULTS);
    faultsDone++;
    // Fewer replicas than at the start: a kill or a leave becomes a join (the count stays near N).
    if ((fault === 'kill' || fault === 'leave') && alive.length < Math.max(1, config.replicas))
      fault = 'join';
    // Between 1 and config.replicas + 2 replicas stay alive (a restart replaces the one it kills).
    if ((fault === 'kill' || fault === 'leave') && alive.length < 2) return;
    if (fault === 'join' && alive.length >= Math.max(1, config.replicas) + 2) return;
    replicaFaults[fault]++;
    if (fault === 'join') {
      await start(`replica-${serial++}`);
      return;
    }
    const victim = random.pick(alive);
    alive.splice(alive.indexOf(victim), 1);
    if (fault === 'leave') {
      await victim.mgr.stop();
      return;
    }
    // A kill: the ring stops at once, releasing nothing; its reconciles are cancelled.
    victim.mgr.sharding?.stop();
    dead.push(victim);
    if (fault === 'restartSameIdentity') await start(victim.id);
    else if (fault === 'restartNewIdentity') await start(`replica-${serial++}`);
  }
}

/** Whether a replica's primary Store holds exactly the objects of the buckets it holds. */
function storeIsItsBuckets(r: Replica, items: readonly Cm[]): boolean {
  const ring = r.mgr.sharding?.ring;
  const store = r.mgr.controller('cm')?.stores.primary;
  if (ring === undefined || store === undefined) return false;
  const held = ring.gate.opened;
  const expected = items
    .filter((o) => held.has(bucketOf(o.metadata.uid ?? '', BUCKETS)))
    .map(objectKey)
    .sort();
  const actual = [...store.keys()].sort();
  return expected.length === actual.length && expected.every((k, i) => k === actual[i]);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/**
 * The figures of a multi-replica soak, as printed by `pnpm soak -- --replicas N`.
 *
 * ## Example
 * ```ts
 * console.log(formatShardedReport(await runShardedSoak({ ...SHORT, replicas: 3 })));
 * ```
 */
export function formatShardedReport(r: ShardedSoakReport): string {
  const c = r.config;
  const faults = Object.entries(r.serverFaults)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    `soak (sharded) ${r.ok ? 'PASSED' : 'FAILED'} (seed ${c.seed})`,
    `  objects: ${c.objects} ConfigMaps; ${c.replicas} replicas at the start, ${r.alive} alive at the end`,
    `  replica faults: ${Object.entries(r.replicaFaults)
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
    `  server faults: ${faults}`,
    `  writes: ${r.writes}; reconciles: ${r.reconciles}`,
    `  time: seed ${(r.ms.seed / 1000).toFixed(1)} s, storm ${(r.ms.storm / 1000).toFixed(1)} s, convergence ${(r.ms.converge / 1000).toFixed(1)} s`,
    `  overlaps: ${r.overlaps.length}${r.overlaps.length > 0 ? ` (${r.overlaps.slice(0, 5).join('; ')})` : ''}`,
    `  two incarnations of a name at once, in two replicas (allowed): ${r.incarnations.length}${r.incarnations.length > 0 ? ` (${r.incarnations.slice(0, 3).join('; ')})` : ''}`,
    `  stale keys: ${r.stale.length}${r.stale.length > 0 ? ` (${r.stale.slice(0, 5).join(', ')})` : ''}`,
    `  Stores not exactly their buckets: ${r.stores.length > 0 ? r.stores.join(', ') : 'none'}`,
    `  unhandled errors: ${r.errors.unhandled}`,
  ].join('\n');
}
