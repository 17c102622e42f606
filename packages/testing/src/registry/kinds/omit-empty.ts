/**
 * Go's `omitempty` for built-in objects: the empty maps and lists kube-apiserver never serialises.
 *
 * @module
 */
import type { Json } from '../../store/object.js';
import { isObject } from '../../store/object.js';

/** Go `map[string]string` fields (with `omitempty`) of the emulated built-in types, by name. */
const GO_MAPS = new Set([
  'labels',
  'annotations',
  'data',
  'binaryData',
  'stringData',
  'matchLabels',
  'nodeSelector',
]);

/** `[]T` fields with `omitempty` of ObjectMeta and the emulated built-in types, by name. */
const GO_OMITEMPTY_LISTS = new Set([
  'finalizers',
  'ownerReferences',
  'managedFields',
  'matchExpressions',
  'imagePullSecrets',
  'secrets',
  'tolerations',
  'volumes',
  'initContainers',
  'env',
  'envFrom',
  'volumeMounts',
  'args',
  'command',
]);

/**
 * Go's `omitempty` on a built-in object: empty maps (`labels: {}`, `data: {}`) and empty
 * `omitempty` lists (`finalizers: []`) are never serialised by kube-apiserver, so they are dropped
 * before storing (mutates `o`). Structs stay even when empty (`status.loadBalancer: {}`, Event
 * `source: {}`): Go's `omitempty` does not omit structs. Custom resources are untouched.
 *
 * @param kind the object's Kind (Service `spec.selector` is a map; Deployment's is a struct).
 */
export function omitEmptyBuiltin(o: Json, kind: string): void {
  const visit = (v: unknown, path: readonly string[]): void => {
    if (Array.isArray(v)) {
      for (const item of v) visit(item, path);
      return;
    }
    if (!isObject(v)) return;
    for (const [k, child] of Object.entries(v)) {
      const isMap =
        GO_MAPS.has(k) || (kind === 'Service' && k === 'selector' && path.length === 1 && path[0] === 'spec');
      if (isMap && isObject(child) && Object.keys(child).length === 0) delete v[k];
      else if (GO_OMITEMPTY_LISTS.has(k) && Array.isArray(child) && child.length === 0) delete v[k];
      else if (child === null && (isMap || GO_OMITEMPTY_LISTS.has(k))) delete v[k];
      else visit(child, [...path, k]);
    }
  };
  visit(o, []);
}
