/**
 * `metadata` validation as kube-apiserver v1.24 runs it, with the real causes and messages:
 * `ValidateObjectMeta`/`ValidateObjectMetaUpdate` of `k8s.io/apimachinery/pkg/api/validation/objectmeta.go`
 * (generateName, name, labels, annotations and their total size, ownerReferences, finalizers,
 * immutable fields) and the wrappers of `k8s.io/kubernetes/pkg/apis/core/validation` that add a
 * per-index check of finalizer names (the "core" flavour).
 *
 * On update the real server validates metadata several times — `validateCommonFields` of
 * `apiserver/pkg/registry/rest/update.go` (the generic create and update checks), then the type's
 * strategy, which may call `ValidateObjectMetaUpdate` and the full create validation again — and
 * lists a cause once per pass (the message shows it once: `ToAggregate` dedupes). {@link metaUpdateCauses}
 * reproduces that from the type's {@link MetaValidation}.
 *
 * @module
 */
import { qualifiedNameErrors } from '@rxkube/wire';

import type { StatusCause } from '../status.js';
import type { NameRule } from './names.js';
import { goQuote, invalidCause, validateLabels, validateObjectName } from './names.js';

/** How a type's registry strategy validates `metadata` (kube-apiserver v1.24, measured per kind). */
export interface MetaValidation {
  /**
   * `core`: the wrappers of `pkg/apis/core/validation` (adds `metadata.finalizers[i]: … is neither a
   * standard finalizer name nor is it fully qualified`); `generic`: apimachinery's checks alone
   * (custom resources, CRDs, Leases); `none`: the strategy does not look at metadata (core/v1 Events:
   * only the generic checks of `rest.BeforeCreate`/`BeforeUpdate` run).
   */
  readonly flavor: 'core' | 'generic' | 'none';
  /**
   * What the strategy's `ValidateUpdate` runs after the generic checks: `update` =
   * `ValidateObjectMetaUpdate` (Deployments, CRs, CRDs, Leases); `update+create` = that and then the
   * full create validation (`ValidateConfigMapUpdate` calls `ValidateConfigMap`: ConfigMaps, Secrets,
   * Services, ServiceAccounts, Pods); `create+update` (Namespaces); `none` (core/v1 Events, whose
   * update validation is skipped for the v1 API).
   */
  readonly onUpdate: 'update' | 'update+create' | 'create+update' | 'none';
}

/** `TotalAnnotationSizeLimitB`: 256 KiB of keys and values together. */
export const TOTAL_ANNOTATION_SIZE_LIMIT = 256 * 1024;

/** The loose shape of `metadata` as decoded from JSON. */
export type MetaLike = Readonly<Record<string, unknown>>;

const STANDARD_FINALIZERS = new Set(['kubernetes', 'orphan', 'foregroundDeletion']);

function record(v: unknown): Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Go's `%#v` of a `[]string`: `[]string{"a", "b"}`. */
export function goStringSlice(values: readonly string[]): string {
  return `[]string{${values.map(goQuote).join(', ')}}`;
}

/** `ValidateAnnotations`: qualified keys (checked lower-cased) and the 256 KiB total size. */
export function validateAnnotations(annotations: unknown, field = 'metadata.annotations'): StatusCause[] {
  const causes: StatusCause[] = [];
  let total = 0;
  for (const [k, v] of Object.entries(record(annotations))) {
    for (const msg of qualifiedNameErrors(k.toLowerCase())) causes.push(invalidCause(field, k, msg));
    total += byteLength(k) + (typeof v === 'string' ? byteLength(v) : 0);
  }
  if (total > TOTAL_ANNOTATION_SIZE_LIMIT) {
    causes.push({
      reason: 'FieldValueTooLong',
      message: `Too long: must have at most ${String(TOTAL_ANNOTATION_SIZE_LIMIT)} bytes`,
      field,
    });
  }
  return causes;
}

/** Go's `%#v` of a `*bool` (the address is arbitrary, as on the real server). */
function goBoolPointer(v: unknown, seed: number): string {
  if (typeof v !== 'boolean') return '(*bool)(nil)';
  return `(*bool)(0xc000${(0x100000 + seed * 0x10).toString(16)})`;
}

