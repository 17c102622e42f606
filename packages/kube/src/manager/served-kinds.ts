/**
 * `/readyz`'s `kinds` check: the kinds the manager's watches wait for because the API server does
 * not serve them (a CRD not installed or not Established yet, or deleted), each named once with
 * what to do and which controllers wait for it. The watcher reports such a kind as `not-served`
 * and checks again with backoff; the first list that completes (the CRD became Established) ends
 * the wait, and a CRD deleted later makes the kind wait, and the check fail, again.
 *
 * @module
 */
import type { ProbeCheck } from '../ops/probes.js';
import { isBuiltInGroup, notServedAdvice } from '../ops/watch-failure-log.js';
import { observeProgress, watchProgress } from '../ops/watch-progress.js';
import type { WatchProgress } from '../ops/watch-progress.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import { watchTargetKey } from '../reflector/watch-registry.js';
import type { ResourceType } from '../types.js';
import type { WatcherHealth } from '../watcher/health.js';

interface Entry {
  readonly target: WatchTarget;
  readonly progress: WatchProgress;
  waiting: boolean;
}

/**
 * Folds watch health into the set of kinds waiting to be served.
 *
 * ## Memory
 * One entry per watch target seen.
 */
export class ServedKinds {
  private readonly entries = new Map<string, Entry>();

  /** @param waiters the controllers that watch a resource (names, for the message). */
  constructor(private readonly waiters: (resource: Pick<ResourceType, 'apiVersion' | 'kind'>) => string[]) {}

  /** Folds a health snapshot in (a `WatchRegistry` `health` callback). */
  readonly record = (target: WatchTarget, health: WatcherHealth): void => {
    const id = watchTargetKey(target);
    let entry = this.entries.get(id);
    if (entry === undefined) {
      entry = { target, progress: watchProgress(), waiting: false };
      this.entries.set(id, entry);
    }
    const { failure, progressed } = observeProgress(entry.progress, health);
    if (failure !== undefined) entry.waiting = failure.kind === 'not-served';
    else if (progressed) entry.waiting = false;
  };

  /** `apiVersion/kind` of the kinds waited for now, with one of their targets' resource each. */
  waiting(): Map<string, Pick<ResourceType, 'apiVersion' | 'kind'>> {
    const kinds = new Map<string, Pick<ResourceType, 'apiVersion' | 'kind'>>();
    for (const { target, waiting } of this.entries.values()) {
      if (waiting) kinds.set(`${target.resource.apiVersion}/${target.resource.kind}`, target.resource);
    }
    return kinds;
  }

  /** The readiness check named `kinds`. */
  readonly check: ProbeCheck = {
    name: 'kinds',
    check: () => {
      const lines = [...this.waiting().values()].map((resource) => {
        const who = this.waiters(resource);
        const waits =
          who.length === 1
            ? `controller ${who[0] ?? ''} waits for it and starts`
            : `${who.length === 0 ? 'its watches' : `controllers ${who.join(', ')}`} wait for it and start`;
        const slash = resource.apiVersion.indexOf('/');
        const builtIn = isBuiltInGroup(slash < 0 ? '' : resource.apiVersion.slice(0, slash));
        return builtIn
          ? `${resource.apiVersion} ${resource.kind} is not served: ${notServedAdvice(resource)} — ${waits} once it is served`
          : `${resource.apiVersion} ${resource.kind} is not served (its CRD is not installed or not Established ` +
              `yet): ${notServedAdvice(resource)} — ${waits} once it is Established`;
      });
      return lines.length === 0 ? { ok: true } : { ok: false, reason: lines.join('; ') };
    },
  };
}
