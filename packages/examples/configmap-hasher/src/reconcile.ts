/**
 * The reconcile logic of the ConfigMap hasher, free of wiring: which ConfigMaps it manages, the
 * hash it wants on them, and the merge patch that gets them there (none when already there, so a
 * reconcile of an up-to-date object writes nothing and the operator never loops on its own echo).
 *
 * @module
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '@rxkube/kube';

/** The label that opts a ConfigMap in. */
export const HASH_LABEL = 'rxkube.io/hash';
/** The annotation the operator maintains. */
export const HASH_ANNOTATION = 'rxkube.io/data-hash';
/** The label selector the operator watches with. */
export const HASH_SELECTOR = `${HASH_LABEL}=true`;

/** A ConfigMap as plain JSON. */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/**
 * A stable hash of a ConfigMap's `data` (keys sorted; 16 hex digits of SHA-256).
 *
 * ## Example
 * ```ts
 * dataHash({ metadata: { name: 'a' }, data: { b: '2', a: '1' } }) === dataHash({ metadata: { name: 'a' }, data: { a: '1', b: '2' } });
 * ```
 */
export function dataHash(cm: ConfigMap): string {
  const h = createHash('sha256');
  for (const key of Object.keys(cm.data ?? {}).sort()) h.update(`${key}\0${cm.data?.[key] ?? ''}\0`);
  return h.digest('hex').slice(0, 16);
}

/**
 * The merge patch that brings `cm`'s hash annotation up to date, or `undefined` when it already is.
 *
 * ## Example
 * ```ts
 * const patch = hashPatch(cm);
 * if (patch) await client.patch(ref, { type: 'merge', body: patch }, { fieldManager: 'configmap-hasher' });
 * ```
 */
export function hashPatch(cm: ConfigMap): { metadata: { annotations: Record<string, string> } } | undefined {
  const want = dataHash(cm);
  if (cm.metadata.annotations?.[HASH_ANNOTATION] === want) return undefined;
  return { metadata: { annotations: { [HASH_ANNOTATION]: want } } };
}
