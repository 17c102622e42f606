/**
 * One replica of the multi-replica process test (`replica-processes.test.ts`), started by
 * `fork()` from its built file (`dist/replica-process.js`): a Manager that shards one ConfigMap
 * controller over a ring, against the API server of the kubeconfig it is given.
 *
 * - Its ring's clock is driven by the parent over IPC (`advance`), so what the test asserts about
 *   Lease expiry and hand-offs is counted in looks, not in wall-clock time; everything else (HTTP,
 *   watches, reconciles) runs in real time.
 * - Every reconcile is written to a record file as it starts, ends or is cancelled — one line each,
 *   written synchronously (`writeSync`), with `process.hrtime` (the system-wide monotonic clock on
 *   Linux and macOS, so the parent can order the lines of every process on one time line). A line
 *   written before a SIGKILL is in the kernel: the parent reads it after the kill.
 *
 * Environment: `REPLICA_KUBECONFIG`, `REPLICA_IDENTITY`, `REPLICA_RING`, `REPLICA_NAMESPACE` (of
 * the ConfigMaps and the Leases), `REPLICA_BUCKETS`, `REPLICA_RECORD` (the record file).
 *
 * Requests (`{ id, type }`) and their answers (`{ id, … }`): `start` (joins the ring; answers once
 * started), `advance` (`ms` on the ring's clock; answers with the look it started, once it and
 * its hand-offs ended), `store` (the primary Store's keys), `stop` (graceful; answers, then exits 0).
 *
 * @module
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import type { KubeObject, ObjectRef } from '@rxkube/kube';
import { Action } from '@rxkube/core';
import { KubeClient, loadKubeConfigFile, Manager, objectKey } from '@rxkube/kube';
import type { ShardTick } from '@rxkube/kube/shard';
import { firstValueFrom, Observable, VirtualAction, VirtualTimeScheduler } from 'rxjs';

/** A request of the parent. */
export type ReplicaRequest =
  | { readonly id: number; readonly type: 'start' }
  | { readonly id: number; readonly type: 'advance'; readonly ms: number }
  | { readonly id: number; readonly type: 'store' }
  | { readonly id: number; readonly type: 'stop' };

/** The answer to `advance`: the look it started and what the ring holds after it. */
export interface ReplicaLook {
  readonly members: readonly string[];
  readonly desired: readonly number[];
  /** Buckets whose keys this replica takes now. */
  readonly opened: readonly number[];
  /** Buckets acquired since the last answer. */
  readonly acquired: readonly number[];
  readonly synced: boolean;
  readonly error?: string;
}

/** The reconcile's simulated work, in ms (real time). */
const WORK_MS = 2;

const env = (name: string): string => {
  const value = process.env[name];
  if (value === undefined || value === '') throw new Error(`replica-process: ${name} is not set`);
  return value;
};

/** A clock that moves only when told: `advance(ms)` runs the timers due, in order. */
class DrivenClock {
  readonly scheduler = new VirtualTimeScheduler(VirtualAction, Infinity);

  constructor() {
    this.scheduler.frame = Date.UTC(2026, 10, 25);
  }

  advance(ms: number): void {
    const target = this.scheduler.frame + ms;
    this.scheduler.maxFrames = target;
    this.scheduler.flush();
    this.scheduler.frame = target;
  }
}

type Cm = KubeObject & { data?: Record<string, string> };

const identity = env('REPLICA_IDENTITY');
const namespace = env('REPLICA_NAMESPACE');
const record = openSync(env('REPLICA_RECORD'), 'a');
const line = (text: string): void => {
  writeSync(record, `${text}\n`);
};
const now = (): string => process.hrtime.bigint().toString();

const client = KubeClient.fromKubeConfig(loadKubeConfigFile(env('REPLICA_KUBECONFIG')));
const clock = new DrivenClock();
const mgr = new Manager({
  client,
  name: 'replica-processes',
  logLevel: 'silent',
  sharding: {
    ring: env('REPLICA_RING'),
    identity,
    namespace,
    buckets: Number(env('REPLICA_BUCKETS')),
    scheduler: clock.scheduler,
  },
});

// The test's own record of every reconcile: S(tart), E(nd) with the resourceVersion it read, or
// C(ancelled) when unsubscribed before its end.
mgr.add<Cm>(
  'cm',
  { for: { apiVersion: 'v1', kind: 'ConfigMap' }, namespace, concurrency: 4 },
  (request: ObjectRef, ctx: { readonly object: Cm }) =>
    new Observable<Action>((subscriber) => {
      const key = objectKey(request);
      const version = ctx.object.metadata.resourceVersion ?? '';
      line(`S ${now()} ${key} ${version}`);
      let ended = false;
      const work = setTimeout(() => {
        ended = true;
        line(`E ${now()} ${key} ${version}`);
        subscriber.next(Action.awaitChange());
        subscriber.complete();
      }, WORK_MS);
      return () => {
        clearTimeout(work);
        if (!ended) line(`C ${now()} ${key}`);
      };
    }),
);

const ring = mgr.sharding!.ring;
let acquired: number[] = [];
ring.handoffs$.subscribe((h) => {
  if (h.direction === 'acquired') acquired.push(h.bucket);
});

/** Runs the ring's timers due now until `p` settles (start() joins the ring on its clock). */
async function drive<T>(p: Promise<T>): Promise<T> {
  let done = false;
  p.then(
    () => (done = true),
    () => (done = true),
  );
  while (!done) {
    clock.advance(0);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return p;
}

async function look(ms: number): Promise<ReplicaLook> {
  const next: Promise<ShardTick> = firstValueFrom(ring.ticks$);
  clock.advance(ms);
  const tick = await next;
  await ring.settled();
  const answer: ReplicaLook = {
    members: tick.members,
    desired: tick.desired,
    opened: [...ring.gate.opened].sort((a, b) => a - b),
    acquired,
    synced: ring.synced,
    ...(tick.error !== undefined
      ? { error: tick.error instanceof Error ? tick.error.message : 'failed' }
      : {}),
  };
  acquired = [];
  return answer;
}

async function answer(request: ReplicaRequest): Promise<unknown> {
  switch (request.type) {
    case 'start':
      await drive(mgr.start());
      return {};
    case 'advance':
      return look(request.ms);
    case 'store':
      return { keys: [...(mgr.controller('cm')?.stores.primary.keys() ?? [])].sort() };
    case 'stop': {
      const report = await mgr.stop();
      client.close();
      closeSync(record);
      return { report };
    }
  }
}

// One request at a time, in order (the parent waits for each answer).
let queue = Promise.resolve();
process.on('message', (request: ReplicaRequest) => {
  queue = queue.then(async () => {
    try {
      const result = await answer(request);
      process.send?.({ id: request.id, ok: true, result }, () => {
        if (request.type === 'stop') process.disconnect();
      });
    } catch (error) {
      process.send?.({
        id: request.id,
        ok: false,
        error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      });
    }
  });
});
// The parent went away (its test ended or failed): leave nothing running.
process.on('disconnect', () => {
  process.exit(0);
});
process.send?.({ ready: true });
