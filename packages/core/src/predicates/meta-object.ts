/**
 * The structural object type the metadata predicates read, and their options. `@rxkube/core` has no
 * Kubernetes dependency: any object with this shape (a `KubeObject` of `@rxkube/kube`, a
 * `@kubernetes/client-node` model, plain JSON) fits.
 *
 * @module
 */

/**
 * The part of a Kubernetes object the predicates read: `metadata.namespace`/`name` (the default
 * key), `generation`, `resourceVersion`, `labels`, `annotations`.
 *
 * ## Example
 * ```ts
 * const cm: MetaObject = { metadata: { namespace: 'default', name: 'cfg', resourceVersion: '42' } };
 * ```
 */
export interface MetaObject {
  readonly metadata?: {
    readonly namespace?: string;
    readonly name?: string;
    readonly generation?: number;
    readonly resourceVersion?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
}

/**
 * Options of `generationChanged`, `labelsChanged`, `annotationsChanged` and
 * `resourceVersionChanged`.
 *
 * ## Example
 * ```ts
 * const deleted = new WeakSet<MetaObject>(); // the objects a watch reported deleted
 * generationChanged<MetaObject>({ ttl: 3_600_000, isDelete: (w) => deleted.has(w) });
 * ```
 */
export interface MetaPredicateOptions<T> {
  /**
   * How long (ms, finite, > 0) a key is remembered after its last sighting; a key seen again
   * after that passes as if new. Default 10 minutes.
   */
  readonly ttl?: number;
  /** Marks deletions: they always pass, and their key is forgotten. Default: nothing is a deletion. */
  readonly isDelete?: (value: T) => boolean;
  /** The key; default `namespace/name` (`name` for cluster-scoped objects), like `objectKey`. */
  readonly keyOf?: (value: T) => string;
}
