/**
 * The formatting helpers of kubectl's printers (`pkg/printers/internalversion/printers.go`):
 * label maps, label selectors, container names and images, integer-or-string values.
 *
 * @module
 */
import type { Json } from '../../store/object.js';
import { isObject } from '../../store/object.js';

/** `labels.FormatLabels`: `a=b,c=d` sorted by key, `<none>` when empty. */
export function formatLabels(m: unknown): string {
  if (!isObject(m) || Object.keys(m).length === 0) return '<none>';
  return Object.keys(m)
    .sort()
    .map((k) => `${k}=${String(m[k])}`)
    .join(',');
}

/** `metav1.LabelSelector` → its string form (`app=x,tier in (a,b)`), as Scale `status.selector`. */
export function selectorString(selector: unknown): string {
  if (!isObject(selector)) return '';
  const parts: string[] = [];
  const labels = isObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  for (const [k, v] of Object.entries(labels)) parts.push(`${k}=${String(v)}`);
  const exprs = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  for (const e of exprs) {
    if (!isObject(e)) continue;
    const key = String(e['key']);
    const values = Array.isArray(e['values']) ? [...(e['values'] as string[])].sort() : [];
    if (e['operator'] === 'In') parts.push(`${key} in (${values.join(',')})`);
    else if (e['operator'] === 'NotIn') parts.push(`${key} notin (${values.join(',')})`);
    else if (e['operator'] === 'Exists') parts.push(key);
    else if (e['operator'] === 'DoesNotExist') parts.push(`!${key}`);
  }
  return parts.sort().join(',');
}

/** `metav1.FormatLabelSelector`: `<none>` for a nil or empty selector, else its string form. */
export function formatSelector(selector: unknown): string {
  const s = selectorString(selector);
  return s === '' ? '<none>' : s;
}

/** The comma-joined names and images of a pod template's containers (`layoutContainerCells`). */
export function containersAndImages(template: unknown): [string, string] {
  const spec = isObject(template) && isObject(template['spec']) ? template['spec'] : {};
  const containers = Array.isArray(spec['containers']) ? spec['containers'].filter(isObject) : [];
  return [containers.map((c) => str(c, 'name')).join(','), containers.map((c) => str(c, 'image')).join(',')];
}

/** A number field, 0 when absent. */
export function num(o: Json | undefined, field: string): number {
  const v = o?.[field];
  return typeof v === 'number' ? v : 0;
}

/** An object field, `{}` when absent. */
export function obj(o: unknown, field: string): Json {
  return isObject(o) && isObject(o[field]) ? o[field] : {};
}

/** A string field, `''` when absent. */
export function str(o: unknown, field: string): string {
  const v = isObject(o) ? o[field] : undefined;
  return typeof v === 'string' ? v : '';
}

/** An IntOrString as text (`intstr.String()`), `fallback` when absent. */
export function intOrString(v: unknown, fallback: string): string {
  if (typeof v === 'number') return String(v);
  if (typeof v === 'string') return v;
  return fallback;
}

/** A scalar as text (`''` for anything else): quantities arrive as strings or numbers. */
export function text(v: unknown): string {
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
}
