/**
 * The form a built-in object has when kube-apiserver hands it to structured-merge-diff: a Go
 * struct read by reflection (`value.NewValueReflect`), which writes what `encoding/json` writes —
 * value structs always (`spec: {}`, `status: {}`, `template: {metadata: {creationTimestamp: null}}`),
 * scalars without `omitempty` at their zero value (`reportingComponent: ""`), nil slices, maps
 * and pointers without `omitempty` as `null` (`spec.selector`, `containers`), and never the empty
 * maps and lists of `omitempty` fields. Which fields are which comes from the recorded schemas
 * (see `smd-type.ts`). Custom resources are unstructured and used as they are.
 *
 * Ownership depends on it: a field that exists (even as `null`) in the object a create starts from
 * is modified rather than added, so it gets no `.` member (`f:containers` of a Deployment).
 *
 * @module
 */
import { isObject, type JsonObject, setKey } from './json-value.js';
import { DEDUCED, GO_STRUCT, type SmdType } from './smd-type.js';

/**
 * The Go form of `value` (a fresh value; `value` is not mutated). `undefined` is the zero object
 * of the type (what `runtime.ObjectCreater.New` returns). With `fill` false, fields that are not
 * set stay unset (nulls and empty `omitempty` values are still dropped): the form of a result
 * handed back for defaulting, which looks for unset fields where Go looks for zero values.
 */
export function goForm(value: unknown, type: SmdType, fill = true): unknown {
  if (value === undefined && fill) {
    // the zero object of a type is always the same: computed once (callers never change it)
    let zero = zeros.get(type);
    if (zero === undefined) {
      zero = goFormOf(undefined, type, true);
      zeros.set(type, zero);
    }
    return zero;
  }
  return goFormOf(value, type, fill);
}

const zeros = new WeakMap<SmdType, unknown>();

function goFormOf(value: unknown, type: SmdType, fill: boolean): unknown {
  if (Array.isArray(value)) {
    const item = type.list?.item;
    return item ? value.map((v) => goForm(v, item, fill)) : value;
  }
  if (value !== undefined && !isObject(value)) return value;
  const map = type.map;
  if (map === undefined) return value;
  const obj = value ?? {};
  const out: JsonObject = {};
  const set = (k: string, v: unknown): void => setKey(out, k, v);
  if (map.fieldNames.length === 0) {
    // a map: its values in Go form
    const element = map.element;
    for (const [k, v] of Object.entries(obj)) set(k, element ? goForm(v, element, fill) : v);
    return out;
  }
  for (const [k, v] of Object.entries(obj)) {
    const field = map.field(k);
    if (field === undefined) {
      set(k, v);
      continue;
    }
    const zero = field.goZero;
    if (v === null) {
      // null decodes to the zero value
      if (!fill) continue;
      if (zero === GO_STRUCT) set(k, goForm(undefined, field.type));
      else if (zero !== undefined) set(k, zero);
      continue;
    }
    if (zero === undefined && isEmptyOmitted(v, field.type)) continue;
    set(k, goForm(v, field.type, fill));
  }
  if (!fill) return out;
  for (const name of map.fieldNames) {
    if (Object.prototype.hasOwnProperty.call(obj, name)) continue;
    const field = map.field(name);
    if (field === undefined || field.goZero === undefined) continue;
    set(name, field.goZero === GO_STRUCT ? goForm(undefined, field.type) : field.goZero);
  }
  return out;
}

/**
 * An empty map or list of an `omitempty` field. A struct `{}` stays (a pointer to an empty struct),
 * also one without any field (`subresources.status` of a CRD: an object schema without
 * `additionalProperties`, read as a map of deduced values).
 */
function isEmptyOmitted(v: unknown, type: SmdType): boolean {
  if (Array.isArray(v)) return v.length === 0;
  if (!isObject(v) || Object.keys(v).length > 0 || type.map === undefined) return false;
  return type.map.fieldNames.length === 0 && type.map.element !== DEDUCED;
}
