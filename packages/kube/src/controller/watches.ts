/**
 * The watched kinds of a controller: for each (primary, owned, mapped) its shared watches — one per
 * namespace — from the registry, their Stores read as one, and the indexes declared with the
 * registration.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

import type { SharedWatch } from '../reflector/share-watch.js';
import type { Store } from '../reflector/store.js';
import type { StoreReader } from '../reflector/store-reader.js';
import { storeUnion } from '../reflector/store-reader.js';
import type { WatchRegistry, WatchTarget } from '../reflector/watch-registry.js';
import type { KubeObject, ResourceType } from '../types.js';
import { objectKey } from '../types.js';
import { UserCodeError } from '../user-code-error.js';
import type { ControllerWatch } from './options.js';
import type { UserCodeReporter } from './user-code.js';
import type { ControllerPlan, WatchPlan } from './validate-options.js';

/** One namespace's watch of a kind. */
export interface WatchedTarget<O extends KubeObject = KubeObject> {
  readonly target: WatchTarget;
  readonly shared: SharedWatch<O>;
  readonly store: Store<O>;
}

/** A watched kind: its plan, its watches and their Stores read as one. */
export interface WatchedKind<O extends KubeObject = KubeObject> {
  readonly plan: WatchPlan<O>;
  readonly parts: readonly WatchedTarget<O>[];
  readonly store: StoreReader<O>;
}

/** Every watched kind of a controller. */
export interface WatchedKinds<T extends KubeObject> {
  readonly primary: WatchedKind<T>;
  readonly owned: readonly WatchedKind[];
  readonly mapped: readonly WatchedKind[];
  /** Primary, owned and mapped, in that order. */
  readonly all: readonly WatchedKind[];
  /**
   * The kind given by resource type (primary, owned or mapped) or by its `ControllerWatch` entry.
   * @throws {InvalidArgumentError} for a kind the controller does not watch, or one it watches more
   *   than once (pass the `ControllerWatch` then).
   */
  find(resource: ResourceType | ControllerWatch, operator: string): WatchedKind;
  /** The kind of `resource` if watched exactly once, else `undefined` (never throws). */
  lookup(resource: ResourceType): WatchedKind | undefined;
}

/**
 * The watched kinds of `plan` from `registry` (no subscription yet: the registry's watches start
 * with their first subscriber). Declared indexes are added to the Stores now (an index name already
 * present on a shared Store is left as it is: one name, one index).
 */
export function watchedKinds<T extends KubeObject>(
  plan: ControllerPlan<T>,
  registry: WatchRegistry,
  report: UserCodeReporter,
): WatchedKinds<T> {
  const open = <O extends KubeObject>(p: WatchPlan<O>): WatchedKind<O> => {
    const parts = p.targets.map((target): WatchedTarget<O> => {
      const shared = registry.watch<O>(target);
      return { target, shared, store: shared.store };
    });
    for (const part of parts) {
      for (const [name, indexer] of Object.entries(p.indexes)) {
        if (part.store.hasIndex(name)) continue;
        part.store.addIndexer(name, (object) => {
          try {
            return indexer(object);
          } catch (error) {
            report(
              new UserCodeError('indexer', error, {
                ...(plan.name !== undefined ? { controller: plan.name } : {}),
                key: objectKey(object),
              }),
            );
            return [];
          }
        });
      }
    }
    return {
      plan: p,
      parts,
      store: storeUnion(
        parts.map((x) => x.store),
        p.namespaces,
      ),
    };
  };
  const primary = open(plan.primary);
  const owned = plan.owned.map((p) => open(p));
  const mapped = plan.mapped.map((p) => open(p));
  const all: WatchedKind[] = [primary as unknown as WatchedKind, ...owned, ...mapped];
  const matching = (type: ResourceType): WatchedKind[] =>
    all.filter((k) => sameResource(k.plan.resource, type));
  return {
    primary,
    owned,
    mapped,
    all,
    lookup: (type) => {
      const found = matching(type);
      return found.length === 1 ? found[0] : undefined;
    },
    find: (resource, operator) => {
      const exact = mapped.find((k) => k.plan.watch === resource);
      if (exact !== undefined) return exact;
      const type = 'map' in resource ? resource.resource : resource;
      const found = matching(type);
      if (found.length !== 1 || found[0] === undefined) {
        throw new InvalidArgumentError(
          operator,
          'resource',
          resource,
          found.length === 0
            ? 'must be one of the kinds the controller watches (options.for, options.owns or options.watches)'
            : `is watched ${found.length} times: pass the ControllerWatch object from options.watches`,
        );
      }
      return found[0];
    },
  };
}

/** Same group and kind (any version of a group matches, as controller-runtime's owner handling). */
export function sameResource(a: ResourceType, b: ResourceType): boolean {
  return a.kind === b.kind && groupOf(a.apiVersion) === groupOf(b.apiVersion);
}

/** The API group of an apiVersion: `apps/v1` → `apps`, `v1` → `` (the core group). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}
