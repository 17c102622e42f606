/**
 * The Manager's HTTP servers: `/healthz`, `/readyz` (and `/metrics` unless it has its own port) on
 * the health port, `/metrics` alone on the metrics port. A port that cannot be bound closes what
 * was opened and fails with a `ManagerStartError` naming the flags that choose the ports.
 *
 * @module
 */
import type { Registry } from 'prom-client';

import { resourceLabel } from '../ops/metrics.js';
import type { ProbeCheck, ProbeServer } from '../ops/probes.js';
import type { WatchRegistry, WatchTarget } from '../reflector/watch-registry.js';
import { startProbeServer } from '../ops/probes.js';
import type { BindAddress, ManagerOptions } from './manager-options.js';
import { ManagerStartError, parseBindAddress } from './manager-options.js';

/** What the servers serve. */
export interface ManagerServing {
  readonly checks: ProbeCheck[];
  readonly liveness: ProbeCheck[];
  readonly registry: Registry;
}

/** Where each server listens: a bind address when set, else the port (and `host`). */
function listenAt(
  port: number | false | undefined,
  address: string | undefined,
  field: string,
  host: string | undefined,
): BindAddress | undefined {
  if (address !== undefined) return parseBindAddress(field, address);
  if (port === undefined || port === false) return undefined;
  return host !== undefined ? { host, port } : { port };
}

/** Starts the servers `options` ask for; on failure closes them and throws `ManagerStartError`. */
export async function startManagerServers(
  name: string,
  options: Pick<
    ManagerOptions,
    'healthPort' | 'metricsPort' | 'host' | 'healthProbeBindAddress' | 'metricsBindAddress'
  >,
  serving: ManagerServing,
): Promise<ProbeServer[]> {
  const { healthPort, metricsPort, host } = options;
  const health = listenAt(healthPort, options.healthProbeBindAddress, 'options.healthProbeBindAddress', host);
  const metrics = listenAt(metricsPort, options.metricsBindAddress, 'options.metricsBindAddress', host);
  const servers: ProbeServer[] = [];
  // metrics on the probe server unless they have their own address, or are off ("0")
  const metricsOnHealth = metrics === undefined && options.metricsBindAddress === undefined;
  const where = (a: BindAddress | undefined): string =>
    a === undefined || a === 'off' ? 'none' : `${a.host ?? '*'}:${a.port}`;
  try {
    if (health !== undefined && health !== 'off') {
      servers.push(
        await startProbeServer({
          ...health,
          checks: serving.checks,
          liveness: serving.liveness,
          ...(metricsOnHealth ? { registry: serving.registry } : {}),
        }),
      );
    }
    if (metrics !== undefined && metrics !== 'off') {
      servers.push(await startProbeServer({ ...metrics, eventLoop: false, registry: serving.registry }));
    }
    return servers;
  } catch (error) {
    await Promise.all(servers.map((s) => s.close()));
    throw new ManagerStartError(
      `Manager ${name}: cannot serve probes or metrics (probes at ${where(health)}, metrics at ${where(metrics)}): ` +
        `${error instanceof Error ? error.message : String(error)} — pick free addresses (--health-probe-bind-address/--metrics-bind-address, ` +
        '--health-port/--metrics-port, RXKUBE_HEALTH_PORT/RXKUBE_METRICS_PORT) or port 0 for any',
      error,
    );
  }
}

/** `/readyz`'s `caches` check: every watch of `targets` listed once (after `started()`). */
export function cachesCheck(
  targets: readonly WatchTarget[],
  registry: WatchRegistry,
  started: () => boolean,
): ProbeCheck {
  return {
    name: 'caches',
    check: () => {
      if (!started()) return { ok: false, reason: 'the manager has not started' };
      const unsynced = targets.filter((t) => !registry.watch(t).store.ready).map(describeTarget);
      return unsynced.length === 0
        ? { ok: true }
        : { ok: false, reason: `caches not synced yet: ${unsynced.join(', ')}` };
    },
  };
}

/** `ConfigMap in ns (app=web)`: a watch target as `/readyz` names it. */
function describeTarget(t: WatchTarget): string {
  const where = t.namespace === undefined ? '' : ` in ${t.namespace}`;
  const selector = t.labelSelector === undefined ? '' : ` (${t.labelSelector})`;
  return `${resourceLabel(t.resource)}${where}${selector}`;
}
