/**
 * The authorization.k8s.io/v1 reviews, answered from the server's authorizer without storage, as
 * kube-apiserver v1.24's REST handlers answer them (`pkg/registry/authorization/*`):
 * SelfSubjectAccessReview (may I?), SubjectAccessReview (may this user?),
 * LocalSubjectAccessReview (the same, in the URL's namespace) and SelfSubjectRulesReview (what may I
 * do in a namespace?) — what `kubectl auth can-i` (and `--list`, `--as`) asks. Validation follows
 * `pkg/apis/authorization/validation`, including its `.authorization.k8s.io "" is invalid` wording.
 *
 * @module
 */
import { recordUpdate } from '../../apply/field-manager.js';
import type { RequestUser } from '../../auth.js';
import type { VirtualCreateRequest } from '../types.js';
import type { StatusCause } from '../../status.js';
import { ApiError, badRequest, failure } from '../../status.js';
import type { Json, KObj } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import { goQuote } from '../../validation/names.js';
import type { Attributes } from '../../rbac/attributes.js';
import { resourceAttributes } from '../../rbac/attributes.js';
import { ruleJson } from '../../rbac/types.js';

const GROUP = 'authorization.k8s.io';
const API_VERSION = `${GROUP}/v1`;

const RESOURCE_ATTRIBUTE_FIELDS = [
  'namespace',
  'verb',
  'group',
  'version',
  'resource',
  'subresource',
  'name',
];

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** ResourceAttributes in Go order, empty strings omitted. */
function resourceAttributesJson(v: Json): Json {
  const out: Json = {};
  for (const f of RESOURCE_ATTRIBUTE_FIELDS) if (str(v[f]) !== '') out[f] = v[f];
  return out;
}

function nonResourceAttributesJson(v: Json): Json {
  const out: Json = {};
  if (str(v['path']) !== '') out['path'] = v['path'];
  if (str(v['verb']) !== '') out['verb'] = v['verb'];
  return out;
}

/** The spec of an access review in Go order (`withSubject`: SubjectAccessReviewSpec fields). */
function specJson(spec: Json, withSubject: boolean): Json {
  const out: Json = {};
  if (isObject(spec['resourceAttributes']))
    out['resourceAttributes'] = resourceAttributesJson(spec['resourceAttributes']);
  if (isObject(spec['nonResourceAttributes']))
    out['nonResourceAttributes'] = nonResourceAttributesJson(spec['nonResourceAttributes']);
  if (withSubject) {
    if (str(spec['user']) !== '') out['user'] = spec['user'];
    if (Array.isArray(spec['groups']) && spec['groups'].length > 0) out['groups'] = spec['groups'];
    if (isObject(spec['extra']) && Object.keys(spec['extra']).length > 0) out['extra'] = spec['extra'];
    if (str(spec['uid']) !== '') out['uid'] = spec['uid'];
  }
  return out;
}

function goNonResourceAttributes(v: Json): string {
  return `authorization.NonResourceAttributes{Path:${goQuote(str(v['path']))}, Verb:${goQuote(str(v['verb']))}}`;
}

