/**
 * Manager configuration from the environment and command-line flags, layered over the options
 * the code passes: flags win over environment variables, which win over code. Every value is
 * checked; a bad one throws a {@link ManagerConfigError} naming the flag or variable and what it
 * accepts.
 *
 * | flag | environment | option |
 * | --- | --- | --- |
 * | `--namespace`, `-n` (repeatable, or comma-separated) | `RXKUBE_NAMESPACES`, `WATCH_NAMESPACE` | `namespaces` |
 * | `--concurrency` | `RXKUBE_CONCURRENCY` | `concurrency` |
 * | `--metrics-port` (`0` = pick, `off`) | `RXKUBE_METRICS_PORT` | `metricsPort` |
 * | `--health-port` (`0` = pick, `off`) | `RXKUBE_HEALTH_PORT` | `healthPort` |
 * | `--health-probe-bind-address` (alias `--health-bind-address`) | `RXKUBE_HEALTH_PROBE_BIND_ADDRESS` | `healthProbeBindAddress` |
 * | `--metrics-bind-address` | `RXKUBE_METRICS_BIND_ADDRESS` | `metricsBindAddress` |
 * | `--leader-elect` / `--no-leader-elect` | `RXKUBE_LEADER_ELECT` (`true`/`false`) | `leaderElection` |
 * | `--lease-name` | `RXKUBE_LEASE_NAME` | `leaderElection.leaseName` |
 * | `--lease-namespace` | `RXKUBE_LEASE_NAMESPACE`, `POD_NAMESPACE` | `leaderElection.leaseNamespace` |
 * | `--log-level` | `RXKUBE_LOG_LEVEL`, `LOG_LEVEL` | `logLevel` |
 * | `--shutdown-timeout` (`30s`, `500ms`, `1m`) | `RXKUBE_SHUTDOWN_TIMEOUT` | `shutdownTimeoutMs` |
 * | `--shard-ring` | `RXKUBE_SHARD_RING` | `sharding.ring` |
 *
 * A port and a bind address of the same server: the later layer wins (a `--health-port` flag
 * overrides a bind address given in code or the environment, and the reverse).
 *
 * @module
 */

import type { ManagerLeaderElectionOptions, ManagerOptions } from './manager-options.js';
import { parseBindAddress } from './manager-options.js';

/**
 * The settings configurable from outside the code.
 *
 * ## Example
 * ```ts
 * const settings: ManagerSettings = settingsFromEnv(); // e.g. RXKUBE_NAMESPACES=team-a,team-b → { namespaces: ['team-a', 'team-b'] }
 * const mgr = new Manager(withSettings({ client, name: 'widget-operator' }, settings));
 * ```
 */
export type ManagerSettings = Pick<
  ManagerOptions,
  | 'namespaces'
  | 'concurrency'
  | 'metricsPort'
  | 'healthPort'
  | 'healthProbeBindAddress'
  | 'metricsBindAddress'
  | 'logLevel'
  | 'shutdownTimeoutMs'
> & {
  readonly leaderElection?: boolean;
  readonly leaseName?: string;
  readonly leaseNamespace?: string;
  /** Shard the controllers over the replicas naming this ring (`sharding.ring`). */
  readonly shardRing?: string;
};

/**
 * A configuration value that cannot be used; says where it came from and what is accepted.
 *
 * ## Example
 * ```ts
 * try {
 *   settingsFromArgs(['--concurrency', 'many']);
 * } catch (e) {
 *   if (e instanceof ManagerConfigError) console.error(e.source, e.value, e.message); // '--concurrency' 'many' …
 * }
 * ```
 */
export class ManagerConfigError extends Error {
  readonly _tag = 'ManagerConfigError' as const;
  override readonly name = 'ManagerConfigError';
  /** `--concurrency` or `RXKUBE_CONCURRENCY`. */
  readonly source: string;
  readonly value: string;

  constructor(source: string, value: string, expected: string) {
    super(`invalid ${source}=${JSON.stringify(value)}: ${expected}`);
    this.source = source;
    this.value = value;
  }
}

