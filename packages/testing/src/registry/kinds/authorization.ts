/**
 * authorization.k8s.io/v1: the create-only review kinds (SelfSubjectAccessReview,
 * SelfSubjectRulesReview, SubjectAccessReview cluster-wide, LocalSubjectAccessReview namespaced),
 * listed in discovery without a storageVersionHash (nothing is stored) and answered by
 * `authorization-reviews.ts`.
 *
 * @module
 */
import {
  localSubjectAccessReview,
  selfSubjectAccessReview,
  selfSubjectRulesReview,
  subjectAccessReview,
} from './authorization-reviews.js';
import type { KObj } from '../../store/object.js';
import type { ResourceType, VirtualCreateRequest } from '../types.js';
import { builtin } from './builtin.js';

const GROUP = 'authorization.k8s.io';

function reviewType(
  resource: string,
  kind: string,
  namespaced: boolean,
  answer: (body: KObj, r: VirtualCreateRequest) => KObj,
): ResourceType {
  return {
    ...builtin({
      group: GROUP,
      version: 'v1',
      resource,
      kind,
      namespaced,
      verbs: ['create'],
      knownFields: ['spec', 'status'],
      nameRule: 'path-segment',
    }),
    storageVersionHash: '',
    virtualCreate: answer,
  };
}

/**
 * The four review kinds.
 *
 * ## Example
 * ```ts
 * import { Registry } from '../registry.js';
 * const registry = new Registry();
 * for (const t of authorizationKinds()) registry.add(t);
 * ```
 */
export function authorizationKinds(): ResourceType[] {
  return [
    reviewType('localsubjectaccessreviews', 'LocalSubjectAccessReview', true, localSubjectAccessReview),
    reviewType('selfsubjectaccessreviews', 'SelfSubjectAccessReview', false, selfSubjectAccessReview),
    reviewType('selfsubjectrulesreviews', 'SelfSubjectRulesReview', false, selfSubjectRulesReview),
    reviewType('subjectaccessreviews', 'SubjectAccessReview', false, subjectAccessReview),
  ];
}