/** `ValidateSubjectAccessReviewSpec` / `ValidateSelfSubjectAccessReviewSpec`. */
function specCauses(spec: Json, withSubject: boolean): StatusCause[] {
  const causes: StatusCause[] = [];
  const ra = spec['resourceAttributes'];
  const nra = spec['nonResourceAttributes'];
  if (isObject(ra) && isObject(nra)) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${goNonResourceAttributes(nra)}: cannot be specified in combination with resourceAttributes`,
      field: 'spec.nonResourceAttributes',
    });
  }
  if (!isObject(ra) && !isObject(nra)) {
    causes.push({
      reason: 'FieldValueInvalid',
      message:
        'Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
      field: 'spec.resourceAttributes',
    });
  }
  const groups = Array.isArray(spec['groups']) ? spec['groups'] : [];
  if (withSubject && str(spec['user']) === '' && groups.length === 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: 'Invalid value: "": at least one of user or group must be specified',
      field: 'spec.user',
    });
  }
  return causes;
}

/**
 * `metadata` must be empty (but for the namespace of a LocalSubjectAccessReview). The real message
 * prints Go's `%#v` of the ObjectMeta (with a pointer and the request time); this one names the
 * fields that are set.
 */
function metadataCauses(o: KObj, allowNamespace: boolean): StatusCause[] {
  const set = Object.entries(o.metadata).filter(
    ([k, v]) =>
      v !== undefined && v !== null && k !== 'managedFields' && !(allowNamespace && k === 'namespace'),
  );
  if (set.length === 0) return [];
  const shown = set.map(
    ([k, v]) =>
      `${k[0]?.toUpperCase() ?? ''}${k.slice(1)}:${typeof v === 'string' ? goQuote(v) : JSON.stringify(v)}`,
  );
  return [
    {
      reason: 'FieldValueInvalid',
      message: `Invalid value: v1.ObjectMeta{${shown.join(', ')}}: ${allowNamespace ? 'must be empty except for namespace' : 'must be empty'}`,
      field: 'metadata',
    },
  ];
}

/** `apierrors.NewInvalid(authorizationapi.Kind(review.Kind), "", errs)` — the internal Kind is empty. */
function invalidReview(causes: readonly StatusCause[]): ApiError {
  const detail = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const message = `.${GROUP} "" is invalid: ${detail.length === 1 ? (detail[0] ?? '') : `[${detail.join(', ')}]`}`;
  return new ApiError(failure(422, 'Invalid', message, { group: GROUP, causes: [...causes] }));
}

/** Authorization attributes from a review spec (`authorizationutil.AuthorizationAttributesFrom`). */
function attributesOf(spec: Json, user: RequestUser): Attributes {
  const ra = spec['resourceAttributes'];
  if (isObject(ra)) {
    return resourceAttributes(user, str(ra['verb']), {
      namespace: str(ra['namespace']),
      apiGroup: str(ra['group']),
      apiVersion: str(ra['version']),
      resource: str(ra['resource']),
      subresource: str(ra['subresource']),
      name: str(ra['name']),
    });
  }
  const nra = isObject(spec['nonResourceAttributes']) ? spec['nonResourceAttributes'] : {};
  return {
    ...resourceAttributes(user, str(nra['verb']), {}),
    resourceRequest: false,
    path: str(nra['path']),
  };
}

/** The user a SubjectAccessReview asks about. */
function subjectOf(spec: Json): RequestUser {
  const groups = Array.isArray(spec['groups'])
    ? spec['groups'].filter((g): g is string => typeof g === 'string')
    : [];
  const extra: Record<string, string[]> = {};
  if (isObject(spec['extra'])) {
    for (const [k, v] of Object.entries(spec['extra']))
      extra[k] = Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
  }
  return {
    name: str(spec['user']),
    groups,
    anonymous: str(spec['user']) === 'system:anonymous',
    ...(str(spec['uid']) !== '' ? { uid: str(spec['uid']) } : {}),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}

function managedFields(body: KObj, r: VirtualCreateRequest): unknown[] {
  const entries = recordUpdate(
    undefined,
    { ...body, metadata: {} },
    { fieldManager: r.manager, apiVersion: API_VERSION, now: r.now },
  );
  return entries;
}

function reviewMetadata(body: KObj, r: VirtualCreateRequest, namespace?: string): Json {
  const meta: Json = {};
  if (namespace !== undefined) meta['namespace'] = namespace;
  meta['creationTimestamp'] = null;
  const mf = managedFields(body, r);
  if (mf.length > 0) meta['managedFields'] = mf;
  return meta;
}

function statusJson(allowed: boolean, reason: string): Json {
  const status: Json = { allowed };
  if (reason !== '') status['reason'] = reason;
  return status;
}

function accessReview(
  kind: 'SelfSubjectAccessReview' | 'SubjectAccessReview' | 'LocalSubjectAccessReview',
  body: KObj,
  r: VirtualCreateRequest,
): KObj {
  const spec = isObject(body['spec']) ? body['spec'] : {};
  const self = kind === 'SelfSubjectAccessReview';
  const local = kind === 'LocalSubjectAccessReview';
  const causes = [...specCauses(spec, !self), ...metadataCauses(body, local)];
  if (local) {
    const ra = spec['resourceAttributes'];
    const ns = str(body.metadata.namespace);
    if (isObject(ra) && str(ra['namespace']) !== ns) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${goQuote(str(ra['namespace']))}: must match metadata.namespace`,
        field: 'spec.resourceAttributes.namespace',
      });
    }
    const nra = spec['nonResourceAttributes'];
    if (isObject(nra)) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${goNonResourceAttributes(nra)}: disallowed on this kind of request`,
        field: 'spec.nonResourceAttributes',
      });
    }
  }
  if (causes.length > 0) throw invalidReview(causes);
  if (local && (r.namespace ?? '') === '')
    throw new ApiError(badRequest('namespace is required on this type: '));
  const decision = r.authorizer.authorize(attributesOf(spec, self ? r.user : subjectOf(spec)));
  return {
    kind,
    apiVersion: API_VERSION,
    metadata: reviewMetadata(body, r, local ? r.namespace : undefined),
    spec: specJson(spec, !self),
    status: statusJson(decision.allowed, decision.reason),
  };
}