const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * The flags {@link settingsFromArgs} understands, for `parseArgs` (so a CLI can add its own).
 *
 * ## Example
 * ```ts
 * import { parseArgs } from 'node:util';
 *
 * // a CLI with its own flags next to the Manager's
 * const { values } = parseArgs({ args: process.argv.slice(2), options: { ...MANAGER_FLAGS, once: { type: 'boolean' } } });
 * const { once, ...managerFlags } = values;
 * const settings = settingsFromFlags(managerFlags);
 * ```
 */
export const MANAGER_FLAGS = {
  namespace: { type: 'string', short: 'n', multiple: true },
  concurrency: { type: 'string' },
  'metrics-port': { type: 'string' },
  'health-port': { type: 'string' },
  'health-probe-bind-address': { type: 'string' },
  'health-bind-address': { type: 'string' },
  'metrics-bind-address': { type: 'string' },
  'leader-elect': { type: 'boolean' },
  'no-leader-elect': { type: 'boolean' },
  'lease-name': { type: 'string' },
  'lease-namespace': { type: 'string' },
  'log-level': { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  'shard-ring': { type: 'string' },
} as const;

function integer(source: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) {
    throw new ManagerConfigError(source, value, `expected an integer >= ${min}`);
  }
  return n;
}

function port(source: string, value: string): number | false {
  if (/^(off|false|none)$/i.test(value.trim())) return false;
  const n = integer(source, value, 0);
  if (n > 65_535) throw new ManagerConfigError(source, value, 'expected a port 0–65535, or "off"');
  return n;
}

function bindAddress(source: string, value: string): string {
  try {
    parseBindAddress(source, value);
  } catch {
    throw new ManagerConfigError(
      source,
      value,
      'expected "host:port" (e.g. 127.0.0.1:8081), ":port" for every interface, or "0" to serve nothing',
    );
  }
  return value.trim();
}

function bool(source: string, value: string): boolean {
  if (/^(1|true|yes|on)$/i.test(value.trim())) return true;
  if (/^(0|false|no|off)$/i.test(value.trim())) return false;
  throw new ManagerConfigError(source, value, 'expected true or false');
}

function duration(source: string, value: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/.exec(value);
  if (m === null) throw new ManagerConfigError(source, value, 'expected a duration like 30s, 500ms or 1m');
  const n = Number(m[1]);
  return Math.round(n * (m[2] === 'm' ? 60_000 : m[2] === 'ms' ? 1 : 1_000));
}

function level(source: string, value: string): NonNullable<ManagerSettings['logLevel']> {
  const v = value.trim().toLowerCase();
  if (!(LEVELS as readonly string[]).includes(v)) {
    throw new ManagerConfigError(source, value, `expected one of ${LEVELS.join(', ')}`);
  }
  return v as NonNullable<ManagerSettings['logLevel']>;
}

function namespaces(source: string, values: readonly string[]): string[] {
  const list = values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter((v) => v !== '');
  for (const ns of list) {
    if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns) || ns.length > 63) {
      throw new ManagerConfigError(
        source,
        ns,
        'expected namespace names (lower-case DNS labels), comma-separated',
      );
    }
  }
  return list;
}

function ringName(source: string, value: string): string {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(value) || value.length > 40) {
    throw new ManagerConfigError(
      source,
      value,
      'expected a DNS label of at most 40 characters, such as widgets',
    );
  }
  return value;
}

function name(source: string, value: string): string {
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(value)) {
    throw new ManagerConfigError(source, value, 'expected a lower-case DNS name');
  }
  return value;
}

/**
 * The settings the environment gives.
 *
 * ## Example
 * ```ts
 * settingsFromEnv({ RXKUBE_NAMESPACES: 'a,b', RXKUBE_LEADER_ELECT: 'true' });
 * // { namespaces: ['a', 'b'], leaderElection: true }
 * ```
 * @throws {ManagerConfigError} naming the variable with a bad value.
 */
