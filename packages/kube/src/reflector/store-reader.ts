/**
 * `StoreReader`: what readers of a cache need — a {@link Store}, or several Stores of one kind (one
 * per watched namespace) read as one.
 *
 * @module
 */
import type { KubeObject } from '../types.js';
import type { Store, StoreRef } from './store.js';

/**
 * The reading side of a {@link Store}: lookups by key, namespace and index.
 *
 * ## Example
 * ```ts
 * const pods: StoreReader<Pod> = ctx.storeOf(podType);
 * pods.get('ns/web-0'); pods.list('ns'); pods.byIndex('spec.nodeName', 'node-1');
 * ```
 */
export interface StoreReader<T extends KubeObject = KubeObject> {
  /** Whether every underlying list completed (`InitDone` seen). */
  readonly ready: boolean;
  /** Number of objects. */
  readonly size: number;
  /** The object with this key (`namespace/name`, or `name` when cluster-scoped), ref or metadata. */
  get(ref: StoreRef): T | undefined;
  /** Every object, or those of one namespace. A new array. */
  list(namespace?: string): T[];
  /** Objects whose indexer `indexName` returned `value`. A new array. */
  byIndex(indexName: string, value: string): T[];
  /** Whether an index of this name exists. */
  hasIndex(indexName: string): boolean;
  /** Keys of every object. */
  keys(): IterableIterator<string>;
}

/**
 * Several Stores of one kind (one per namespace, as watched) read as one: lookups by key or
 * namespace go to the Store of that namespace, the rest concatenates. With a single Store, that
 * Store itself is returned.
 *
 * ## Example
 * ```ts
 * declare const storeOfNs1: Store<ConfigMap>; // a watch of namespace ns1
 * declare const storeOfNs2: Store<ConfigMap>; // and one of ns2
 * const all = storeUnion([storeOfNs1, storeOfNs2], ['ns1', 'ns2']);
 * all.get('ns2/a'); // from the second Store
 * ```
 */
export function storeUnion<T extends KubeObject>(
  stores: readonly Store<T>[],
  namespaces: readonly (string | undefined)[],
): StoreReader<T> {
  if (stores.length === 1 && stores[0] !== undefined) return stores[0];
  const byNamespace = new Map<string, Store<T>>();
  stores.forEach((store, i) => {
    const ns = namespaces[i];
    if (ns !== undefined) byNamespace.set(ns, store);
  });
  const storeOf = (namespace: string | undefined): readonly Store<T>[] => {
    if (namespace === undefined || namespace === '') return stores;
    const one = byNamespace.get(namespace);
    return one === undefined ? [] : [one];
  };
  const namespaceOf = (ref: StoreRef): string | undefined => {
    if (typeof ref === 'string') {
      const slash = ref.indexOf('/');
      return slash < 0 ? undefined : ref.slice(0, slash);
    }
    return 'metadata' in ref ? ref.metadata.namespace : ref.namespace;
  };
  return {
    get ready() {
      return stores.every((s) => s.ready);
    },
    get size() {
      return stores.reduce((n, s) => n + s.size, 0);
    },
    get: (ref) => {
      for (const s of storeOf(namespaceOf(ref))) {
        const found = s.get(ref);
        if (found !== undefined) return found;
      }
      return undefined;
    },
    list: (namespace) => storeOf(namespace).flatMap((s) => s.list(namespace)),
    byIndex: (indexName, value) => stores.flatMap((s) => s.byIndex(indexName, value)),
    hasIndex: (indexName) => stores.every((s) => s.hasIndex(indexName)),
    keys: function* () {
      for (const s of stores) yield* s.keys();
    },
  };
}
