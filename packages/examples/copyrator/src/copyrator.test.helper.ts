// Fixtures of copyrator's unit tests: rules, namespaces, sources and copies, plan inputs, API errors.
import type { ObjectRef } from '@rxkube/kube';
import { KubeApiError } from '@rxkube/kube';
import type { PlanInput } from './plan.js';
import type { CopyObject, CopyratorRule, CopyratorRuleSpec, Namespace } from './rule-types.js';
import { RULE_TYPE } from './rule-types.js';
import { copyOf } from './rule.js';

// ── fixtures ────────────────────────────────────────────────────────────────────────────────

export const rule = (spec: Partial<CopyratorRuleSpec> = {}, name = 'r', generation = 1): CopyratorRule => ({
  ...RULE_TYPE,
  metadata: { name, generation, uid: `uid-${name}` },
  spec: {
    ruleType: 'configmap',
    sourceNamespace: 'src',
    selector: { matchLabels: { copy: 'yes' } },
    ...spec,
  },
});

const ns = (name: string, phase = 'Active'): Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name },
  status: { phase },
});
export const namespaces = [ns('src'), ns('a'), ns('b'), ns('gone', 'Terminating')];

export const cm = (
  namespace: string,
  name: string,
  data: Record<string, string>,
  labels: Record<string, string> = { copy: 'yes' },
  extra: Partial<CopyObject['metadata']> = {},
): CopyObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { namespace, name, labels, uid: `uid-${namespace}-${name}`, ...extra },
  data,
});

export const secret = (
  namespace: string,
  name: string,
  data: Record<string, string>,
  type = 'Opaque',
): CopyObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { namespace, name, labels: { copy: 'yes' }, uid: `uid-${namespace}-${name}` },
  type,
  data,
});

/** An existing copy of `source` in `namespace`, as the server would hold it. */
export const existingCopy = (
  source: CopyObject,
  namespace: string,
  ruleName = 'r',
  patch: Partial<CopyObject> = {},
) => {
  const c = copyOf(source, ruleName, namespace);
  return { ...c, ...patch, metadata: { ...c.metadata, uid: `uid-${namespace}-${c.metadata.name ?? ''}` } };
};

export const place = (o: { metadata: { namespace?: string; name?: string } }) =>
  `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;
export const refPlace = (r: ObjectRef) => `${r.namespace ?? ''}/${r.name}`;

export const input = (over: Partial<PlanInput> = {}): PlanInput => ({
  rule: rule(),
  candidates: [],
  namespaces,
  existing: [],
  ...over,
});

/** What kube-apiserver's RBAC authorizer says when it refuses `verb` on the copy. */
export const rbacDenial = (verb: string) =>
  `configmaps "settings" is forbidden: User "copyrator" cannot ${verb} resource "configmaps" in API group "" in the namespace "a"`;

export const apiError = (
  code: number,
  reason: string,
  verb = 'patch',
  message = code === 403 ? rbacDenial(verb) : reason,
) =>
  new KubeApiError({
    httpStatus: code,
    method: verb === 'delete' ? 'DELETE' : 'PATCH',
    url: 'http://127.0.0.1/api/v1/namespaces/a/configmaps/settings',
    target: { verb, resource: 'configmaps', namespace: 'a', name: 'settings' },
    status: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      reason,
      code,
      message,
    },
  });

// ── selectors and validation ────────────────────────────────────────────────────────────────
