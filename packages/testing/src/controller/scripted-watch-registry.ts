/**
 * `ScriptedWatchRegistry`: a `WatchRegistry` whose watches are scripted event streams — what a
 * controller's marble test gives it instead of an API server.
 *
 * @module
 */
import type { KubeObject, WatchEvent, WatchTarget } from '@rxkube/kube';
import type { WatchRegistryOptions } from '@rxkube/kube/reflector';
import { WatchRegistry } from '@rxkube/kube';
import type { Observable, SchedulerLike } from 'rxjs';
import { concat, from, NEVER } from 'rxjs';

import { listed } from './watch-events.js';

/**
 * The script: per target, its events (an Observable, e.g. `hot(…)`/`cold(…)`) or the objects it
 * lists at once (then nothing more). Keys, most specific first: `<namespace>/<Kind>:meta`,
 * `<Kind>:meta` (a metadata-only watch), `<namespace>/<Kind>`, `<Kind>`; or a function of the
 * target. A target the script does not name never emits.
 *
 * @example
 * ```ts
 * const script: WatchScript = {
 *   ConfigMap: hot('(IaD)', { I: watchEvent.init(), a: watchEvent.initApply(cm), D: watchEvent.initDone() }),
 *   'ns/Secret': [testObject('ns/token', {}, { apiVersion: 'v1', kind: 'Secret' })], // listed at once in ns
 * };
 * const registry = new ScriptedWatchRegistry(script);
 * ```
 */
export type WatchScript =
  | Readonly<Record<string, Observable<WatchEvent> | readonly KubeObject[]>>
  | ((target: WatchTarget) => Observable<WatchEvent> | readonly KubeObject[] | undefined);

/**
 * A `WatchRegistry` over a {@link WatchScript}: shares each target's scripted stream (and keeps
 * its Store) exactly as a registry over a client shares a watch; `targets` lists every target asked
 * for, in order.
 *
 * ## Example
 * ```ts
 * import { testScheduler } from '@rxkube/testing/vitest';
 * const CM: ResourceType<ConfigMap> = { apiVersion: 'v1', kind: 'ConfigMap' };
 * const SECRET: ResourceType = { apiVersion: 'v1', kind: 'Secret' };
 * const a1 = testObject<ConfigMap>('shop/web', {}, CM);
 * const a2 = testObject<ConfigMap>('shop/web', { resourceVersion: '2' }, CM);
 * testScheduler().run(({ hot }) => {
 *   const registry = new ScriptedWatchRegistry({
 *     ConfigMap: hot('(IaD)-u', { I: watchEvent.init(), a: watchEvent.initApply(a1), D: watchEvent.initDone(), u: watchEvent.apply(a2) }),
 *     Secret: [testObject('shop/web-token', ownedBy(a1), SECRET)], // listed at once
 *   });
 *   const results$ = controller({ for: CM, owns: [SECRET], registry, client: stubClient() }).run(async () => Action.awaitChange());
 * });
 * ```
 */
export class ScriptedWatchRegistry extends WatchRegistry {
  /** Every target asked for (each shared watch's upstream subscription adds one). */
  readonly targets: WatchTarget[] = [];

  /**
   * @param script the events per target.  @param options sharing options (`gracePeriodMs`, `store`).
   * @param scheduler time source of the grace periods (a `TestScheduler` in marble tests).
   */
  constructor(script: WatchScript, options: WatchRegistryOptions = {}, scheduler?: SchedulerLike) {
    const targets: WatchTarget[] = [];
    super(
      (target) => {
        targets.push(target);
        const entry = lookup(script, target);
        if (entry === undefined) return NEVER;
        return isEventStream(entry) ? entry : concat(from(listed(entry)), NEVER);
      },
      options,
      scheduler,
    );
    this.targets = targets;
  }
}

function lookup(
  script: WatchScript,
  target: WatchTarget,
): Observable<WatchEvent> | readonly KubeObject[] | undefined {
  if (typeof script === 'function') return script(target);
  const kind = target.resource.kind;
  const meta = target.metadataOnly === true ? ':meta' : '';
  const ns = target.namespace;
  const keys = [
    ...(ns !== undefined ? [`${ns}/${kind}${meta}`] : []),
    `${kind}${meta}`,
    ...(ns !== undefined ? [`${ns}/${kind}`] : []),
    kind,
  ];
  for (const key of keys) {
    const entry = script[key];
    if (entry !== undefined) return entry;
  }
  return undefined;
}

function isEventStream(
  entry: Observable<WatchEvent> | readonly KubeObject[],
): entry is Observable<WatchEvent<KubeObject>> {
  return !Array.isArray(entry);
}
