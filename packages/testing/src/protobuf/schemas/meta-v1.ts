/**
 * Protobuf messages of meta/v1 (k8s.io/apimachinery): ObjectMeta, ListMeta, Status, DeleteOptions, PartialObjectMetadata: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** meta/v1 (k8s.io/apimachinery): ObjectMeta, ListMeta, Status, DeleteOptions, PartialObjectMetadata. */
export const META_V1: MessageDeclarations = {
  'meta.v1.Condition': `
    type 1 string
    status 2 string
    observedGeneration 3 int64 omitempty
    lastTransitionTime 4 Time
    reason 5 string
    message 6 string`,
  'meta.v1.DeleteOptions': `
    gracePeriodSeconds 1 *int64 omitempty
    preconditions 2 *meta.v1.Preconditions omitempty
    orphanDependents 3 *bool omitempty
    propagationPolicy 4 *string omitempty
    dryRun 5 []string omitempty`,
  'meta.v1.LabelSelector': `
    matchLabels 1 map[string]string omitempty
    matchExpressions 2 []meta.v1.LabelSelectorRequirement omitempty`,
  'meta.v1.LabelSelectorRequirement': `
    key 1 string
    operator 2 string
    values 3 []string omitempty`,
  'meta.v1.ListMeta': `
    selfLink 1 string omitempty
    resourceVersion 2 string omitempty
    continue 3 string omitempty
    remainingItemCount 4 *int64 omitempty`,
  'meta.v1.ManagedFieldsEntry': `
    manager 1 string omitempty
    operation 2 string omitempty
    apiVersion 3 string omitempty
    time 4 *Time omitempty
    fieldsType 6 string omitempty
    fieldsV1 7 *FieldsV1 omitempty
    subresource 8 string omitempty`,
  'meta.v1.ObjectMeta': `
    name 1 string omitempty
    generateName 2 string omitempty
    namespace 3 string omitempty
    selfLink 4 string omitempty
    uid 5 string omitempty
    resourceVersion 6 string omitempty
    generation 7 int64 omitempty
    creationTimestamp 8 Time
    deletionTimestamp 9 *Time omitempty
    deletionGracePeriodSeconds 10 *int64 omitempty
    labels 11 map[string]string omitempty
    annotations 12 map[string]string omitempty
    ownerReferences 13 []meta.v1.OwnerReference omitempty
    finalizers 14 []string omitempty
    clusterName 15 string omitempty
    managedFields 17 []meta.v1.ManagedFieldsEntry omitempty`,
  'meta.v1.OwnerReference': `
    apiVersion 5 string
    kind 1 string
    name 3 string
    uid 4 string
    controller 6 *bool omitempty
    blockOwnerDeletion 7 *bool omitempty`,
  'meta.v1.PartialObjectMetadata': `
    metadata 1 meta.v1.ObjectMeta`,
  'meta.v1.PartialObjectMetadataList': `
    metadata 1 meta.v1.ListMeta
    items 2 []meta.v1.PartialObjectMetadata`,
  'meta.v1.Preconditions': `
    uid 1 *string omitempty
    resourceVersion 2 *string omitempty`,
  'meta.v1.WatchEvent': `
    type 1 string
    object 2 RawExtension`,
  'meta.v1.Status': `
    metadata 1 meta.v1.ListMeta
    status 2 string omitempty
    message 3 string omitempty
    reason 4 string omitempty
    details 5 *meta.v1.StatusDetails omitempty
    code 6 int32 omitempty`,
  'meta.v1.StatusCause': `
    reason 1 string omitempty
    message 2 string omitempty
    field 3 string omitempty`,
  'meta.v1.StatusDetails': `
    name 1 string omitempty
    group 2 string omitempty
    kind 3 string omitempty
    uid 6 string omitempty
    causes 4 []meta.v1.StatusCause omitempty
    retryAfterSeconds 5 int32 omitempty`,
};
