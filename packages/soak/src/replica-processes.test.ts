import { execFileSync, fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '@rxkube/kube';
import { KubeClient, loadKubeConfigFile, objectKey } from '@rxkube/kube';
import { assignBuckets, bucketOf, resolveShardingOptions, ShardRing } from '@rxkube/kube/shard';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ReplicaLook, ReplicaRequest } from './replica-process.js';
import { pool } from './workload.js';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');
const root = join(pkg, '..', '..');
/** The replica's built script: the child runs JavaScript, as a deployed operator does. */
const script = join(pkg, 'dist', 'replica-process.js');

const NS = 'replica-processes';
const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
/** The size: 2,000 objects. */
const OBJECTS = 2_000;
const BUCKETS = 64;
/** Bound of one step that waits on child processes and the server: a failure bound, not a wait. */
const STEP_MS = 60_000;

type Cm = KubeObject & { data?: Record<string, string> };

/** The ring settings every replica resolves (the defaults: 15 s lease, 2 s retry). */
const ringOptions = resolveShardingOptions({ ring: 'processes', namespace: NS, buckets: BUCKETS }, 'test');
const RETRY = ringOptions.retryPeriodMs;
const LEASE = ringOptions.leaseDurationMs;

/** The bin of the replica is built JavaScript: make sure dist is current (a no-op after `tsc -b`). */
function build(): void {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', pkg], {
    cwd: root,
  });
}

interface Answer {
  readonly id: number;
  readonly ok: boolean;
  readonly result?: unknown;
  readonly error?: string;
}

/** One replica: a child process running `replica-process.js`, asked over IPC. */
class ReplicaProcess {
  readonly proc: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly ready: Promise<void>;
  /** `process.hrtime` after this process was reaped (it can run nothing after that). */
  deadAt: bigint | undefined;
  readonly stderr: string[] = [];
  private next = 0;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();

  constructor(
    readonly id: string,
    kubeconfig: string,
    readonly record: string,
  ) {
    // Not this worker's execArgv: it resolves the workspace to TypeScript sources.
    this.proc = fork(script, [], {
      execArgv: [],
      env: {
        ...process.env,
        REPLICA_KUBECONFIG: kubeconfig,
        REPLICA_IDENTITY: id,
        REPLICA_RING: ringOptions.ring,
        REPLICA_NAMESPACE: NS,
        REPLICA_BUCKETS: String(BUCKETS),
        REPLICA_RECORD: record,
      },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    this.proc.stderr?.on('data', (chunk: Buffer) => this.stderr.push(chunk.toString()));
    this.exited = new Promise((resolve) =>
      this.proc.once('exit', (code, signal) => {
        this.deadAt = process.hrtime.bigint();
        const error = new Error(`${id} exited (${code ?? signal}):\n${this.stderr.join('')}`);
        for (const p of this.pending.values()) p.reject(error);
        this.pending.clear();
        resolve({ code, signal });
      }),
    );
    this.ready = new Promise((resolve, reject) => {
      this.proc.on('message', (m: Answer | { ready: true }) => {
        if ('ready' in m) {
          resolve();
          return;
        }
        const p = this.pending.get(m.id);
        this.pending.delete(m.id);
        if (m.ok) p?.resolve(m.result);
        else p?.reject(new Error(`${id}: ${m.error ?? 'failed'}`));
      });
      void this.exited.then(() =>
        reject(new Error(`${id} exited before it was ready:\n${this.stderr.join('')}`)),
      );
    });
  }

  async ask<T>(type: ReplicaRequest['type'], extra: { ms?: number } = {}): Promise<T> {
    await this.ready;
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.pending.set(id, { resolve: (v) => resolve(v as T), reject });
      this.proc.send({ id, type, ...extra });
    });
  }

  /** SIGKILL: no drain, no release; resolves once the process is reaped. */
  async kill(): Promise<void> {
    this.proc.kill('SIGKILL');
    await this.exited;
  }
}

