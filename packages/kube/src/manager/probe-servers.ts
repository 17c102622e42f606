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
import type { ManagerOptions } from './manager-options.js';
import { ManagerStartError } from './manager-options.js';

/** What the servers serve. */
export interface ManagerServing {
  readonly checks: ProbeCheck[];
  readonly liveness: ProbeCheck[];
  readonly registry: Registry;
}

/** Starts the servers `options` ask for; on failure closes them and throws `ManagerStartError`. */
export async function startManagerServers(
  name: string,
  options: Pick<ManagerOptions, 'healthPort' | 'metricsPort' | 'host'>,
  serving: ManagerServing,
): Promise<ProbeServer[]> {
  const { healthPort, metricsPort, host } = options;
  const servers: ProbeServer[] = [];
  const at = host !== undefined ? { host } : {};
  const ownMetricsPort = metricsPort !== undefined && metricsPort !== false;
  try {
    if (healthPort !== undefined && healthPort !== false) {
      servers.push(
        await startProbeServer({
          port: healthPort,
          ...at,
          checks: serving.checks,
          liveness: serving.liveness,
          ...(ownMetricsPort ? {} : { registry: serving.registry }),
        }),
      );
    }
    if (ownMetricsPort) {
      servers.push(
        await startProbeServer({ port: metricsPort, ...at, eventLoop: false, registry: serving.registry }),
      );
    }
    return servers;
  } catch (error) {
    await Promise.all(servers.map((s) => s.close()));
    throw new ManagerStartError(
      `Manager ${name}: cannot serve probes or metrics (health port ${String(healthPort)}, metrics port ${String(metricsPort)}): ` +
        `${error instanceof Error ? error.message : String(error)} — pick free ports (--health-port/--metrics-port, RXKUBE_HEALTH_PORT/RXKUBE_METRICS_PORT) or 0 for any`,
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