function goOwnerReference(ref: Record<string, unknown>, seed: number): string {
  const s = (k: string): string => goQuote(typeof ref[k] === 'string' ? ref[k] : '');
  return `v1.OwnerReference{APIVersion:${s('apiVersion')}, Kind:${s('kind')}, Name:${s('name')}, UID:${s('uid')}, Controller:${goBoolPointer(ref['controller'], seed * 2)}, BlockOwnerDeletion:${goBoolPointer(ref['blockOwnerDeletion'], seed * 2 + 1)}}`;
}

/** `schema.FromAPIVersionAndKind`: the version part ('' when the apiVersion does not parse). */
function versionOf(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: parts[0] ?? '' };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return { group: '', version: '' };
}

/** `ValidateOwnerReferences`: required parts, banned owners (core Events), one controller. */
export function validateOwnerReferences(refs: unknown, field = 'metadata.ownerReferences'): StatusCause[] {
  const causes: StatusCause[] = [];
  const list = Array.isArray(refs) ? refs.map(record) : [];
  let controllerName = '';
  list.forEach((ref, i) => {
    const str = (k: string): string => (typeof ref[k] === 'string' ? ref[k] : '');
    const { group, version } = versionOf(str('apiVersion'));
    if (version === '')
      causes.push(invalidCause(`${field}.apiVersion`, str('apiVersion'), 'version must not be empty'));
    if (str('kind') === '') causes.push(invalidCause(`${field}.kind`, str('kind'), 'kind must not be empty'));
    if (str('name') === '') causes.push(invalidCause(`${field}.name`, str('name'), 'name must not be empty'));
    if (str('uid') === '') causes.push(invalidCause(`${field}.uid`, str('uid'), 'uid must not be empty'));
    if (group === '' && version === 'v1' && str('kind') === 'Event') {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${goOwnerReference(ref, i)}: /v1, Kind=Event is disallowed from being an owner`,
        field,
      });
    }
    if (ref['controller'] === true) {
      if (controllerName !== '') {
        causes.push({
          reason: 'FieldValueInvalid',
          message: `Invalid value: []v1.OwnerReference{${list.map(goOwnerReference).join(', ')}}: Only one reference can have Controller set to true. Found "true" in references for ${controllerName} and ${str('name')}`,
          field,
        });
      } else controllerName = str('name');
    }
  });
  return causes;
}

/** `ValidateFinalizers` (apimachinery): qualified names, not both `orphan` and `foregroundDeletion`. */
export function validateFinalizers(finalizers: unknown, field = 'metadata.finalizers'): StatusCause[] {
  const causes: StatusCause[] = [];
  const list = strings(finalizers);
  for (const f of list) for (const msg of qualifiedNameErrors(f)) causes.push(invalidCause(field, f, msg));
  if (list.includes('orphan') && list.includes('foregroundDeletion')) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${goStringSlice(list)}: finalizer orphan and foregroundDeletion cannot be both set`,
      field,
    });
  }
  return causes;
}

/** `validateKubeFinalizerName` per index (core flavour): a name without `/` must be a standard one. */
export function validateKubeFinalizerNames(
  finalizers: unknown,
  field = 'metadata.finalizers',
): StatusCause[] {
  const causes: StatusCause[] = [];
  strings(finalizers).forEach((f, i) => {
    if (!f.includes('/') && !STANDARD_FINALIZERS.has(f)) {
      causes.push(
        invalidCause(
          `${field}[${String(i)}]`,
          f,
          'name is neither a standard finalizer name nor is it fully qualified',
        ),
      );
    }
  });
  return causes;
}

/**
 * `ValidateObjectMeta` on create: generateName, name, labels, annotations, ownerReferences,
 * finalizers (plus the core per-index finalizer check).
 *
 * ## Example
 * ```ts
 * validateObjectMeta({ name: 'a', labels: { 'bad key': 'x' } }, 'subdomain', 'core');
 * // [{ reason: 'FieldValueInvalid', field: 'metadata.labels', message: 'Invalid value: "bad key": name part must …' }]
 * ```
 */
