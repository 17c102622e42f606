/**
 * A namespace-restricted Manager's guard against Stores that look valid but are empty (issue 18
 * §6): a watch of a namespaced kind across all namespaces, asked of `mgr.registry` by user code
 * (a `map` reading `mgr.registry.watch({ resource }).store`), is what the operator's RBAC usually
 * refuses and what its controllers never list — its Store stays empty and unready. Such a watch is
 * logged at error once and fails `/readyz` (`watch-scope`), naming the kind and what to do.
 *
 * @module
 */
import type { Logger } from 'pino';

import type { Client } from '../client/client.js';
import type { ProbeCheck } from '../ops/probes.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import { watchTargetKey } from '../reflector/watch-registry.js';

/** Follows the targets asked of a namespace-restricted manager's registry. */
export class NamespaceScopeGuard {
  private readonly checked = new Set<string>();
  private readonly misfits = new Map<string, string>();

  constructor(
    private readonly namespaces: readonly string[],
    private readonly own: () => readonly WatchTarget[],
    private readonly discovery: Client['discovery'],
    private readonly log: Logger,
  ) {}

  /** Notes a watch asked of the registry; checks a cluster-wide one of a kind not the manager's own. */
  note(target: WatchTarget): void {
    if (this.namespaces.length === 0 || target.namespace !== undefined) return;
    const key = watchTargetKey(target);
    if (this.checked.has(key)) return;
    this.checked.add(key);
    if (this.own().some((t) => watchTargetKey(t) === key)) return;
    const { apiVersion, kind } = target.resource;
    this.discovery
      .resolve(target.resource)
      .then((resource) => {
        if (!resource.namespaced) return;
        const reason =
          `${apiVersion}/${kind} is watched across all namespaces through the manager's registry, but the manager ` +
          `is restricted to namespaces ${this.namespaces.join(', ')}: its RBAC and its controllers cover only those, ` +
          `so that Store stays empty — watch it with { namespace } (one of those), or read it through a controller's ` +
          `cache (ctx.cache, mgr.controller(name).cache) after adding it to the controller's watches`;
        this.misfits.set(key, reason);
        this.log.error({ resource: `${apiVersion}/${kind}`, namespaces: this.namespaces }, reason);
      })
      .catch(() => undefined); // not served: its watch reports that itself
  }

  /** `/readyz`'s `watch-scope` check. */
  readonly check: ProbeCheck = {
    name: 'watch-scope',
    check: () =>
      this.misfits.size === 0 ? { ok: true } : { ok: false, reason: [...this.misfits.values()].join('; ') },
  };
}
