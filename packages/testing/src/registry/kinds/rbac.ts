/**
 * rbac.authorization.k8s.io/v1 Role, ClusterRole, RoleBinding and ClusterRoleBinding as
 * kube-apiserver v1.24 serves them: discovery (every verb, no short names), path-segment names
 * (`system:controller:x`), create on update (the RBAC strategies allow it), the decode-time
 * defaults (`pkg/apis/rbac/v1/defaults.go`: roleRef and User/Group subjects get the
 * `rbac.authorization.k8s.io` apiGroup), Go's field order and serialisation (`rules` is never
 * omitted — `null` when empty —, empty `subjects` are), and validation (`src/rbac/validation.ts`).
 * What only the server's RBAC machinery can check (roleRef immutability needs the old object,
 * escalation prevention needs the user) lives in `src/rbac/`.
 *
 * @module
 */
import { RBAC_GROUP } from '../../rbac/types.js';
import {
  validateClusterRole,
  validateClusterRoleBinding,
  validateRole,
  validateRoleBinding,
} from '../../rbac/validation.js';
import type { StatusCause } from '../../status.js';
import type { Json, KObj } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import type { ResourceType } from '../types.js';
import { builtin, typedWireForm } from './builtin.js';

/** Subject and RoleRef field orders (Go struct order). */
const SUBJECT_FIELDS = ['kind', 'apiGroup', 'name', 'namespace'];
const ROLE_REF_FIELDS = ['apiGroup', 'kind', 'name'];
const RULE_FIELDS = ['verbs', 'apiGroups', 'resources', 'resourceNames', 'nonResourceURLs'];

function ordered(v: unknown, fields: readonly string[]): unknown {
  if (!isObject(v)) return v;
  const out: Json = {};
  for (const f of fields) if (v[f] !== undefined) out[f] = v[f];
  return out;
}

function orderedList(v: unknown, fields: readonly string[]): unknown {
  return Array.isArray(v) ? v.map((item) => ordered(item, fields)) : v;
}

/** Wire/storage form of a Role or ClusterRole: rules in Go order, `null` when there are none. */
function roleForm(apiVersion: string, kind: string): (o: KObj) => KObj {
  const fields = kind === 'ClusterRole' ? ['rules', 'aggregationRule'] : ['rules'];
  return (o) => {
    const out = typedWireForm(o, apiVersion, kind, fields);
    const rules = o['rules'];
    out['rules'] = Array.isArray(rules) && rules.length > 0 ? orderedList(rules, RULE_FIELDS) : null;
    if (kind === 'ClusterRole' && isObject(o['aggregationRule'])) {
      const selectors = o['aggregationRule']['clusterRoleSelectors'];
      out['aggregationRule'] =
        Array.isArray(selectors) && selectors.length > 0 ? { clusterRoleSelectors: selectors } : {};
    } else delete out['aggregationRule'];
    return out;
  };
}

/** Wire/storage form of a binding: subjects (omitted when empty), then roleRef. */
function bindingForm(apiVersion: string, kind: string): (o: KObj) => KObj {
  return (o) => {
    const out = typedWireForm(o, apiVersion, kind, ['subjects', 'roleRef']);
    if (Array.isArray(o['subjects']) && o['subjects'].length > 0)
      out['subjects'] = orderedList(o['subjects'], SUBJECT_FIELDS);
    else delete out['subjects'];
    out['roleRef'] = ordered(o['roleRef'] ?? {}, ROLE_REF_FIELDS);
    return out;
  };
}

/** `SetDefaults_RoleBinding` / `SetDefaults_Subject`; drops `subjects: []` as Go's omitempty does. */
function bindingDefaults(o: KObj): void {
  const ref = isObject(o['roleRef']) ? o['roleRef'] : {};
  if (typeof ref['apiGroup'] !== 'string' || ref['apiGroup'] === '') ref['apiGroup'] = RBAC_GROUP;
  o['roleRef'] = ref;
  const subjects = o['subjects'];
  if (Array.isArray(subjects) && subjects.length === 0) delete o['subjects'];
  if (!Array.isArray(subjects)) return;
  for (const s of subjects) {
    if (!isObject(s) || (typeof s['apiGroup'] === 'string' && s['apiGroup'] !== '')) continue;
    if (s['kind'] === 'User' || s['kind'] === 'Group') s['apiGroup'] = RBAC_GROUP;
  }
}

function rbacType(
  resource: string,
  kind: string,
  namespaced: boolean,
  form: (apiVersion: string, kind: string) => (o: KObj) => KObj,
  validate: (o: KObj) => StatusCause[],
  knownFields: readonly string[],
  defaults?: (o: KObj) => void,
): ResourceType {
  const wire = form(`${RBAC_GROUP}/v1`, kind);
  return builtin({
    group: RBAC_GROUP,
    version: 'v1',
    resource,
    kind,
    namespaced,
    knownFields,
    nameRule: 'path-segment',
    allowCreateOnUpdate: true,
    fromStorage: wire,
    toStorage: wire,
    validate,
    ...(defaults ? { defaults } : {}),
  });
}

/**
 * The four RBAC kinds.
 *
 * ## Example
 * ```ts
 * import { Registry } from '../registry.js';
 * const registry = new Registry();
 * for (const t of rbacKinds()) registry.add(t);
 * ```
 */
export function rbacKinds(): ResourceType[] {
  return [
    rbacType('roles', 'Role', true, roleForm, validateRole, ['rules']),
    rbacType('clusterroles', 'ClusterRole', false, roleForm, validateClusterRole, [
      'rules',
      'aggregationRule',
    ]),
    rbacType(
      'rolebindings',
      'RoleBinding',
      true,
      bindingForm,
      validateRoleBinding,
      ['subjects', 'roleRef'],
      bindingDefaults,
    ),
    rbacType(
      'clusterrolebindings',
      'ClusterRoleBinding',
      false,
      bindingForm,
      validateClusterRoleBinding,
      ['subjects', 'roleRef'],
      bindingDefaults,
    ),
  ];
}