export function validateObjectMeta(
  meta: MetaLike,
  nameRule: NameRule,
  flavor: MetaValidation['flavor'],
): StatusCause[] {
  const name = typeof meta['name'] === 'string' ? meta['name'] : undefined;
  const generateName = typeof meta['generateName'] === 'string' ? meta['generateName'] : undefined;
  const causes: StatusCause[] = [...validateObjectName(name, nameRule, generateName)];
  causes.push(...validateLabels(record(meta['labels'])));
  causes.push(...validateAnnotations(meta['annotations']));
  causes.push(...validateOwnerReferences(meta['ownerReferences']));
  causes.push(...validateFinalizers(meta['finalizers']));
  if (flavor === 'core') causes.push(...validateKubeFinalizerNames(meta['finalizers']));
  return causes;
}

/** Go's `time.Time.String()` of an RFC 3339 timestamp: `2000-01-01 00:00:00 +0000 UTC`. */
function goTime(v: unknown): string {
  if (typeof v !== 'string') return 'null';
  const d = new Date(v);
  if (Number.isNaN(d.getTime())) return v;
  const iso = d.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)} +0000 UTC`;
}

function immutable(field: string, shown: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: field is immutable`, field };
}

/**
 * `ValidateObjectMetaUpdate`: no new finalizers while deleting, immutable name, namespace, uid,
 * creationTimestamp, deletionTimestamp and deletionGracePeriodSeconds; labels, annotations and
 * ownerReferences again (plus the core per-index finalizer check).
 */
export function validateObjectMetaUpdate(
  next: MetaLike,
  old: MetaLike,
  flavor: MetaValidation['flavor'],
): StatusCause[] {
  if (flavor === 'none') return [];
  const causes: StatusCause[] = [];
  if (old['deletionTimestamp'] !== undefined && old['deletionTimestamp'] !== null) {
    const before = new Set(strings(old['finalizers']));
    const added = [...new Set(strings(next['finalizers']).filter((f) => !before.has(f)))].sort();
    if (added.length > 0) {
      causes.push({
        reason: 'FieldValueForbidden',
        message: `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${goStringSlice(added)}`,
        field: 'metadata.finalizers',
      });
    }
  }
  const str = (m: MetaLike, k: string): string => (typeof m[k] === 'string' ? m[k] : '');
  for (const k of ['name', 'namespace', 'uid'] as const) {
    if (str(next, k) !== str(old, k)) causes.push(immutable(`metadata.${k}`, goQuote(str(next, k))));
  }
  for (const k of ['creationTimestamp', 'deletionTimestamp'] as const) {
    const a = next[k] ?? null;
    const b = old[k] ?? null;
    if (a !== b) causes.push(immutable(`metadata.${k}`, goTime(a)));
  }
  const grace = next['deletionGracePeriodSeconds'] ?? null;
  if (grace !== (old['deletionGracePeriodSeconds'] ?? null)) {
    causes.push(
      immutable('metadata.deletionGracePeriodSeconds', typeof grace === 'number' ? String(grace) : 'null'),
    );
  }
  causes.push(...validateLabels(record(next['labels'])));
  causes.push(...validateAnnotations(next['annotations']));
  causes.push(...validateOwnerReferences(next['ownerReferences']));
  if (flavor === 'core') causes.push(...validateKubeFinalizerNames(next['finalizers']));
  return causes;
}

/**
 * The metadata causes of an update, pass by pass as kube-apiserver lists them: the generic create
 * and update checks of `validateCommonFields` (names as path segments), then the strategy's passes.
 * `statusUpdate`: the status strategy runs only `ValidateObjectMetaUpdate`.
 */
export function metaUpdateCauses(
  next: MetaLike,
  old: MetaLike,
  rule: NameRule,
  v: MetaValidation,
  statusUpdate = false,
): StatusCause[] {
  const causes = [
    ...validateObjectMeta(next, 'path-segment', 'generic'),
    ...validateObjectMetaUpdate(next, old, 'generic'),
  ];
  const update = (): StatusCause[] => validateObjectMetaUpdate(next, old, v.flavor);
  const create = (): StatusCause[] => validateObjectMeta(next, rule, v.flavor);
  if (statusUpdate) return v.onUpdate === 'none' ? causes : [...causes, ...update()];
  switch (v.onUpdate) {
    case 'update':
      return [...causes, ...update()];
    case 'update+create':
      return [...causes, ...update(), ...create()];
    case 'create+update':
      return [...causes, ...create(), ...update()];
    case 'none':
      return causes;
  }
}