export function settingsFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
): ManagerSettings {
  const out: { -readonly [K in keyof ManagerSettings]: ManagerSettings[K] } = {};
  const get = (k: string): string | undefined => {
    const v = env[k];
    return v === undefined || v.trim() === '' ? undefined : v;
  };
  const ns = get('RXKUBE_NAMESPACES') ?? get('WATCH_NAMESPACE');
  if (ns !== undefined)
    out.namespaces = namespaces(
      get('RXKUBE_NAMESPACES') !== undefined ? 'RXKUBE_NAMESPACES' : 'WATCH_NAMESPACE',
      [ns],
    );
  const c = get('RXKUBE_CONCURRENCY');
  if (c !== undefined) out.concurrency = integer('RXKUBE_CONCURRENCY', c, 1);
  const mp = get('RXKUBE_METRICS_PORT');
  if (mp !== undefined) out.metricsPort = port('RXKUBE_METRICS_PORT', mp);
  const hp = get('RXKUBE_HEALTH_PORT');
  if (hp !== undefined) out.healthPort = port('RXKUBE_HEALTH_PORT', hp);
  const hb = get('RXKUBE_HEALTH_PROBE_BIND_ADDRESS');
  if (hb !== undefined) out.healthProbeBindAddress = bindAddress('RXKUBE_HEALTH_PROBE_BIND_ADDRESS', hb);
  const mb = get('RXKUBE_METRICS_BIND_ADDRESS');
  if (mb !== undefined) out.metricsBindAddress = bindAddress('RXKUBE_METRICS_BIND_ADDRESS', mb);
  const le = get('RXKUBE_LEADER_ELECT');
  if (le !== undefined) out.leaderElection = bool('RXKUBE_LEADER_ELECT', le);
  const ln = get('RXKUBE_LEASE_NAME');
  if (ln !== undefined) out.leaseName = name('RXKUBE_LEASE_NAME', ln);
  const lns = get('RXKUBE_LEASE_NAMESPACE') ?? get('POD_NAMESPACE');
  if (lns !== undefined)
    out.leaseNamespace = name(
      get('RXKUBE_LEASE_NAMESPACE') !== undefined ? 'RXKUBE_LEASE_NAMESPACE' : 'POD_NAMESPACE',
      lns,
    );
  const lvl = get('RXKUBE_LOG_LEVEL') ?? get('LOG_LEVEL');
  if (lvl !== undefined)
    out.logLevel = level(get('RXKUBE_LOG_LEVEL') !== undefined ? 'RXKUBE_LOG_LEVEL' : 'LOG_LEVEL', lvl);
  const st = get('RXKUBE_SHUTDOWN_TIMEOUT');
  if (st !== undefined) out.shutdownTimeoutMs = duration('RXKUBE_SHUTDOWN_TIMEOUT', st);
  const ring = get('RXKUBE_SHARD_RING');
  if (ring !== undefined) out.shardRing = ringName('RXKUBE_SHARD_RING', ring);
  return out;
}

/**
 * The settings parsed flags give (the `values` of `parseArgs` with {@link MANAGER_FLAGS}).
 *
 * ## Example
 * ```ts
 * import { parseArgs } from 'node:util';
 *
 * const { values } = parseArgs({ args: process.argv.slice(2), options: MANAGER_FLAGS, strict: false });
 * settingsFromFlags(values);
 * ```
 * @throws {ManagerConfigError} naming the flag with a bad value.
 */
