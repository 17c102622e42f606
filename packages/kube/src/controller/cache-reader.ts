/**
 * `CacheReader`: controller-runtime's cache-backed reader over a controller's Stores — get by name,
 * list by namespace, label selector or a declared field index (`MatchingFields`) — across every
 * namespace the controller watches. Inside a reconcile it also shows the controller's own writes
 * (read-own-writes) until their watch events arrive.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

import { labelMatcher } from '../reflector/label-selector.js';
import type { StoreRef } from '../reflector/store.js';
import type { StoreReader } from '../reflector/store-reader.js';
import type { WriteTracker } from '../sink/write-tracker.js';
import type { KubeObject, ResourceType } from '../types.js';
import type { CacheListOptions, CacheReader, ControllerWatch } from './options.js';
import type { WatchedKind, WatchedKinds } from './watches.js';

/**
 * A {@link CacheReader} over `kinds`; with `tracker`, objects the controller's writes replaced are
 * shown as written.
 */
export function cacheReader<T extends KubeObject>(
  kinds: WatchedKinds<T>,
  tracker?: WriteTracker,
  operator = 'CacheReader',
): CacheReader {
  const kindOf = (resource: ResourceType | ControllerWatch): WatchedKind =>
    kinds.find(resource, `${operator}`);
  const overlay = <O extends KubeObject>(kind: WatchedKind, object: O): O | undefined =>
    tracker === undefined ? object : shown(tracker, kind.plan.resource, object);
  return {
    get: <O extends KubeObject>(resource: ResourceType<O>, ref: StoreRef): O | undefined => {
      const kind = kindOf(resource);
      const stored = kind.store.get(ref) as O | undefined;
      if (stored !== undefined) return overlay(kind, stored);
      if (tracker === undefined) return undefined;
      const meta =
        typeof ref === 'string'
          ? splitKey(ref)
          : 'metadata' in ref
            ? ref.metadata
            : { name: ref.name, ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}) };
      return tracker.pending(kind.plan.resource, meta)?.object as O | undefined;
    },
    list: <O extends KubeObject>(resource: ResourceType<O>, options: CacheListOptions = {}): O[] => {
      const kind = kindOf(resource);
      const store = kind.store as StoreReader<O>;
      let items: O[];
      const fields = Object.entries(options.matchingFields ?? {});
      if (fields.length > 0) {
        for (const [name] of fields) {
          if (!store.hasIndex(name)) {
            throw new InvalidArgumentError(
              `${operator}.list`,
              `options.matchingFields.${name}`,
              options.matchingFields,
              `must name an index of ${resource.kind}: declare it with the registration, e.g. indexes: { '${name}': (o) => [...] }`,
            );
          }
        }
        const [[firstName, firstValue] = ['', ''], ...rest] = fields;
        items = store.byIndex(firstName, firstValue);
        for (const [name, value] of rest) {
          const keep = new Set(store.byIndex(name, value));
          items = items.filter((o) => keep.has(o));
        }
        if (options.namespace !== undefined)
          items = items.filter((o) => o.metadata.namespace === options.namespace);
      } else {
        items = store.list(options.namespace);
      }
      if (options.labelSelector !== undefined) {
        const matches = labelMatcher(options.labelSelector);
        items = items.filter((o) => matches(o.metadata.labels));
      }
      return tracker === undefined ? items : showWrites(tracker, kind.plan.resource, items);
    },
    storeOf: <O extends KubeObject>(resource: ResourceType<O> | ControllerWatch<O>): StoreReader<O> =>
      kindOf(resource).store as StoreReader<O>,
  };
}

function splitKey(key: string): { namespace?: string; name: string } {
  const slash = key.indexOf('/');
  return slash < 0 ? { name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/**
 * `object` as the controller's own writes left it: our newer version when a write of ours replaced
 * it, `undefined` when our DELETE removed it, else itself.
 */
function shown<O extends KubeObject>(
  tracker: WriteTracker,
  resource: ResourceType,
  object: O,
): O | undefined {
  const pending = tracker.pending(resource, object.metadata);
  if (pending === undefined) return object;
  const rv = object.metadata.resourceVersion;
  if (pending.deleted === true) return rv !== undefined && pending.older.includes(rv) ? undefined : object;
  return tracker.latest(object, resource);
}

/** {@link shown} over a list (objects our DELETE removed are left out). */
export function showWrites<O extends KubeObject>(
  tracker: WriteTracker,
  resource: ResourceType,
  objects: readonly O[],
): O[] {
  const out: O[] = [];
  for (const object of objects) {
    const o = shown(tracker, resource, object);
    if (o !== undefined) out.push(o);
  }
  return out;
}
