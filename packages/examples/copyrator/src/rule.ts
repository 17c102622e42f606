/**
 * What one rule says: the kind it copies, whether a rule is valid, which objects are its sources
 * and which are its copies, and the copy of a source in a target namespace.
 *
 * @module
 */
import type { KubeObject, ObjectRef } from '@rxkube/kube';

import type { CopyObject, CopyratorRule, CopyratorRuleSpec, LabelSelector } from './rule-types.js';
import {
  CONFIGMAP,
  MAX_LABEL_VALUE,
  RULE_LABEL,
  SECRET,
  SERVICE_ACCOUNT_TOKEN,
  SOURCE_ANNOTATION,
} from './rule-types.js';

/**
 * The resource type a rule copies.
 *
 * ## Example
 * ```ts
 * copiedType(rule.spec); // { apiVersion: 'v1', kind: 'Secret' } for ruleType 'secret'
 * ```
 */
export function copiedType(spec: Pick<CopyratorRuleSpec, 'ruleType'>): typeof CONFIGMAP | typeof SECRET {
  return spec.ruleType === 'secret' ? SECRET : CONFIGMAP;
}

/**
 * Whether `labels` satisfy `selector` (`metav1.LabelSelector` semantics: every `matchLabels`
 * entry and every `matchExpressions` requirement must hold).
 *
 * ## Example
 * ```ts
 * selectorMatches({ matchLabels: { app: 'a' } }, { app: 'a', tier: 'web' }); // true
 * selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, { tier: 'web' }); // false
 * ```
 */
