// One side of the operator benchmark (bench/operator.bench.mjs), in its own process: the
// ConfigMap hasher written the way each library's users would write it.
//
//   rxkube       Manager + mgr.add('hash', { for: ConfigMap, labelSelector }, reconcile): the
//                reconcile reads ctx.object (the Store's latest) and merge-patches through ctx.client.
//   client-node  makeInformer + on('add' | 'update') handlers: the hash is computed from the
//                event's object and a merge patch (CoreV1Api.patchNamespacedConfigMap) is queued
//                behind a FIFO semaphore of the same concurrency.
//
// Also exports the hash and the names both sides and the parent share. The side only runs when
// BENCH_OPERATOR_SIDE is set (the parent sets it for its children; importing this file runs nothing).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/** The label that opts a ConfigMap in, as a selector. */
export const SELECTOR = 'bench=true';
/** The annotation the operator keeps equal to the hash of `data`. */
export const ANNOTATION = 'bench.rxkube.io/hash';
const FIELD_MANAGER = 'bench-hasher';

/** A stable hash of a ConfigMap's `data`: keys sorted, 16 hex digits of SHA-256. */
export function dataHash(data) {
  const h = createHash('sha256');
  for (const key of Object.keys(data ?? {}).sort()) h.update(`${key}\0${data[key]}\0`);
  return h.digest('hex').slice(0, 16);
}

/** The merge patch that brings the annotation up to date, or undefined when it already is. */
function hashPatch(cm) {
  const want = dataHash(cm.data);
  if (cm.metadata.annotations?.[ANNOTATION] === want) return undefined;
  return { metadata: { annotations: { [ANNOTATION]: want } } };
}

/** Peak resident set size (kernel high-water mark, bytes), or the current RSS off Linux. */
function vmHwm() {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (m) return Number(m[1]) * 1024;
  } catch {
    // not Linux
  }
  return process.memoryUsage.rss();
}

const cpuMs = (u) => (u.user + u.system) / 1000;

const env = (name) => {
  const value = process.env[name];
  if (value === undefined || value === '')
    throw new Error(`bench/operator-child.mjs: ${name} is not set; run bench/operator.bench.mjs`);
  return value;
};

/** Counters of one side; `patches` counts PATCH requests sent (answered or not). */
function counters() {
  return { calls: 0, patches: 0, patchErrors: 0, lastError: undefined };
}

async function rxkubeSide({ kubeconfigPath, concurrency, stats, fail }) {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const { KubeClient, Manager } = await import('../dist/index.js');
  const { Action } = await import('@rxkube/core');
  const { defer } = await import('rxjs');
  return {
    async start() {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      const client = KubeClient.fromKubeConfig(kc);
      // BENCH_TRACING=1: every reconcile traced (spans built and exported to an in-memory
      // exporter that keeps none), to measure what tracing costs.
      const tracing =
        process.env.BENCH_TRACING === '1'
          ? await (async () => {
              const sdk = await import('@opentelemetry/sdk-trace-base');
              const { reconcileTracing } = await import('../dist/trace/index.js');
              const exporter = { export: (spans, done) => done({ code: 0 }), shutdown: async () => {} };
              const provider = new sdk.BasicTracerProvider({
                spanProcessors: [new sdk.SimpleSpanProcessor(exporter)],
              });
              return reconcileTracing(provider.getTracer('bench'));
            })()
          : undefined;
      const mgr = new Manager({
        client,
        name: 'bench-hasher',
        concurrency,
        logLevel: 'silent',
        ...(tracing !== undefined ? { tracing } : {}),
      });
      let store;
      mgr.add(
        'hash',
        { for: { apiVersion: 'v1', kind: 'ConfigMap' }, labelSelector: SELECTOR },
        (request, ctx) =>
          defer(async () => {
            stats.calls++;
            store = ctx.store;
            // level-triggered: ctx.object is the Store's latest version of the object
            const patch = hashPatch(ctx.object);
            if (patch) {
              stats.patches++;
              await ctx.client.patch(
                request,
                { type: 'merge', body: patch },
                { fieldManager: FIELD_MANAGER },
              );
            }
            return Action.awaitChange();
          }),
      );
      mgr.results$.subscribe((r) => {
        if (r.outcome === 'error') {
          stats.patchErrors++;
          stats.lastError = r.error instanceof Error ? r.error.message : String(r.error);
        }
      });
      await mgr.start().catch(fail);
      return {
        // nothing running; the Store's newest resourceVersion (what the watch delivered so far)
        status: () => {
          let maxRv = 0;
          for (const o of store?.list() ?? []) maxRv = Math.max(maxRv, Number(o.metadata.resourceVersion));
          return { idle: mgr.inFlight === 0, maxRv };
        },
        stop: () => mgr.stop(),
      };
    },
  };
}

