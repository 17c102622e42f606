/**
 * Protobuf messages of authorization.k8s.io/v1 SelfSubjectAccessReview, SelfSubjectRulesReview,
 * SubjectAccessReview and LocalSubjectAccessReview (what `kubectl auth can-i` sends as protobuf):
 * JSON names, field numbers and Go types of Kubernetes 1.24's API (the syntax is in
 * `../declarations.ts`). `SubjectAccessReviewSpec.extra` (a map of `ExtraValue`, a JSON list but a
 * message in protobuf) is not declared: a protobuf request's extras are dropped.
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** authorization.k8s.io/v1 reviews. */
export const AUTHORIZATION_V1: MessageDeclarations = {
  'authorization.v1.LocalSubjectAccessReview': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 authorization.v1.SubjectAccessReviewSpec
    status 3 authorization.v1.SubjectAccessReviewStatus`,
  'authorization.v1.NonResourceAttributes': `
    path 1 string omitempty
    verb 2 string omitempty`,
  'authorization.v1.NonResourceRule': `
    verbs 1 []string
    nonResourceURLs 2 []string omitempty`,
  'authorization.v1.ResourceAttributes': `
    namespace 1 string omitempty
    verb 2 string omitempty
    group 3 string omitempty
    version 4 string omitempty
    resource 5 string omitempty
    subresource 6 string omitempty
    name 7 string omitempty`,
  'authorization.v1.ResourceRule': `
    verbs 1 []string
    apiGroups 2 []string omitempty
    resources 3 []string omitempty
    resourceNames 4 []string omitempty`,
  'authorization.v1.SelfSubjectAccessReview': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 authorization.v1.SelfSubjectAccessReviewSpec
    status 3 authorization.v1.SubjectAccessReviewStatus`,
  'authorization.v1.SelfSubjectAccessReviewSpec': `
    resourceAttributes 1 *authorization.v1.ResourceAttributes omitempty
    nonResourceAttributes 2 *authorization.v1.NonResourceAttributes omitempty`,
  'authorization.v1.SelfSubjectRulesReview': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 authorization.v1.SelfSubjectRulesReviewSpec
    status 3 authorization.v1.SubjectRulesReviewStatus`,
  'authorization.v1.SelfSubjectRulesReviewSpec': `
    namespace 1 string omitempty`,
  'authorization.v1.SubjectAccessReview': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 authorization.v1.SubjectAccessReviewSpec
    status 3 authorization.v1.SubjectAccessReviewStatus`,
  'authorization.v1.SubjectAccessReviewSpec': `
    resourceAttributes 1 *authorization.v1.ResourceAttributes omitempty
    nonResourceAttributes 2 *authorization.v1.NonResourceAttributes omitempty
    user 3 string omitempty
    groups 4 []string omitempty
    uid 6 string omitempty`,
  'authorization.v1.SubjectAccessReviewStatus': `
    allowed 1 bool
    denied 4 bool omitempty
    reason 2 string omitempty
    evaluationError 3 string omitempty`,
  'authorization.v1.SubjectRulesReviewStatus': `
    resourceRules 1 []authorization.v1.ResourceRule
    nonResourceRules 2 []authorization.v1.NonResourceRule
    incomplete 3 bool
    evaluationError 4 string omitempty`,
};
