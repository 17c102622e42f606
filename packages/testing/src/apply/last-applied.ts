/**
 * How kube-apiserver v1.24 eases `kubectl apply --server-side` after client-side `kubectl apply`
 * (`fieldmanager/lastappliedmanager.go`, `lastappliedupdater.go`): for the manager `kubectl`, a
 * conflict on a field whose live value still is what the `kubectl.kubernetes.io/last-applied-configuration`
 * annotation says is no conflict (the apply is forced), and the annotation keeps following what
 * `kubectl` applies server-side.
 *
 * @module
 */
import { canonicalJson, type FieldSet } from './field-set.js';
import { isObject, type JsonObject } from './json-value.js';
import type { SmdType } from './smd-type.js';
import { compare, toFieldSet } from './typed.js';
import { validate } from './validate.js';

/** The annotation client-side `kubectl apply` keeps. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The manager the server recognises as kubectl (`kubectl apply --server-side`'s default). */
export const KUBECTL_MANAGER = 'kubectl';

function annotationsOf(obj: unknown): JsonObject | undefined {
  const metadata = isObject(obj) ? obj['metadata'] : undefined;
  const annotations = isObject(metadata) ? metadata['annotations'] : undefined;
  return isObject(annotations) ? annotations : undefined;
}

/**
 * `allowedConflictsFromLastApplied`: the fields of the last-applied configuration whose live
 * value is unchanged; `undefined` when there is no usable annotation (then nothing is allowed).
 *
 * @param liveTyped the live object as SMD sees it.
 */
export function allowedConflicts(
  live: unknown,
  liveTyped: unknown,
  groupVersion: string,
  type: SmdType,
): FieldSet | undefined {
  const text = annotationsOf(live)?.[LAST_APPLIED];
  if (typeof text !== 'string' || text === '') return undefined;
  let lastApplied: unknown;
  try {
    lastApplied = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(lastApplied) || lastApplied['apiVersion'] !== groupVersion) return undefined;
  if (validate(lastApplied, type).length > 0) return undefined;
  const c = compare(lastApplied, liveTyped, type);
  return toFieldSet(lastApplied, type).difference(c.modified).difference(c.added).difference(c.removed);
}

/** `hasLastApplied`. */
export function hasLastApplied(obj: unknown): boolean {
  const v = annotationsOf(obj)?.[LAST_APPLIED];
  return typeof v === 'string' && v.length > 0;
}

/**
 * `buildLastApplied` + `setLastApplied`: sets the annotation of `result` (mutated) to the applied
 * configuration without that annotation, encoded as `UnstructuredJSONScheme` encodes it (compact,
 * keys sorted, a final newline); dropped when the annotations would pass the 256 KiB limit.
 */
export function setLastApplied(result: JsonObject, applied: JsonObject): void {
  const copy: JsonObject = { ...applied };
  const meta = isObject(applied['metadata']) ? { ...applied['metadata'] } : undefined;
  if (meta) {
    if (isObject(meta['annotations'])) {
      const annotations = { ...meta['annotations'] };
      delete annotations[LAST_APPLIED];
      meta['annotations'] = annotations;
    }
    copy['metadata'] = meta;
  }
  // Go's encoder escapes HTML characters and the JS line separators
  const value = `${canonicalJson(copy).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`)}\n`;
  const metadata = isObject(result['metadata']) ? result['metadata'] : (result['metadata'] = {});
  const annotations: JsonObject = isObject(metadata['annotations']) ? { ...metadata['annotations'] } : {};
  annotations[LAST_APPLIED] = value;
  let size = 0;
  for (const [k, v] of Object.entries(annotations))
    size += Buffer.byteLength(k) + Buffer.byteLength(String(v));
  if (size > 256 * 1024) delete annotations[LAST_APPLIED];
  metadata['annotations'] = annotations;
}