export function settingsFromFlags(values: Readonly<Record<string, unknown>>): ManagerSettings {
  const out: { -readonly [K in keyof ManagerSettings]: ManagerSettings[K] } = {};
  const str = (k: string): string | undefined => (typeof values[k] === 'string' ? values[k] : undefined);
  const ns = values['namespace'];
  if (Array.isArray(ns) && ns.length > 0) out.namespaces = namespaces('--namespace', ns as string[]);
  const c = str('concurrency');
  if (c !== undefined) out.concurrency = integer('--concurrency', c, 1);
  const mp = str('metrics-port');
  if (mp !== undefined) out.metricsPort = port('--metrics-port', mp);
  const hp = str('health-port');
  if (hp !== undefined) out.healthPort = port('--health-port', hp);
  const hb = str('health-probe-bind-address') ?? str('health-bind-address');
  if (hb !== undefined) {
    const flag =
      str('health-probe-bind-address') !== undefined
        ? '--health-probe-bind-address'
        : '--health-bind-address';
    out.healthProbeBindAddress = bindAddress(flag, hb);
  }
  const mb = str('metrics-bind-address');
  if (mb !== undefined) out.metricsBindAddress = bindAddress('--metrics-bind-address', mb);
  if (values['leader-elect'] === true) out.leaderElection = true;
  if (values['no-leader-elect'] === true) out.leaderElection = false;
  const ln = str('lease-name');
  if (ln !== undefined) out.leaseName = name('--lease-name', ln);
  const lns = str('lease-namespace');
  if (lns !== undefined) out.leaseNamespace = name('--lease-namespace', lns);
  const lvl = str('log-level');
  if (lvl !== undefined) out.logLevel = level('--log-level', lvl);
  const st = str('shutdown-timeout');
  if (st !== undefined) out.shutdownTimeoutMs = duration('--shutdown-timeout', st);
  const ring = str('shard-ring');
  if (ring !== undefined) out.shardRing = ringName('--shard-ring', ring);
  return out;
}

/**
 * Parses manager flags out of `args` (unknown flags are an error).
 *
 * ## Example
 * ```ts
 * settingsFromArgs(['--leader-elect', '-n', 'team-a,team-b', '--health-port', '8081']);
 * ```
 * @throws {ManagerConfigError} for a bad value or an unknown flag.
 */
export function settingsFromArgs(args: readonly string[]): ManagerSettings {
  try {
    // taken when flags are parsed: an ES-module import of node:util runs every lazy getter of its
    // exports (parseArgs, the diff of assert, worker_threads: ~3 ms at start)
    const { parseArgs } = process.getBuiltinModule('node:util');
    const { values } = parseArgs({
      args: [...args],
      options: MANAGER_FLAGS,
      strict: true,
      allowPositionals: false,
    });
    return settingsFromFlags(values);
  } catch (error) {
    if (error instanceof ManagerConfigError) throw error;
    throw new ManagerConfigError(
      'arguments',
      args.join(' '),
      error instanceof Error ? error.message : String(error),
    );
  }
}

/**
 * `options` with the settings laid over it, later layers winning (e.g. env, then flags).
 *
 * ## Example
 * ```ts
 * const mgr = new Manager(withSettings({ client, name: 'copyrator', healthPort: 8081 },
 *   settingsFromEnv(), settingsFromArgs(process.argv.slice(2))));
 * ```
 */
export function withSettings(options: ManagerOptions, ...layers: readonly ManagerSettings[]): ManagerOptions {
  let out: ManagerOptions = options;
  for (const layer of layers) {
    const { leaderElection, leaseName, leaseNamespace, shardRing, ...plain } = layer;
    // a port and a bind address of one server: this layer's wins over an earlier layer's
    const { healthProbeBindAddress: _h, ...withoutHealthAddress } = out;
    if (plain.healthPort !== undefined && plain.healthProbeBindAddress === undefined)
      out = withoutHealthAddress;
    const { metricsBindAddress: _m, ...withoutMetricsAddress } = out;
    if (plain.metricsPort !== undefined && plain.metricsBindAddress === undefined)
      out = withoutMetricsAddress;
    out = { ...out, ...plain };
    if (shardRing !== undefined) out = { ...out, sharding: { ...out.sharding, ring: shardRing } };
    const current = out.leaderElection;
    const enabled = leaderElection ?? (current !== undefined && current !== false);
    if (!enabled) {
      out = { ...out, leaderElection: false };
      continue;
    }
    const base: ManagerLeaderElectionOptions = typeof current === 'object' ? current : {};
    out = {
      ...out,
      leaderElection: {
        ...base,
        ...(leaseName !== undefined ? { leaseName } : {}),
        ...(leaseNamespace !== undefined ? { leaseNamespace } : {}),
      },
    };
  }
  return out;
}
