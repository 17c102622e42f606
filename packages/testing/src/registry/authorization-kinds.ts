/**
 * authorization.k8s.io/v1: the create-only review kinds (SelfSubjectAccessReview,
 * SelfSubjectRulesReview, SubjectAccessReview cluster-wide, LocalSubjectAccessReview namespaced),
 * listed in discovery without a storageVersionHash (nothing is stored) and answered by
 * `../rbac/reviews.ts`.
 *
 * @module
 */
import {
  localSubjectAccessReview,
  selfSubjectAccessReview,
  selfSubjectRulesReview,
  subjectAccessReview,
} from '../rbac/reviews.js';
import type { KObj } from '../store/object.js';
import { typedWireForm } from './builtins.js';
import type { ResourceType, VirtualCreateRequest } from './types.js';

const GROUP = 'authorization.k8s.io';

function reviewType(
  resource: string,
  kind: string,
  namespaced: boolean,
  answer: (body: KObj, r: VirtualCreateRequest) => KObj,
): ResourceType {
  const apiVersion = `${GROUP}/v1`;
  const form = (o: KObj): KObj => typedWireForm(o, apiVersion, kind, ['spec', 'status']);
  return {
    group: GROUP,
    version: 'v1',
    apiVersion,
    resource,
    singularName: '',
    kind,
    listKind: `${kind}List`,
    namespaced,
    shortNames: [],
    categories: [],
    verbs: ['create'],
    hasStatus: false,
    hasGeneration: false,
    builtin: true,
    storageKey: `${GROUP}/${resource}`,
    nameRule: 'path-segment',
    allowCreateOnUpdate: false,
    allowUnconditionalUpdate: true,
    knownFields: ['spec', 'status'],
    selectableFields: [],
    storageVersionHash: '',
    fromStorage: form,
    toStorage: form,
    virtualCreate: answer,
  };
}

/**
 * The four review kinds.
 *
 * ## Example
 * ```ts
 * for (const t of authorizationTypes()) registry.add(t);
 * ```
 */
export function authorizationTypes(): ResourceType[] {
  return [
    reviewType('localsubjectaccessreviews', 'LocalSubjectAccessReview', true, localSubjectAccessReview),
    reviewType('selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, selfSubjectAccessReview),
    reviewType('selfsubjectrulesreviews', 'SelfSubjectRulesReview', false, selfSubjectRulesReview),
    reviewType('subjectaccessreviews', 'SubjectAccessReview', false, subjectAccessReview),
  ];
}