export function selectorMatches(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>> = {},
): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const r of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    const value = labels[r.key];
    const values = r.values ?? [];
    switch (r.operator) {
      case 'In':
        if (!has || value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (has && value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** A namespace name: an RFC 1123 label. */
const NAMESPACE_NAME = /^(?=.{1,63}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** The name part of a label key, and a non-empty label value. */
const LABEL_NAME = /^(?=.{1,63}$)[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
/** A label key's prefix: a DNS subdomain. */
const DNS_SUBDOMAIN = /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why `key` is no label key (`[prefix/]name`, Kubernetes' qualified name), or undefined. */
function labelKeyProblem(key: string): string | undefined {
  const slash = key.lastIndexOf('/');
  const prefix = slash < 0 ? undefined : key.slice(0, slash);
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (prefix !== undefined && !DNS_SUBDOMAIN.test(prefix)) {
    return `has a prefix that is not a DNS subdomain (lower-case, "." separated, at most 253 characters): no label can match it`;
  }
  if (!LABEL_NAME.test(name)) {
    return 'is not a label key (at most 63 letters, digits, "-", "_" or ".", starting and ending alphanumeric, after an optional "prefix/"): no label can match it';
  }
  return undefined;
}

/** Why `value` is no label value, or undefined. */
function labelValueProblem(value: string): string | undefined {
  return value === '' || LABEL_NAME.test(value)
    ? undefined
    : 'is not a label value (at most 63 letters, digits, "-", "_" or ".", starting and ending alphanumeric): no label can match it';
}

/**
 * What is wrong with a rule that the CRD schema cannot say: an empty selector (which would copy
 * everything), a name too long to be a label value, `In`/`NotIn` without values. Empty when usable.
 *
 * ## Example
 * ```ts
 * ruleProblems(rule); // ['spec.selector must have at least one matchLabels entry or matchExpressions requirement …']
 * ```
 */
export function ruleProblems(rule: CopyratorRule): string[] {
  const problems: string[] = [];
  const name = rule.metadata.name ?? '';
  if (name.length > MAX_LABEL_VALUE) {
    problems.push(
      `metadata.name is ${name.length} characters; copies are labelled ${RULE_LABEL}=<rule name>, and label values are at most ${MAX_LABEL_VALUE}: use a shorter name`,
    );
  }
  const spec = rule.spec;
  if (spec === undefined) return [...problems, 'spec is missing: set ruleType, selector and sourceNamespace'];
  if (spec.ruleType !== 'configmap' && spec.ruleType !== 'secret') {
    problems.push(`spec.ruleType is ${JSON.stringify(spec.ruleType)}: use "configmap" or "secret"`);
  }
  if (typeof spec.sourceNamespace !== 'string' || spec.sourceNamespace === '') {
    problems.push('spec.sourceNamespace is empty: name the namespace to copy from');
  }
  const selector = spec.selector ?? {};
  const requirements =
    Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length;
  if (requirements === 0) {
    problems.push(
      'spec.selector must have at least one matchLabels entry or matchExpressions requirement: an empty selector would copy every object of the source namespace',
    );
  }
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    const keyProblem = labelKeyProblem(key);
    if (keyProblem !== undefined)
      problems.push(`spec.selector.matchLabels key ${JSON.stringify(key)} ${keyProblem}`);
    const valueProblem = labelValueProblem(value);
    if (valueProblem !== undefined) {
      problems.push(
        `spec.selector.matchLabels[${JSON.stringify(key)}] value ${JSON.stringify(value)} ${valueProblem}`,
      );
    }
  }
  for (const [i, r] of (selector.matchExpressions ?? []).entries()) {
    if ((r.operator === 'In' || r.operator === 'NotIn') && (r.values ?? []).length === 0) {
      problems.push(`spec.selector.matchExpressions[${i}] (${r.operator}) needs at least one value`);
    }
    const keyProblem = labelKeyProblem(r.key);
    if (keyProblem !== undefined) {
      problems.push(`spec.selector.matchExpressions[${i}].key ${JSON.stringify(r.key)} ${keyProblem}`);
    }
    for (const v of r.values ?? []) {
      const valueProblem = labelValueProblem(v);
      if (valueProblem !== undefined) {
        problems.push(`spec.selector.matchExpressions[${i}] value ${JSON.stringify(v)} ${valueProblem}`);
      }
    }
  }
  for (const [field, names] of [
    [
      'spec.sourceNamespace',
      typeof spec.sourceNamespace === 'string' && spec.sourceNamespace !== '' ? [spec.sourceNamespace] : [],
    ],
    ['spec.targetNamespaces', spec.targetNamespaces ?? []],
  ] as const) {
    for (const ns of names) {
      if (!NAMESPACE_NAME.test(ns)) {
        problems.push(
          `${field} ${JSON.stringify(ns)} is not a namespace name (lower-case letters, digits and "-", at most 63 characters)`,
        );
      }
    }
  }
  return problems;
}

/**
 * `namespace/name` of an object (the value of {@link SOURCE_ANNOTATION} for a source).
 *
 * ## Example
 * ```ts
 * keyOf({ metadata: { namespace: 'platform', name: 'registry' } }); // 'platform/registry'
 * ```
 */
export function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

/**
 * Whether `object` is one of copyrator's copies (of any rule). Copies are never sources, so rules
 * never copy each other's copies around.
 *
 * ## Example
 * ```ts
 * isCopy({ metadata: { labels: { [RULE_LABEL]: 'registry' } } }); // true
 * ```
 */
export function isCopy(object: KubeObject): boolean {
  return object.metadata.labels?.[RULE_LABEL] !== undefined;
}

/**
 * Whether `object` is a source of `rule`: in its source namespace, of its kind, matched by its
 * selector, not a copy, not being deleted, not a service-account token.
 *
 * ## Example
 * ```ts
 * const sources = store.list(rule.spec.sourceNamespace).filter((o) => isSourceOf(rule, o));
 * ```
 */
export function isSourceOf(rule: CopyratorRule, object: CopyObject): boolean {
  const spec = rule.spec;
  if (spec === undefined) return false;
  const type = copiedType(spec);
  if (object.kind !== undefined && object.kind !== type.kind) return false;
  return (
    object.metadata.namespace === spec.sourceNamespace &&
    object.metadata.deletionTimestamp === undefined &&
    !isCopy(object) &&
    object.type !== SERVICE_ACCOUNT_TOKEN &&
    selectorMatches(spec.selector ?? {}, object.metadata.labels)
  );
}

/**
 * The copy of `source` that rule `ruleName` wants in `namespace`: the source's content (ConfigMap
 * `data`/`binaryData`; Secret `type`/`data`) under the same name, labelled with the rule and
 * annotated with the source. The source's own labels and annotations are not copied (a copy must
 * not match some rule's selector and become a source itself).
 *
 * ## Example
 * ```ts
 * await client.apply(copyOf(source, 'registry', 'team-a'), { fieldManager: FIELD_MANAGER, force: true });
 * ```
 */
export function copyOf(source: CopyObject, ruleName: string, namespace: string): CopyObject {
  const kind = source.kind === 'Secret' ? 'Secret' : 'ConfigMap';
  const copy: CopyObject = {
    apiVersion: 'v1',
    kind,
    metadata: {
      name: source.metadata.name ?? '',
      namespace,
      labels: { [RULE_LABEL]: ruleName },
      annotations: { [SOURCE_ANNOTATION]: keyOf(source) },
    },
  };
  if (kind === 'Secret') copy.type = source.type ?? 'Opaque';
  if (source.data !== undefined && Object.keys(source.data).length > 0) copy.data = { ...source.data };
  if (kind === 'ConfigMap' && source.binaryData !== undefined && Object.keys(source.binaryData).length > 0) {
    copy.binaryData = { ...source.binaryData };
  }
  return copy;
}

/**
 * The reference of a copy (or any ConfigMap/Secret).
 *
 * ## Example
 * ```ts
 * await client.delete(refOf(copy), { preconditions: { uid: copy.metadata.uid } });
 * ```
 */
export function refOf(object: KubeObject): ObjectRef {
  return {
    apiVersion: 'v1',
    kind: object.kind ?? 'ConfigMap',
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name ?? '',
  };
}

/** `{ uid }` of an object when it has one: a precondition that pins a write to that object. */
export function uidOf(o: KubeObject): { uid?: string } {
  return o.metadata.uid !== undefined ? { uid: o.metadata.uid } : {};
}
