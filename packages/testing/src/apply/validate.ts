/**
 * structured-merge-diff's validation of a typed value (`typed/validate.go` at v4.2.1), worded as a
 * real v1.24 server words it in `failed to create typed patch object (…): …` answers. Internal to
 * server-side apply.
 *
 * @module
 */
import { elementToString, type PathElement } from './field-set.js';
import { isObject } from './json-value.js';
import type { SmdType } from './smd-type.js';
import { atomOf, fieldType, listItemElement } from './typed.js';

/** Go's `%v` of a `*value.valueUnstructured` (`&{3}`), as SMD's messages print it. */
function goValue(v: unknown, verb: 'v' | '#v'): string {
  const inner = (x: unknown): string => {
    if (Array.isArray(x)) return `[${x.map(inner).join(' ')}]`;
    if (isObject(x))
      return `map[${Object.keys(x)
        .sort()
        .map((k) => `${k}:${inner(x[k])}`)
        .join(' ')}]`;
    if (x === null) return '<nil>';
    return typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' ? String(x) : '';
  };
  if (verb === '#v') {
    const lit = typeof v === 'string' ? JSON.stringify(v) : inner(v);
    return `&value.valueUnstructured{Value:${lit}}`;
  }
  return `&{${inner(v)}}`;
}

function goTypeName(v: unknown): string {
  if (Array.isArray(v)) return '[]interface {}';
  if (isObject(v)) return 'map[string]interface {}';
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  return typeof v;
}

/**
 * `TypedValue.Validate`: every way `value` does not fit `type`, as SMD words it
 * (`.spec.foo: field not declared in schema`). Keys are walked in sorted order; as SMD, a map
 * stops at its first undeclared field.
 */
export function validate(value: unknown, type: SmdType, prefix = ''): string[] {
  const errs: string[] = [];
  const walk = (v: unknown, t: SmdType, path: string): void => {
    const atom = atomOf(t, v);
    if (atom === 'scalar') {
      if (v === undefined || v === null) return;
      const s = t.scalar;
      if (s === 'numeric' && typeof v !== 'number')
        errs.push(`${path}: expected numeric (int or float), got ${goTypeName(v)}`);
      else if (s === 'string' && typeof v !== 'string')
        errs.push(`${path}: expected string, got ${goValue(v, '#v')}`);
      else if (s === 'boolean' && typeof v !== 'boolean')
        errs.push(`${path}: expected boolean, got ${goValue(v, 'v')}`);
    } else if (atom === 'list' && t.list) {
      if (v === null || v === undefined) return;
      if (!Array.isArray(v)) {
        errs.push(`${path}: expected list, got ${goValue(v, 'v')}`);
        return;
      }
      const list = t.list;
      const seen = new Set<PathElement>();
      for (let i = 0; i < v.length; i++) {
        let pe: PathElement = `i:${String(i)}`;
        if (!list.atomic) {
          const r = listItemElement(list, i, v[i]);
          if (typeof r !== 'string') {
            errs.push(`${path}: element ${String(i)}: ${r.error}`);
            return;
          }
          if (seen.has(r)) errs.push(`${path}: duplicate entries for key ${elementToString(r)}`);
          seen.add(r);
          pe = r;
        }
        walk(v[i], list.item, path + elementToString(pe));
      }
    } else if (atom === 'map' && t.map) {
      if (v === null || v === undefined) return;
      if (!isObject(v)) {
        errs.push(`${path}: expected map, got ${goValue(v, 'v')}`);
        return;
      }
      for (const key of Object.keys(v).sort()) {
        const ft = fieldType(t.map, key);
        if (ft === undefined) {
          errs.push(`${path}.${key}: field not declared in schema`);
          return;
        }
        walk(v[key], ft, `${path}.${key}`);
      }
    }
  };
  walk(value, type, prefix);
  return errs;
}

/** SMD's `ValidationErrors.Error()`: one error, or `errors:` and one indented line each. */
export function validationMessage(errs: readonly string[]): string {
  return errs.length === 1 ? (errs[0] ?? '') : ['errors:', ...errs.map((e) => `  ${e}`)].join('\n');
}