async function clientNodeSide({ kubeconfigPath, concurrency, stats, fail }) {
  const { CoreV1Api, KubeConfig, PatchStrategy, makeInformer, setHeaderOptions } =
    await import('@kubernetes/client-node');
  return {
    async start() {
      const kc = new KubeConfig();
      kc.loadFromFile(kubeconfigPath);
      const api = kc.makeApiClient(CoreV1Api);
      const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
      // a FIFO semaphore: at most `concurrency` PATCHes in flight, the rest wait in order
      let active = 0;
      const waiting = [];
      const next = () => {
        const task = waiting.shift();
        if (task === undefined) {
          active--;
          return;
        }
        void task().finally(next);
      };
      const limit = (task) => {
        if (active < concurrency) {
          active++;
          void task().finally(next);
        } else waiting.push(task);
      };
      let maxRv = 0;
      const onEvent = (cm) => {
        stats.calls++;
        maxRv = Math.max(maxRv, Number(cm.metadata.resourceVersion));
        const patch = hashPatch(cm);
        if (!patch) return;
        const { name, namespace } = cm.metadata;
        limit(async () => {
          stats.patches++;
          try {
            await api.patchNamespacedConfigMap(
              { name, namespace, body: patch, fieldManager: FIELD_MANAGER },
              mergePatch,
            );
          } catch (e) {
            stats.patchErrors++;
            const cause = e?.cause;
            stats.lastError = `${e instanceof Error ? e.message : String(e)}${cause ? `: ${cause.code ?? ''} ${cause.message ?? cause}` : ''}`;
          }
        });
      };
      const informer = makeInformer(
        kc,
        '/api/v1/configmaps',
        () => api.listConfigMapForAllNamespaces({ labelSelector: SELECTOR }),
        SELECTOR,
      );
      informer.on('add', onEvent);
      informer.on('update', onEvent);
      informer.on('error', fail);
      await informer.start();
      return {
        status: () => ({ idle: active === 0 && waiting.length === 0, maxRv }),
        stop: () => informer.stop(),
      };
    },
  };
}

const SIDES = { rxkube: rxkubeSide, 'client-node': clientNodeSide };

async function main(side) {
  const make = SIDES[side];
  if (!make) throw new Error(`bench/operator-child.mjs: unknown side "${side}"`);
  const stats = counters();
  let done = false;
  const fail = (e) => {
    if (done) return;
    done = true;
    process.send({ type: 'failed', error: e instanceof Error ? (e.stack ?? e.message) : String(e) }, () =>
      process.exit(1),
    );
  };
  process.on('disconnect', () => process.exit(2));
  process.on('unhandledRejection', fail);
  const impl = await make({
    kubeconfigPath: env('BENCH_KUBECONFIG'),
    concurrency: Number(env('BENCH_CONCURRENCY')),
    stats,
    fail,
  });
  const baselineRss = process.memoryUsage.rss(); // modules loaded, nothing started
  let running;
  let cpu0;
  let mark;
  process.on('message', (m) => {
    void (async () => {
      if (m.type === 'start') {
        cpu0 = process.cpuUsage();
        running = await impl.start();
        process.send({ type: 'started' });
      } else if (m.type === 'status') {
        process.send({
          type: 'status',
          id: m.id,
          ...running.status(),
          errors: stats.patchErrors,
          lastError: stats.lastError,
        });
      } else if (m.type === 'mark') {
        // end of phase 1: snapshot, so phase 2 is reported on its own
        mark = { ...stats, cpuMs: cpuMs(process.cpuUsage(cpu0)), peakRss: vmHwm() };
        process.send({ type: 'marked' });
      } else if (m.type === 'finish') {
        const total = { ...stats, cpuMs: cpuMs(process.cpuUsage(cpu0)), peakRss: vmHwm() };
        await running.stop();
        done = true;
        process.send({ type: 'result', baselineRss, phase1: mark, total }, () => process.exit(0));
      }
    })().catch(fail);
  });
  process.send({ type: 'ready' });
}

if (process.env.BENCH_OPERATOR_SIDE) await main(process.env.BENCH_OPERATOR_SIDE);
