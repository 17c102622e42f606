/**
 * `runSoak()`: the chaos soak. Seeds thousands of objects, starts twenty-odd controllers on one
 * Manager, then writes and injects faults of every kind at once; when the storm ends it waits for
 * convergence and checks it (see checks.ts), measuring how long convergence took, the operator's
 * heap before and after, and every error that escaped.
 *
 * @module
 */
import { KubeClient, loadKubeConfigFile, Manager } from '@rxkube/kube';
import type { FaultCounts } from '@rxkube/testing';
import { firstValueFrom } from 'rxjs';

import type { Verdict } from './checks.js';
import { serverState, verdict } from './checks.js';
import type { SoakConfig } from './config.js';
import type { FaultKind } from './faults.js';
import {
  BURST_ORDER,
  FAULT_KINDS,
  FAULT_WEIGHTS,
  LATE_FAULTS,
  OTHER_WEIGHTS,
  restartsFor,
  WATCH_FAULTS,
} from './faults.js';
import { addControllers } from './operators.js';
import { Random } from './random.js';
import { startSoakServer } from './server.js';
import type { WriteCounts } from './workload.js';
import { layoutOf, seed, storm } from './workload.js';

/** Everything a soak run measured and found. */
export interface SoakReport {
  readonly config: SoakConfig;
  readonly ms: {
    readonly seed: number;
    readonly initialSync: number;
    readonly storm: number;
    readonly converge: number;
  };
  readonly writes: WriteCounts;
  /** Faults injected, by kind (what the storm asked for). */
  readonly injected: Readonly<Record<FaultKind, number>>;
  /** What the server counted as happening. */
  readonly happened: FaultCounts;
  readonly controllers: number;
  readonly watches: number;
  readonly reconciles: number;
  readonly injectedFailures: number;
  /** Of those: thrown synchronously, and hung until the reconcile deadline. */
  readonly thrownSync: number;
  readonly hung: number;
  readonly verdict: Verdict;
  /** Reconciles started after convergence was reached (must be 0: idle means idle). */
  readonly afterIdle: number;
  /** Operator heap after GC, MB: after the initial sync, and after convergence. */
  readonly heapMb: { readonly start: number; readonly end: number };
  readonly errors: { readonly observable: number; readonly unhandled: number; readonly terminal: number };
  readonly ok: boolean;
}

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();
const heapMb = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed / 2 ** 20;
};

/**
 * Runs one soak.
 *
 * ## Example
 * ```ts
 * const report = await runSoak(SHORT, (line) => console.log(line));
 * if (!report.ok) process.exitCode = 1;
 * ```
 */
