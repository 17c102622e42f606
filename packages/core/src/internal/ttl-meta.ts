/**
 * Shared pieces of the metadata predicates (`generationChanged`, `labelsChanged`, ...): the default
 * key, map equality, and the common construction on top of the `changedBy` engine.
 *
 * Not exported from the package.
 */
import type { MonoTypeOperatorFunction, SchedulerLike } from 'rxjs';

import type { MetaObject, MetaPredicateOptions } from '../predicates/meta-object.js';
import { assertOptionalCallback } from './timed-checks.js';
import { checkPredicateOptions, ttlChangedBy } from './ttl-changed-by.js';

/** `namespace/name`, or `name` for cluster-scoped objects (the same key as kube's `objectKey`). */
export function metaKey(value: MetaObject): string {
  const m = value.metadata;
  const name = m?.name ?? '';
  return m?.namespace ? `${m.namespace}/${name}` : name;
}

/** String maps equal by entries; a missing map equals an empty one (JSON omits empty maps). */
export function stringMapsEqual(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  if (a === b) return true;
  const left = a ?? {};
  const right = b ?? {};
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  for (const k of keys) {
    if (!Object.hasOwn(right, k) || left[k] !== right[k]) return false;
  }
  return true;
}

/** A metadata predicate: validates `options` and builds the `changedBy` engine with `select`. */
export function metaPredicate<T extends MetaObject, V>(
  operator: string,
  select: (value: T) => V,
  isEqual: (a: V, b: V) => boolean,
  options: MetaPredicateOptions<T> | undefined,
  scheduler: SchedulerLike,
): MonoTypeOperatorFunction<T> {
  const ttl = checkPredicateOptions(operator, options, scheduler);
  assertOptionalCallback(operator, 'options.keyOf', options?.keyOf);
  return ttlChangedBy<T, string, V>({
    operator,
    keyOf: options?.keyOf ?? metaKey,
    select,
    isEqual,
    isDelete: options?.isDelete,
    ttl,
    scheduler,
  });
}
