/**
 * Validation of Role, ClusterRole, RoleBinding and ClusterRoleBinding as kube-apiserver v1.24 answers
 * it (`pkg/apis/rbac/validation/validation.go`, checked against the real server): rules need verbs
 * and either non-resource URLs (ClusterRoles only) or API groups and resources; an aggregation rule
 * needs valid selectors; a binding's roleRef is `rbac.authorization.k8s.io` Role/ClusterRole (a
 * ClusterRoleBinding only ClusterRole) and never changes; subjects are User/Group (apiGroup
 * `rbac.authorization.k8s.io`) or ServiceAccount (no apiGroup, a namespace in ClusterRoleBindings).
 * Names are path segments (`system:controller:x` is valid).
 *
 * @module
 */
import { dns1123SubdomainErrors, labelValueErrors, qualifiedNameErrors } from '@rxkube/wire';

import type { StatusCause } from '../status.js';
import type { KObj } from '../store/object.js';
import { isObject } from '../store/object.js';
import { goQuote, invalidCause, requiredCause, validateObjectName } from '../validation/names.js';
import { RBAC_GROUP, roleRefOf } from './types.js';

const goStrings = (v: unknown): string =>
  `[]string{${(Array.isArray(v) ? v : []).map((s) => goQuote(String(s))).join(', ')}}`;

const len = (v: unknown): number => (Array.isArray(v) ? v.length : 0);

function notSupported(field: string, value: string, supported: readonly string[]): StatusCause {
  return {
    reason: 'FieldValueNotSupported',
    message: `Unsupported value: ${goQuote(value)}: supported values: ${supported.map(goQuote).join(', ')}`,
    field,
  };
}