/** SelfSubjectAccessReview: may the requesting user do this? */
export function selfSubjectAccessReview(body: KObj, r: VirtualCreateRequest): KObj {
  return accessReview('SelfSubjectAccessReview', body, r);
}

/** SubjectAccessReview: may `spec.user`/`spec.groups` do this? */
export function subjectAccessReview(body: KObj, r: VirtualCreateRequest): KObj {
  return accessReview('SubjectAccessReview', body, r);
}

/** LocalSubjectAccessReview: SubjectAccessReview in the URL's namespace. */
export function localSubjectAccessReview(body: KObj, r: VirtualCreateRequest): KObj {
  return accessReview('LocalSubjectAccessReview', body, r);
}

/**
 * SelfSubjectRulesReview: every rule the requesting user has in `spec.namespace` (400 without
 * one), split into resource and non-resource rules, with the errors met as `evaluationError`.
 * The answer's `spec` is empty, as the real one is.
 */
export function selfSubjectRulesReview(body: KObj, r: VirtualCreateRequest): KObj {
  const spec = isObject(body['spec']) ? body['spec'] : {};
  const namespace = str(spec['namespace']);
  if (namespace === '') throw new ApiError(badRequest('no namespace on request'));
  const set = r.authorizer.rulesFor(r.user, namespace);
  const resourceRules: Json[] = [];
  const nonResourceRules: Json[] = [];
  for (const rule of set.rules) {
    const json = ruleJson(rule);
    if ((rule.resources?.length ?? 0) > 0) {
      const out: Json = { verbs: json['verbs'] };
      if (json['apiGroups'] !== undefined) out['apiGroups'] = json['apiGroups'];
      out['resources'] = json['resources'];
      if (json['resourceNames'] !== undefined) out['resourceNames'] = json['resourceNames'];
      resourceRules.push(out);
    }
    if ((rule.nonResourceURLs?.length ?? 0) > 0)
      nonResourceRules.push({ verbs: json['verbs'], nonResourceURLs: json['nonResourceURLs'] });
  }
  const status: Json = { resourceRules, nonResourceRules, incomplete: set.incomplete };
  if (set.evaluationError !== undefined) status['evaluationError'] = set.evaluationError;
  return {
    kind: 'SelfSubjectRulesReview',
    apiVersion: API_VERSION,
    metadata: { creationTimestamp: null },
    spec: {},
    status,
  };
}
