// Throughput and heap benchmark for runByKey (run: `pnpm --filter @rxkube/core bench`).
//
// Each scenario pushes N keyed events (numbers; key = value % keys) through a pipeline. The source
// emits all N events synchronously, then completes: the worst case for pending state, since
// nothing downstream gets a chance to finish between events.
//
// - events/s: N / wall time from subscribe to complete; median of 3 timed runs (after a warm-up).
// - retained heap: a separate run forces a full GC every 100,000 source events (and just before
//   the source completes, when pending state is largest) and records the peak of
//   process.memoryUsage().heapUsed above the post-GC baseline: live state only, not garbage.
// - sync work is `of(x)`; promise work is `Promise.resolve(x)`, which cannot finish while the
//   burst runs, so values pile up wherever the operator keeps them (runByKey: one per key).
//   mergeMap with promise work is not run: it buffers every event and rxjs 7's buffer `shift()`
//   makes that O(events²) (about 50 s for 1,000,000 events).
//
// Node's --expose-gc is required (the `bench` script passes it).
import { performance } from 'node:perf_hooks';
import { Observable, mergeMap, of } from 'rxjs';

import { debounceByKey, runByKey } from '../dist/index.js';

const EVENTS = 1_000_000;
const CONCURRENCY = 8;
const GC_EVERY = 100_000;
const TIMED_RUNS = 3;

if (typeof globalThis.gc !== 'function') {
  console.error('bench: run with `node --expose-gc` (use `pnpm --filter @rxkube/core bench`).');
  process.exit(2);
}

let peak = 0;
const measureRetained = () => {
  globalThis.gc();
  const used = process.memoryUsage().heapUsed;
  if (used > peak) peak = used;
};

/** N numbered events, emitted synchronously; with `measure`, the retained heap is sampled. */
const events = (n, measure) =>
  new Observable((subscriber) => {
    for (let i = 0; i < n && !subscriber.closed; i++) {
      subscriber.next(i);
      if (measure && i % GC_EVERY === GC_EVERY - 1) measureRetained();
    }
    if (measure) measureRetained();
    subscriber.complete();
  });

const syncWork = (x) => of(x);
const promiseWork = (x) => Promise.resolve(x);

const pipelines = {
  'mergeMap(8), sync work': () => mergeMap(syncWork, CONCURRENCY),
  'runByKey(8), sync work': (keyOf) => runByKey(keyOf, syncWork, { concurrency: CONCURRENCY }),
  'debounceByKey(0) → runByKey(8), sync work': (keyOf) => (source) =>
    source.pipe(debounceByKey(keyOf, 0), runByKey(keyOf, syncWork, { concurrency: CONCURRENCY })),
  'runByKey(8), promise work': (keyOf) => runByKey(keyOf, promiseWork, { concurrency: CONCURRENCY }),
};

/** One pass; resolves with wall seconds and work results seen. */
function pass(name, keys, measure) {
  const keyOf = (x) => x % keys;
  const operator = pipelines[name](keyOf);
  return new Promise((resolve, reject) => {
    let outputs = 0;
    const t0 = performance.now();
    events(EVENTS, measure)
      .pipe(operator)
      .subscribe({
        next: () => {
          outputs++;
        },
        error: reject,
        complete: () => resolve({ seconds: (performance.now() - t0) / 1000, outputs }),
      });
  });
}

async function scenario(name, keys) {
  const times = [];
  let outputs = 0;
  for (let i = 0; i < TIMED_RUNS; i++) {
    globalThis.gc();
    const r = await pass(name, keys, false);
    times.push(r.seconds);
    outputs = r.outputs;
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  globalThis.gc();
  globalThis.gc();
  const baseline = process.memoryUsage().heapUsed;
  peak = baseline;
  await pass(name, keys, true);
  return { name, keys, outputs, perSecond: EVENTS / median, retainedMiB: (peak - baseline) / 2 ** 20 };
}

const fmt = (n) => Math.round(n).toLocaleString('en-US');
// warm-up so the JIT has compiled the hot paths before anything is timed
for (const name of Object.keys(pipelines)) await pass(name, 10_000, false);
const rows = [];
for (const keys of [10_000, 100_000]) {
  for (const name of Object.keys(pipelines)) rows.push(await scenario(name, keys));
}

console.log(`node ${process.version}, ${fmt(EVENTS)} events per run, concurrency ${CONCURRENCY}\n`);
console.log('| pipeline | keys | events/s | vs mergeMap | work runs | retained heap (MiB) |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const r of rows) {
  const base = rows.find((b) => b.keys === r.keys && b.name === 'mergeMap(8), sync work');
  const ratio = base === undefined ? '' : `${(r.perSecond / base.perSecond).toFixed(2)}×`;
  console.log(
    `| ${r.name} | ${fmt(r.keys)} | ${fmt(r.perSecond)} | ${ratio} | ${fmt(r.outputs)} | ${r.retainedMiB.toFixed(1)} |`,
  );
}
const slowest = Math.min(
  ...rows
    .filter((r) => r.name.startsWith('runByKey') || r.name.startsWith('debounce'))
    .map((r) => r.perSecond),
);
console.log(
  `\nslowest runByKey pipeline: ${fmt(slowest)} events/s (target >= 500,000): ${slowest >= 500_000 ? 'met' : 'MISSED'}`,
);