export async function runSoak(
  config: SoakConfig,
  log: (line: string) => void = () => undefined,
): Promise<SoakReport> {
  const random = new Random(config.seed);
  const layout = layoutOf(config);
  const errors = { observable: 0, unhandled: 0, terminal: 0 };
  const onUnhandled = (): void => {
    errors.unhandled++;
  };
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUnhandled);
  const server = await startSoakServer(config.serverInWorker);
  const client = KubeClient.fromKubeConfig(loadKubeConfigFile(server.kubeconfigPath));
  const mgr = new Manager({
    client,
    name: 'soak',
    logLevel: 'silent',
    // Scaled like the watcher's timers below: reconciles take up to 20 ms here, so a hung one (an
    // injected fault) is cancelled after 250 ms instead of the default 5 min.
    reconcileTimeoutMs: 250,
    // The storm's clock runs faster than a cluster's, so the watcher's timers are scaled down
    // with it: a stall is noticed after 8 s instead of 70 s (the server sends bookmarks every 5 s
    // here, so a healthy watch is never idle that long), and the reconnect backoff is 0.1 s ×2 →
    // 2 s, reset after 10 s healthy, instead of 0.8 s ×2 → 30 s after 2 min. With the defaults a
    // storm of back-to-back faults keeps most watches in their 30 s backoff, and the faults that
    // act on open watches (drops, stalls, cuts, malformed lines) find almost none to hit.
    watcher: {
      idleTimeoutMs: 8_000,
      backoff: { initialMs: 100, maxMs: 2_000, factor: 2, jitter: 0.5, resetAfterMs: 10_000 },
    },
  });
  try {
    let t = Date.now();
    log(`soak: seeding ${config.objects} ConfigMaps over ${config.namespaces} namespaces`);
    await seed(client, layout, random, config.writeConcurrency);
    const seedMs = Date.now() - t;

    const controllers = addControllers(mgr, layout, random, config.failureRate, config.maxReconcileMs);
    const results = mgr.results$.subscribe({
      next: (r) => {
        const c = controllers.find((x) => x.name === r.controller);
        if (r.outcome === 'skipped') c?.seen.set(r.key, 'absent');
        if (r.outcome === 'terminal') errors.terminal++;
      },
      error: () => errors.observable++,
    });
    t = Date.now();
    await mgr.start();
    const initial = await converge(mgr, controllers, client, config.convergeTimeoutMs, 'the initial sync');
    const initialSyncMs = Date.now() - t;
    const heapStart = heapMb();
    log(
      `soak: ${controllers.length} controllers on ${mgr.targets().length} watches synced in ${initialSyncMs} ms; storm of ${config.writes} writes and ${config.faults} faults`,
    );

    t = Date.now();
    const injected = Object.fromEntries(FAULT_KINDS.map((k) => [k, 0])) as Record<FaultKind, number>;
    let writing = true;
    const progress = { done: 0 };
    const writes = storm(client, layout, random, config.writes, config.writeConcurrency, progress).finally(
      () => {
        writing = false;
      },
    );
    let n = 0;
    // Bursts of faults with calm between them: a watch knocked out by one fault reconnects after
    // its backoff, so faults injected back to back would meet no open watch. After a burst, its
    // rules get 1 s to meet their requests, then the next burst waits for at least half the
    // watches to be open again (at most 3 s) and for the writes to have kept pace; the writes
    // never pause. Rules a burst leaves unconsumed are cleared.
    const burst = Math.max(30, Math.round(config.faults / 200));
    const restartEvery = Math.max(1, Math.floor(config.faults / (restartsFor(config.faults) + 1)));
    const watches = mgr.targets().length;
    let bursts = 0;
    while (writing || n < config.faults) {
      // the calm: at least 1 s for the last burst's rules to meet the requests and lines they
      // wait for (the writes stream on), then until half the watches are open again (3 s at most)
      await pause(1_000, 3_000, async () => (await server.openWatches()) >= watches / 2);
      // injected errors, delays and expiries the last burst left unmet end with its calm: left to
      // pile up, they would fail every reconnect of the whole storm
      await server.reset();
      while (writing && n / config.faults > progress.done / config.writes) {
        await new Promise((r) => setTimeout(r, 20));
      }
      // the burst's kinds in BURST_ORDER: those acting on the next line first, then each kind that
      // closes or stops watches (malformed lines, stalls, drops, restarts) in its own turn
      // Cuts and malformed lines take turns by burst: an armed cut fires on the next line a watch
      // writes, which would be a malformed line queued in the same burst.
      const lineFault: FaultKind = bursts++ % 2 === 0 ? 'cut' : 'malformed';
      const kinds: FaultKind[] = [];
      for (let k = 0; k < burst; k++, n++) {
        const drawn = random.weighted(FAULT_WEIGHTS);
        kinds.push(
          n > 0 && n % restartEvery === 0 && injected.restart < restartsFor(config.faults)
            ? 'restart'
            : drawn === 'cut' || drawn === 'malformed'
              ? lineFault
              : drawn,
        );
      }
      kinds.sort((a, b) => BURST_ORDER.indexOf(a) - BURST_ORDER.indexOf(b));
      let previous: FaultKind | undefined;
      let malformedBefore = 0;
      for (let kind of kinds) {
        if (previous === 'malformed' && kind !== previous) {
          // malformed lines queue behind the events a backlogged watch has not sent yet: let them
          // be written (1.5 s at most) before a stall or a drop stops the stream
          await pause(0, 1_500, async () => (await server.counts()).malformedLines > malformedBefore);
        }
        if (kind === 'malformed' && previous !== 'malformed') {
          malformedBefore = (await server.counts()).malformedLines;
        }
        if (LATE_FAULTS.has(kind) && kind !== previous) {
          // each kind that closes watches gets its own turn: 0.5 s for lines to flow, then until
          // half the watches are open again after the previous kind closed them (1 s at most)
          await pause(500, 1_500, async () => (await server.openWatches()) >= watches / 2);
        }
        previous = kind;
        // a fault on open watches only when one is open to receive it; otherwise another kind
        if (WATCH_FAULTS.has(kind) && (await server.openWatches()) === 0) {
          kind = random.weighted(OTHER_WEIGHTS);
        }
        await server.fault(kind, n).catch(() => undefined);
        injected[kind]++;
      }
    }
    const writeCounts = await writes;
    await server.reset();
    const stormMs = Date.now() - t;
    log(
      `soak: storm done in ${stormMs} ms (${writeCounts.succeeded} writes landed, ${n} faults); converging`,
    );

    t = Date.now();
    const final = await converge(
      mgr,
      controllers,
      client,
      config.convergeTimeoutMs,
      'convergence after the storm',
    );
    const convergeMs = Date.now() - t;
    const before = controllers.reduce((s, c) => s + c.reconciles, 0);
    await new Promise((r) => setTimeout(r, 1_000));
    const afterIdle = controllers.reduce((s, c) => s + c.reconciles, 0) - before;
    const heapEnd = heapMb();
    results.unsubscribe();
    const happened = await server.counts();
    const report: SoakReport = {
      config,
      ms: { seed: seedMs, initialSync: initialSyncMs, storm: stormMs, converge: convergeMs },
      writes: writeCounts,
      injected,
      happened,
      controllers: controllers.length,
      watches: mgr.targets().length,
      reconciles: controllers.reduce((s, c) => s + c.reconciles, 0),
      injectedFailures: controllers.reduce((s, c) => s + c.failures, 0),
      thrownSync: controllers.reduce((s, c) => s + c.thrownSync, 0),
      hung: controllers.reduce((s, c) => s + c.hung, 0),
      verdict: final,
      afterIdle,
      heapMb: { start: heapStart, end: heapEnd },
      errors,
      ok:
        initial.ok &&
        final.ok &&
        afterIdle === 0 &&
        errors.observable === 0 &&
        errors.unhandled === 0 &&
        errors.terminal === 0 &&
        (!config.serverInWorker || heapEnd - heapStart < 8),
    };
    return report;
  } finally {
    await mgr.stop();
    client.close();
    await server.stop();
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUnhandled);
  }
}

/** Polls the checks until they pass (returning the passing verdict) or `timeoutMs` ends (returning the last). */
async function converge(
  mgr: Manager,
  controllers: Parameters<typeof verdict>[1],
  client: KubeClient,
  timeoutMs: number,
  what: string,
): Promise<Verdict> {
  const deadline = Date.now() + timeoutMs;
  let last: Verdict | undefined;
  for (;;) {
    const state = await serverState(client);
    last = verdict(mgr, controllers, state);
    // idle by the Manager's public signal (nothing queued, running, waiting for a retry or a
    // debounce) and by the soak's own count of reconciles in flight
    const idle = await firstValueFrom(mgr.idle$);
    if (last.ok && idle && controllers.every((c) => c.inFlight.size === 0)) return last;
    if (Date.now() > deadline) {
      console.error(`soak: no ${what} within ${timeoutMs} ms`);
      return last;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Waits at least `minMs`, then until `done()` holds or `maxMs` have passed (polled every 20 ms). */
async function pause(minMs: number, maxMs: number, done: () => Promise<boolean>): Promise<void> {
  const from = Date.now();
  while (Date.now() < from + minMs || (Date.now() < from + maxMs && !(await done()))) {
    await new Promise((r) => setTimeout(r, 20));
  }
}