function validatePolicyRule(rule: unknown, namespaced: boolean, path: string): StatusCause[] {
  const r = isObject(rule) ? rule : {};
  const causes: StatusCause[] = [];
  if (len(r['verbs']) === 0)
    causes.push(requiredCause(`${path}.verbs`, 'verbs must contain at least one value'));
  if (len(r['nonResourceURLs']) > 0) {
    const urls = goStrings(r['nonResourceURLs']);
    const invalid = (detail: string): StatusCause => ({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${urls}: ${detail}`,
      field: `${path}.nonResourceURLs`,
    });
    if (namespaced) causes.push(invalid('namespaced rules cannot apply to non-resource URLs'));
    if (len(r['apiGroups']) > 0 || len(r['resources']) > 0 || len(r['resourceNames']) > 0)
      causes.push(invalid('rules cannot apply to both regular resources and non-resource URLs'));
    return causes;
  }
  if (len(r['apiGroups']) === 0)
    causes.push(requiredCause(`${path}.apiGroups`, 'resource rules must supply at least one api group'));
  if (len(r['resources']) === 0)
    causes.push(requiredCause(`${path}.resources`, 'resource rules must supply at least one resource'));
  return causes;
}

function validateRules(o: KObj, namespaced: boolean): StatusCause[] {
  const rules = o['rules'];
  return (Array.isArray(rules) ? rules : []).flatMap((r, i) =>
    validatePolicyRule(r, namespaced, `rules[${String(i)}]`),
  );
}

const SELECTOR_OPERATORS = new Set(['In', 'NotIn', 'Exists', 'DoesNotExist']);

/** `ValidateLabelSelector` plus the `LabelSelectorAsSelector` conversion of one selector. */
function validateSelector(selector: unknown, path: string): StatusCause[] {
  const s = isObject(selector) ? selector : {};
  const causes: StatusCause[] = [];
  let convertible = true;
  const expressions = Array.isArray(s['matchExpressions']) ? s['matchExpressions'] : [];
  expressions.forEach((e, i) => {
    const req = isObject(e) ? e : {};
    const at = `${path}.matchExpressions[${String(i)}]`;
    const op = typeof req['operator'] === 'string' ? req['operator'] : '';
    const values = len(req['values']);
    if (op === 'In' || op === 'NotIn') {
      if (values === 0) {
        causes.push(requiredCause(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        convertible = false;
      }
    } else if (op === 'Exists' || op === 'DoesNotExist') {
      if (values > 0) {
        causes.push({
          reason: 'FieldValueForbidden',
          message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          field: `${at}.values`,
        });
        convertible = false;
      }
    }
    if (!SELECTOR_OPERATORS.has(op)) {
      causes.push(invalidCause(`${at}.operator`, op, 'not a valid selector operator'));
      convertible = false;
    }
    const key = typeof req['key'] === 'string' ? req['key'] : '';
    for (const msg of qualifiedNameErrors(key)) causes.push(invalidCause(`${at}.key`, key, msg));
  });
  const matchLabels = isObject(s['matchLabels']) ? s['matchLabels'] : {};
  for (const [k, v] of Object.entries(matchLabels)) {
    for (const msg of qualifiedNameErrors(k)) causes.push(invalidCause(`${path}.matchLabels`, k, msg));
    if (typeof v === 'string')
      for (const msg of labelValueErrors(v)) causes.push(invalidCause(`${path}.matchLabels`, v, msg));
  }
  if (!convertible) causes.push(invalidCause(path, 'null', 'invalid label selector.'));
  return causes;
}

function validateAggregationRule(o: KObj): StatusCause[] {
  const rule = o['aggregationRule'];
  if (!isObject(rule)) return [];
  const selectors = Array.isArray(rule['clusterRoleSelectors']) ? rule['clusterRoleSelectors'] : [];
  const path = 'aggregationRule.clusterRoleSelectors';
  if (selectors.length === 0)
    return [requiredCause(path, 'at least one clusterRoleSelector required if aggregationRule is non-nil')];
  return selectors.flatMap((s, i) => validateSelector(s, `${path}[${String(i)}]`));
}

function validateRoleRef(o: KObj, kinds: readonly string[]): StatusCause[] {
  const ref = roleRefOf(o);
  const causes: StatusCause[] = [];
  if (ref.apiGroup !== RBAC_GROUP) causes.push(notSupported('roleRef.apiGroup', ref.apiGroup, [RBAC_GROUP]));
  if (!kinds.includes(ref.kind)) causes.push(notSupported('roleRef.kind', ref.kind, kinds));
  if (ref.name === '') causes.push(requiredCause('roleRef.name'));
  else
    for (const c of validateObjectName(ref.name, 'path-segment'))
      causes.push({ ...c, field: 'roleRef.name' });
  return causes;
}

function validateSubjects(o: KObj, namespaced: boolean): StatusCause[] {
  const subjects = Array.isArray(o['subjects']) ? o['subjects'] : [];
  const causes: StatusCause[] = [];
  subjects.forEach((raw, i) => {
    const s = isObject(raw) ? raw : {};
    const path = `subjects[${String(i)}]`;
    const name = typeof s['name'] === 'string' ? s['name'] : '';
    const apiGroup = typeof s['apiGroup'] === 'string' ? s['apiGroup'] : '';
    const kind = typeof s['kind'] === 'string' ? s['kind'] : '';
    if (name === '') causes.push(requiredCause(`${path}.name`));
    switch (kind) {
      case 'ServiceAccount':
        if (name !== '')
          for (const msg of dns1123SubdomainErrors(name))
            causes.push(invalidCause(`${path}.name`, name, msg));
        if (apiGroup !== '') causes.push(notSupported(`${path}.apiGroup`, apiGroup, ['']));
        if (!namespaced && (typeof s['namespace'] !== 'string' || s['namespace'] === ''))
          causes.push(requiredCause(`${path}.namespace`));
        break;
      case 'User':
      case 'Group':
        if (apiGroup !== RBAC_GROUP) causes.push(notSupported(`${path}.apiGroup`, apiGroup, [RBAC_GROUP]));
        break;
      default:
        causes.push(notSupported(`${path}.kind`, kind, ['ServiceAccount', 'User', 'Group']));
    }
  });
  return causes;
}

/** Causes of an invalid Role (metadata.name is checked by the engine). */
export function validateRole(o: KObj): StatusCause[] {
  return validateRules(o, true);
}

/** Causes of an invalid ClusterRole. */
export function validateClusterRole(o: KObj): StatusCause[] {
  return [...validateRules(o, false), ...validateAggregationRule(o)];
}

/** Causes of an invalid RoleBinding. */
export function validateRoleBinding(o: KObj): StatusCause[] {
  return [...validateRoleRef(o, ['Role', 'ClusterRole']), ...validateSubjects(o, true)];
}

/** Causes of an invalid ClusterRoleBinding. */
export function validateClusterRoleBinding(o: KObj): StatusCause[] {
  return [...validateRoleRef(o, ['ClusterRole']), ...validateSubjects(o, false)];
}

/** The 422 cause of an update that changes a binding's roleRef (`ValidateRoleBindingUpdate`). */
export function roleRefChange(next: KObj, old: KObj): StatusCause[] {
  const a = roleRefOf(next);
  const b = roleRefOf(old);
  if (a.apiGroup === b.apiGroup && a.kind === b.kind && a.name === b.name) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      message: `Invalid value: rbac.RoleRef{APIGroup:${goQuote(a.apiGroup)}, Kind:${goQuote(a.kind)}, Name:${goQuote(a.name)}}: cannot change roleRef`,
      field: 'roleRef',
    },
  ];
}