/** A replica's record file, and when it was reaped if it was killed. */
interface RecordSource {
  readonly id: string;
  readonly record: string;
  readonly deadAt: bigint | undefined;
}

/** A reconcile as the record files tell it: [start, end) on the shared monotonic clock. */
interface Interval {
  readonly replica: string;
  readonly key: string;
  readonly start: bigint;
  end: bigint;
  /** resourceVersion read, for one that ended (not cancelled, not killed). */
  version: string | undefined;
}

/**
 * Every reconcile of every replica, from their record files. A reconcile still open in a killed
 * replica ends when that process was reaped; one still open in a live replica has not ended.
 * Two starts of one key in one process without an end between them are an overlap too.
 */
function intervals(replicas: readonly RecordSource[]): { all: Interval[]; sameProcess: string[] } {
  const all: Interval[] = [];
  const sameProcess: string[] = [];
  const FOREVER = 2n ** 63n;
  for (const r of replicas) {
    if (!existsSync(r.record)) continue;
    const open = new Map<string, Interval>();
    const text = readFileSync(r.record, 'utf8');
    // A SIGKILL may cut the last line short: only whole lines count.
    const lines = text.slice(0, text.lastIndexOf('\n') + 1).split('\n');
    for (const l of lines) {
      const [kind, at, key, version] = l.split(' ');
      if (kind === undefined || at === undefined || key === undefined) continue;
      const t = BigInt(at);
      if (kind === 'S') {
        if (open.has(key)) sameProcess.push(`${key}: twice at once in ${r.id}`);
        const i: Interval = { replica: r.id, key, start: t, end: FOREVER, version: undefined };
        open.set(key, i);
        all.push(i);
      } else {
        const i = open.get(key);
        open.delete(key);
        if (i === undefined) continue;
        i.end = t;
        if (kind === 'E') i.version = version;
      }
    }
    if (r.deadAt !== undefined) for (const i of open.values()) i.end = r.deadAt;
  }
  return { all, sameProcess };
}

/** Pairs of reconciles of one key that overlapped in time, across every replica. */
function overlaps(all: readonly Interval[]): string[] {
  const byKey = new Map<string, Interval[]>();
  for (const i of all) {
    let list = byKey.get(i.key);
    if (list === undefined) byKey.set(i.key, (list = []));
    list.push(i);
  }
  const found: string[] = [];
  for (const [key, list] of byKey) {
    list.sort((x, y) => (x.start < y.start ? -1 : x.start > y.start ? 1 : 0));
    let last: Interval | undefined;
    for (const i of list) {
      if (last !== undefined && i.start < last.end) found.push(`${key}: ${last.replica} and ${i.replica}`);
      if (last === undefined || i.end > last.end) last = i;
    }
  }
  return found;
}

