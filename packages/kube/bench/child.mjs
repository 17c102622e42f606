// Client side harness of the watch-cache benchmark: runs one side in its own process (fresh heap)
// and reports its figures to the parent over IPC. Each side calls `runSide(start)` with a function
// that starts its list+watch and returns a view of its cache.
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { clearInterval, setInterval } from 'node:timers';

const env = (name) => {
  const value = process.env[name];
  if (value === undefined)
    throw new Error(`bench/child.mjs: ${name} is not set; run bench/watch-cache.bench.mjs`);
  return value;
};

/** Peak resident set size (kernel high-water mark, bytes), or undefined off Linux. */
function vmHwm() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const cpuMs = (u) => (u.user + u.system) / 1000;

/**
 * @param {(ctx: {
 *   url: string, token: string, kubeconfigPath: string, namespace: string,
 *   synced: () => void, modified: () => void, fail: (e: unknown) => void,
 * }) => Promise<{ size(): number, rvSum(): number, extra?(): object }>} start
 */
export async function runSide(start) {
  if (typeof globalThis.gc !== 'function') throw new Error('bench/child.mjs: run with node --expose-gc');
  const events = Number(env('BENCH_EVENTS'));
  const ctx0 = {
    url: env('BENCH_URL'),
    token: env('BENCH_TOKEN'),
    kubeconfigPath: env('BENCH_KUBECONFIG'),
    namespace: env('BENCH_NAMESPACE'),
  };
  // Baseline after the side's modules are loaded (they are imported before runSide is called).
  globalThis.gc();
  globalThis.gc();
  const heap0 = process.memoryUsage().heapUsed;
  const rss0 = process.memoryUsage.rss();
  // Linux keeps the exact peak (VmHWM); elsewhere sample every 25 ms (costs ~1% CPU).
  let peakRssSampled = rss0;
  const sampler =
    vmHwm() === undefined
      ? setInterval(() => {
          const rss = process.memoryUsage.rss();
          if (rss > peakRssSampled) peakRssSampled = rss;
        }, 25)
      : undefined;
  sampler?.unref();

  let cache;
  let tSynced;
  let cpuSynced;
  let tFirst;
  let count = 0;
  let done = false;
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();

  const fail = (e) => {
    if (done) return;
    done = true;
    process.send({ type: 'failed', error: e instanceof Error ? (e.stack ?? e.message) : String(e) }, () =>
      process.exit(1),
    );
  };

  const finish = () => {
    const tLast = performance.now();
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    const size = cache.size();
    const rvSum = cache.rvSum();
    globalThis.gc();
    globalThis.gc();
    const heap1 = process.memoryUsage().heapUsed;
    const result = {
      type: 'result',
      syncMs: tSynced - t0,
      lastEventMs: tLast - t0,
      eventsMs: tLast - tFirst,
      lastEventAt: performance.timeOrigin + tLast, // wall clock, comparable with the parent's
      cpuMs: cpuMs(cpu),
      cpuSyncMs: cpuSynced,
      peakRss: vmHwm() ?? peakRssSampled,
      baselineRss: rss0,
      retainedHeap: heap1 - heap0,
      size,
      rvSum,
      events: count,
      ...(cache.extra ? { extra: cache.extra() } : {}),
    };
    // keep the cache reachable until the heap was measured
    if (cache.size() !== size) throw new Error('cache changed while measuring');
    process.send(result, () => process.exit(0));
  };

  cache = await start({
    ...ctx0,
    synced: () => {
      if (tSynced !== undefined) return;
      tSynced = performance.now();
      cpuSynced = cpuMs(process.cpuUsage(cpu0));
      process.send({ type: 'synced' });
    },
    modified: () => {
      if (done) return;
      if (++count === 1) tFirst = performance.now();
      if (count === events) {
        done = true;
        finish();
      }
    },
    fail,
  }).catch((e) => {
    fail(e);
    return undefined;
  });
  process.on('disconnect', () => process.exit(2));
}
