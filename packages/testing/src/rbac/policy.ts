/**
 * PolicyRule evaluation as kube-apiserver v1.24 does it: whether a rule allows a request
 * (`plugin/pkg/auth/authorizer/rbac/rbac.go` RuleAllows and `pkg/apis/rbac/v1/evaluation_helpers.go`:
 * `*` wildcards, `*` for all of a subresource's resources, resourceNames, non-resource URL prefixes
 * ending in `*`), whether
 * one set of rules covers another (`component-helpers/auth/rbac/validation/policy_comparator.go`,
 * the escalation check), and the compact descriptions its error messages print
 * (`pkg/registry/rbac/validation/policy_compact.go`, `CompactString`).
 *
 * @module
 */
import { goQuote } from '../validation/names.js';
import type { Attributes } from './attributes.js';
import type { PolicyRule } from './types.js';

const has = (set: readonly string[] | undefined, v: string): boolean => set?.includes(v) ?? false;

/** A verb of the rule is `*` or the requested one. */
export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === '*' || v === verb);
}

/** An API group of the rule is `*` or the requested one. */
export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === '*' || g === group);
}

/**
 * A resource of the rule is `*`, the requested `resource[/subresource]`, or a star, a slash and
 * the requested subresource.
 */
export function resourceMatches(rule: PolicyRule, combined: string, subresource: string): boolean {
  for (const r of rule.resources ?? []) {
    if (r === '*' || r === combined) return true;
    if (subresource === '') continue;
    if (r.length === subresource.length + 2 && r.startsWith('*/') && r.endsWith(subresource)) return true;
  }
  return false;
}

/** No resourceNames, or the requested name among them (an empty name never matches a list). */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(name);
}

/** A URL of the rule is `*`, the path, or a prefix of it ending in `*`. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const u of rule.nonResourceURLs ?? []) {
    if (u === '*' || u === path) return true;
    if (u.endsWith('*') && path.startsWith(u.replace(/\*+$/, ''))) return true;
  }
  return false;
}

/** Whether `rule` allows the request (`RuleAllows`). */
export function ruleAllows(a: Attributes, rule: PolicyRule): boolean {
  if (a.resourceRequest) {
    const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
    return (
      verbMatches(rule, a.verb) &&
      apiGroupMatches(rule, a.apiGroup) &&
      resourceMatches(rule, combined, a.subresource) &&
      resourceNameMatches(rule, a.name)
    );
  }
  return verbMatches(rule, a.verb) && nonResourceURLMatches(rule, a.path);
}

/**
 * The rule split into rules of one group, resource, verb and resource name each (non-resource URLs
 * into one URL and verb each), in Go's loop order (`BreakdownRule`).
 */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [];
        if (names.length > 0) {
          for (const name of names)
            out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
        } else out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

function hasAll(set: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  const owned = new Set(set ?? []);
  return (wanted ?? []).every((w) => owned.has(w));
}

function resourceCoversAll(
  owner: readonly string[] | undefined,
  wanted: readonly string[] | undefined,
): boolean {
  if (has(owner, '*') || hasAll(owner, wanted)) return true;
  for (const path of wanted ?? []) {
    if (has(owner, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!has(owner, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

function nonResourceURLCovers(owner: string, sub: string): boolean {
  return owner === sub || (owner.endsWith('*') && sub.startsWith(owner.replace(/\*+$/, '')));
}

function nonResourceURLsCoverAll(
  owner: readonly string[] | undefined,
  wanted: readonly string[] | undefined,
): boolean {
  return (wanted ?? []).every((path) => (owner ?? []).some((o) => nonResourceURLCovers(o, path)));
}

/** Whether `owner` covers `sub`, a rule of at most one verb, resource and name (`ruleCovers`). */
function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceURLsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names =
    subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/**
 * Whether `owner` rules cover every permission of `servant` rules, and the broken-down servant
 * rules they do not cover (`Covers`).
 *
 * ## Example
 * ```ts
 * covers([{ verbs: ['*'], apiGroups: [''], resources: ['pods'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'secrets'] }]);
 * // { covered: false, missing: [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }] }
 * ```
 */
export function covers(
  owner: readonly PolicyRule[],
  servant: readonly PolicyRule[],
): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const rule of servant) {
    for (const sub of breakdownRule(rule)) {
      if (!owner.some((o) => ruleCovers(o, sub))) missing.push(sub);
    }
  }
  return { covered: missing.length === 0, missing };
}

function isSimpleResourceRule(r: PolicyRule): string | undefined {
  if ((r.resourceNames?.length ?? 0) > 0 || (r.nonResourceURLs?.length ?? 0) > 0) return undefined;
  if (r.apiGroups?.length !== 1 || r.resources?.length !== 1) return undefined;
  return `${r.apiGroups[0] ?? ''}\n${r.resources[0] ?? ''}`;
}

/**
 * Rules of a single group and resource that differ only by verb merged into one (`CompactRules`);
 * the others kept as they are.
 */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const simple = new Map<string, { apiGroups: string[]; resources: string[]; verbs: string[] }>();
  for (const r of rules) {
    const key = isSimpleResourceRule(r);
    if (key === undefined) {
      out.push(r);
      continue;
    }
    const existing = simple.get(key);
    if (existing) existing.verbs.push(...r.verbs);
    else
      simple.set(key, {
        apiGroups: [...(r.apiGroups ?? [])],
        resources: [...(r.resources ?? [])],
        verbs: [...r.verbs],
      });
  }
  out.push(...simple.values());
  return out;
}

const goList = (l: readonly string[]): string => `[${l.map(goQuote).join(' ')}]`;

/**
 * `{APIGroups:["apps"], Resources:["deployments"], Verbs:["get" "list"]}`: how escalation errors
 * print a rule (`CompactString`).
 */
export function compactString(r: PolicyRule): string {
  const parts: string[] = [];
  if ((r.apiGroups?.length ?? 0) > 0) parts.push(`APIGroups:${goList(r.apiGroups ?? [])}`);
  if ((r.resources?.length ?? 0) > 0) parts.push(`Resources:${goList(r.resources ?? [])}`);
  if ((r.nonResourceURLs?.length ?? 0) > 0) parts.push(`NonResourceURLs:${goList(r.nonResourceURLs ?? [])}`);
  if ((r.resourceNames?.length ?? 0) > 0) parts.push(`ResourceNames:${goList(r.resourceNames ?? [])}`);
  if (r.verbs.length > 0) parts.push(`Verbs:${goList(r.verbs)}`);
  return `{${parts.join(', ')}}`;
}