describe('the record files of the replica processes', () => {
  it('show an overlap across processes, in one process, and with a killed one until it was reaped', () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxkube-records-'));
    try {
      const source = (id: string, lines: string, deadAt?: bigint): RecordSource => {
        const record = join(dir, id);
        writeFileSync(record, lines);
        return { id, record, deadAt };
      };
      const { all, sameProcess } = intervals([
        // x: k1 from 10 to 20; k2 cancelled at 35; k3 twice at once; k4 still running when killed
        // at 100, its last line cut short by the kill.
        source(
          'x',
          'S 10 ns/k1 1\nE 20 ns/k1 1\nS 30 ns/k2 2\nC 35 ns/k2\nS 40 ns/k3 1\nS 41 ns/k3 1\nS 50 ns/k4 1\nE 6',
          100n,
        ),
        // y: k1 after x's end; k2 after the cancel; k4 inside x's life (an overlap), and after it.
        source(
          'y',
          'S 20 ns/k1 3\nE 25 ns/k1 3\nS 35 ns/k2 4\nE 36 ns/k2 4\nS 99 ns/k4 5\nE 99 ns/k4 5\nS 100 ns/k4 6\nE 101 ns/k4 6\n',
        ),
      ]);
      expect(sameProcess).toEqual(['ns/k3: twice at once in x']);
      expect(overlaps(all)).toEqual(['ns/k3: x and x', 'ns/k4: x and y']);
      expect(all.filter((i) => i.key === 'ns/k4').map((i) => [i.replica, i.end, i.version])).toEqual([
        ['x', 100n, undefined],
        ['y', 99n, '5'],
        ['y', 101n, '6'],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// Replicas as processes (each its own Node, Manager, client and watches) over one API server;
// the test drives their ring clocks in rounds and kills one with SIGKILL.
describeEachBackend(
  'sharded replicas as processes',
  (b) => {
    let client: KubeClient;
    let tmp: string;
    const started: ReplicaProcess[] = [];
    beforeAll(async () => {
      build();
      tmp = mkdtempSync(join(tmpdir(), 'rxkube-replicas-'));
      client = KubeClient.fromKubeConfig(loadKubeConfigFile(b.cluster.kubeconfigPath));
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    }, 120_000);
    afterAll(async () => {
      // Only after a failure is anything left running.
      for (const r of started) if (r.proc.exitCode === null && r.proc.signalCode === null) await r.kill();
      client.close();
      rmSync(tmp, { recursive: true, force: true });
    });

    it('3 replicas over 2,000 objects under writes; one SIGKILLed, two join, scale-down to one: no key twice at once, every last version reconciled', async () => {
      const spawn = async (id: string): Promise<ReplicaProcess> => {
        const r = new ReplicaProcess(id, b.cluster.kubeconfigPath, join(tmp, `${id}.log`));
        started.push(r);
        await r.ask('start');
        return r;
      };
      let round = 0;
      /** The round at which a replica acquired each bucket (since the last clear). */
      const takenAt = new Map<number, number>();
      const looks = new Map<string, ReplicaLook>();
      /** One retry period on every member's ring clock, one after the other; waits for each look. */
      const lookAll = async (members: readonly ReplicaProcess[]): Promise<void> => {
        round++;
        for (const m of members) {
          const look = await m.ask<ReplicaLook>('advance', { ms: RETRY });
          looks.set(m.id, look);
          for (const bucket of look.acquired) if (!takenAt.has(bucket)) takenAt.set(bucket, round);
        }
      };
      const opened = (m: ReplicaProcess): readonly number[] => looks.get(m.id)?.opened ?? [];
      const expectDisjoint = (members: readonly ReplicaProcess[]): void => {
        const seen = new Set<number>();
        for (const m of members) {
          for (const bucket of opened(m)) {
            expect(seen.has(bucket), `bucket ${bucket} open on two replicas`).toBe(false);
            seen.add(bucket);
          }
        }
      };
      const storeKeys = async (m: ReplicaProcess): Promise<string[]> =>
        (await m.ask<{ keys: string[] }>('store')).keys;

      await pool(
        Array.from(
          { length: OBJECTS },
          (_, i) => () =>
            client.create<Cm>({ ...CM, metadata: { name: `cm-${i}`, namespace: NS }, data: { v: '0' } }),
        ),
        16,
      );
      const objects = (await client.list<Cm>(CM, { namespace: NS })).items;
      expect(objects).toHaveLength(OBJECTS);
      const bucketOfKey = new Map(
        objects.map((o) => [objectKey(o), bucketOf(o.metadata.uid ?? '', BUCKETS)]),
      );
      const keysOf = (buckets: ReadonlySet<number>): string[] =>
        [...bucketOfKey]
          .filter(([, bucket]) => buckets.has(bucket))
          .map(([key]) => key)
          .sort();

      // Continuous writes, one in flight, for as long as the replicas come and go. A write the
      // server refuses under load (a 429, a timeout) is not what this test checks: the next goes on,
      // and the end compares with what the server holds.
      let version = 0;
      let landed = 0;
      let writing = true;
      const writer = (async () => {
        while (writing) {
          version++;
          try {
            await client.patch(
              { ...CM, namespace: NS, name: `cm-${(version * 7919) % OBJECTS}` },
              { type: 'merge', body: { data: { v: String(version) } } },
            );
            landed++;
          } catch {
            // counted by what did not land
          }
        }
      })();

      try {
        const [a, bb, c] = await Promise.all(['replica-a', 'replica-b', 'replica-c'].map(spawn));
        if (a === undefined || bb === undefined || c === undefined) throw new Error('unreachable');
        for (let i = 0; i < 3; i++) await lookAll([a, bb, c]);
        expectDisjoint([a, bb, c]);
        expect([a, bb, c].map((m) => looks.get(m.id)?.synced)).toEqual([true, true, true]);
        expect([a, bb, c].reduce((n, m) => n + opened(m).length, 0)).toBe(BUCKETS);

        // Kill a between looks: no drain, no release, reconciles and watches cut mid-flight.
        const ofA = [...opened(a)];
        expect(ofA.length).toBeGreaterThan(0);
        await waitFor('replica-a reconciling', () => intervals([a]).all.some((i) => i.end === 2n ** 63n), {
          timeoutMs: STEP_MS,
          intervalMs: 1,
        });
        await a.kill();
        expect((await a.exited).signal).toBe('SIGKILL');
        const killedAt = round;
        takenAt.clear();
        const [d, e] = await Promise.all(['replica-d', 'replica-e'].map(spawn));
        if (d === undefined || e === undefined) throw new Error('unreachable');
        const survivors = [bb, c, d, e];
        while (ofA.some((bucket) => !takenAt.has(bucket)) && round - killedAt < 20) {
          await lookAll(survivors);
          expectDisjoint(survivors);
        }
        for (let i = 0; i < 2; i++) await lookAll(survivors);
        expectDisjoint(survivors);
        // The dead replica's buckets waited for its membership to expire, and no longer than the
        // bound the ring states (`deadMemberBoundMs`), counted in looks of its clock.
        const bound = new ShardRing(client, ringOptions).deadMemberBoundMs;
        const gaps = ofA.map((bucket) => ((takenAt.get(bucket) ?? Infinity) - killedAt) * RETRY);
        expect(Math.max(...gaps)).toBeLessThanOrEqual(bound);
        expect(Math.min(...gaps)).toBeGreaterThanOrEqual(LEASE - RETRY);

        // Each survivor holds the buckets rendezvous hashing gives it over the survivors, and its
        // Store holds exactly their objects (its watch carries only them: server-side on the
        // embedded server, filtered client-side on v1.24) — its share of the objects ± 20 %.
        const owners = assignBuckets(
          BUCKETS,
          survivors.map((m) => m.id),
        );
        const owned = survivors.map((m) => ({
          m,
          buckets: new Set(owners.flatMap((owner, bucket) => (owner === m.id ? [bucket] : []))),
        }));
        for (const { m, buckets } of owned) expect(opened(m), m.id).toEqual([...buckets]);
        const stores = await waitFor(
          "each replica's Store holds exactly its buckets' objects",
          async () => {
            const keys = await Promise.all(owned.map(({ m }) => storeKeys(m)));
            return (
              owned.every(({ buckets }, i) => JSON.stringify(keys[i]) === JSON.stringify(keysOf(buckets))) &&
              keys
            );
          },
          { timeoutMs: STEP_MS, intervalMs: 200 },
        );
        for (const [i, { m, buckets }] of owned.entries()) {
          const share = (OBJECTS * buckets.size) / BUCKETS;
          const size = stores[i]?.length ?? 0;
          expect(
            Math.abs(size - share),
            `${m.id}: ${size} objects for ${buckets.size} buckets`,
          ).toBeLessThanOrEqual(0.2 * share);
        }
        expect(stores.reduce((n, keys) => n + keys.length, 0)).toBe(OBJECTS);
        // The dead replica's keys: each reconciled again by the replica that took its bucket,
        // after the kill (the acquisition requests every key of the bucket, written or not).
        const ownerOf = new Map(owners.map((owner, bucket) => [bucket, owner]));
        await waitFor(
          "every key of the killed replica's buckets reconciled by its new owner",
          () => {
            const after = intervals(started).all.filter(
              (i) => a.deadAt !== undefined && i.start > a.deadAt && i.version !== undefined,
            );
            const done = new Set(after.map((i) => `${i.replica} ${i.key}`));
            return keysOf(new Set(ofA)).every((key) =>
              done.has(`${ownerOf.get(bucketOfKey.get(key) ?? -1) ?? ''} ${key}`),
            );
          },
          { timeoutMs: STEP_MS, intervalMs: 200 },
        );
        // In a phase without membership changes, no replica reconciles a key of another's bucket.
        const phase = process.hrtime.bigint();
        for (let i = 0; i < 2; i++) await lookAll(survivors);
        await waitFor(
          'a reconcile on every survivor in the phase',
          () => {
            const ran = new Set(
              intervals(survivors)
                .all.filter((i) => i.start > phase)
                .map((i) => i.replica),
            );
            return survivors.every((m) => ran.has(m.id));
          },
          { timeoutMs: STEP_MS, intervalMs: 100 },
        );
        const strays = intervals(survivors)
          .all.filter((i) => i.start > phase && ownerOf.get(bucketOfKey.get(i.key) ?? -1) !== i.replica)
          .map((i) => `${i.replica}: ${i.key}`);
        expect(strays, 'keys reconciled outside their buckets').toEqual([]);

        // Scale down gracefully to one replica: each drains, releases, and exits 0.
        let rest = [...survivors];
        for (const m of [e, d, c]) {
          await m.ask('stop');
          expect((await m.exited).code, m.id).toBe(0);
          rest = rest.filter((s) => s !== m);
          for (let i = 0; i < 2; i++) await lookAll(rest);
        }
        expect(opened(bb)).toEqual(Array.from({ length: BUCKETS }, (_, i) => i));
        await waitFor(
          'the last replica holds every object',
          async () => (await storeKeys(bb)).length === OBJECTS,
          {
            timeoutMs: STEP_MS,
            intervalMs: 200,
          },
        );
      } finally {
        writing = false;
        await writer;
      }
      // Every key's last version was reconciled (by the one replica left).
      const last = await waitFor(
        'every ConfigMap reconciled at its last version',
        async () => {
          const items = (await client.list<Cm>(CM, { namespace: NS })).items;
          const latest = new Map<string, Interval>();
          for (const i of intervals(started).all) {
            const seen = latest.get(i.key);
            if (i.version !== undefined && (seen === undefined || i.end > seen.end)) latest.set(i.key, i);
          }
          return (
            items.every((o) => latest.get(objectKey(o))?.version === o.metadata.resourceVersion) && latest
          );
        },
        { timeoutMs: STEP_MS, intervalMs: 200 },
      );
      expect(last.size).toBe(OBJECTS);
      expect(landed).toBeGreaterThan(OBJECTS / 10);
      const bb = started.find((r) => r.id === 'replica-b');
      await bb?.ask('stop');
      expect((await bb?.exited)?.code).toBe(0);

      // No two reconciles of one key ever overlapped, across the five processes (recorded by
      // each process as it ran, ordered on the shared monotonic clock).
      const { all, sameProcess } = intervals(started);
      expect(new Set(all.map((i) => i.replica))).toEqual(
        new Set(['replica-a', 'replica-b', 'replica-c', 'replica-d', 'replica-e']),
      );
      expect(sameProcess).toEqual([]);
      expect(overlaps(all)).toEqual([]);
    }, 300_000); // well under a minute alone; a loaded CI machine may need several times that
  },
  { controllerManager: false, realTimeoutMs: 300_000 },
);
