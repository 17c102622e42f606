/**
 * The soak's sizes, as two presets — `full` (`pnpm soak`) and `short` (CI, inside the test run) —
 * and command-line overrides.
 *
 * @module
 */

/** What a soak run does. */
export interface SoakConfig {
  /** ConfigMaps created before the storm. */
  readonly objects: number;
  /** Namespaces they are spread over (`soak-00`, …). */
  readonly namespaces: number;
  /** Writes during the storm: patches, deletes, re-creates of the same names, Secret writes. */
  readonly writes: number;
  /** Faults injected during the storm (of every kind). */
  readonly faults: number;
  /** Parallel writes in flight. */
  readonly writeConcurrency: number;
  /** Probability that a reconcile throws. */
  readonly failureRate: number;
  /** Longest reconcile, ms (each takes a random time up to this). */
  readonly maxReconcileMs: number;
  /** Run the API server in a worker thread (its heap apart from the operator's). */
  readonly serverInWorker: boolean;
  /** Seed of every random choice. */
  readonly seed: number;
  /** How long the controllers may take to converge after the storm. */
  readonly convergeTimeoutMs: number;
  /**
   * 0: one Manager with the 23 controllers. N > 0: the multi-replica mode (`sharded.ts`): N
   * Managers sharding one controller, replica kills and restarts among the faults.
   */
  readonly replicas: number;
}

/** `pnpm soak`: the sizes issue #12 asks for. */
export const FULL: SoakConfig = {
  objects: 5_000,
  namespaces: 20,
  writes: 50_000,
  faults: 10_000,
  writeConcurrency: 32,
  failureRate: 0.03,
  maxReconcileMs: 20,
  serverInWorker: true,
  seed: 1,
  // the initial sync alone is ~5,000 reconciles of 10 ms on average at concurrency 1 for one of them
  convergeTimeoutMs: 600_000,
  replicas: 0,
};

/** The short soak in CI: every fault kind, every controller shape, a tenth of the load. */
export const SHORT: SoakConfig = {
  objects: 400,
  namespaces: 20,
  writes: 3_000,
  faults: 600,
  writeConcurrency: 16,
  failureRate: 0.03,
  maxReconcileMs: 10,
  serverInWorker: false,
  seed: 7,
  convergeTimeoutMs: 60_000,
  replicas: 0,
};

/**
 * The short multi-replica soak in CI: 3 replicas over 300 objects, a storm of about 10 s (20 s on a loaded 2-core machine) with
 * replica faults every 2 s (`pnpm soak -- --replicas 3` runs the full sizes).
 */
export const SHORT_SHARDED: SoakConfig = {
  ...SHORT,
  objects: 300,
  writes: 700,
  faults: 200,
  writeConcurrency: 2,
  replicas: 3,
};

/** Parses `--short`, `--seed N`, `--objects N`, … over a preset; throws a RangeError naming the bad flag. */
export function configFromArgs(argv: readonly string[]): SoakConfig {
  let config: SoakConfig = argv.includes('--short') ? SHORT : FULL;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    if (flag === '--short') continue;
    if (flag === '--in-process') {
      config = { ...config, serverInWorker: false };
      continue;
    }
    const key = flag
      .replace(/^--/, '')
      .replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) as keyof SoakConfig;
    const value = Number(argv[++i]);
    if (!(key in config) || typeof config[key] !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new RangeError(
        `soak: unknown flag or bad value ${flag} ${String(argv[i])}; flags: --short, --in-process, ${Object.keys(
          FULL,
        )
          .filter((k) => typeof FULL[k as keyof SoakConfig] === 'number')
          .map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} N`)
          .join(', ')}`,
      );
    }
    config = { ...config, [key]: value };
  }
  return config;
}
