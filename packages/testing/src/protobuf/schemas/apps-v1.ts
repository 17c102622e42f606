/**
 * Protobuf messages of apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet. */
export const APPS_V1: MessageDeclarations = {
  'apps.v1.DaemonSet': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 apps.v1.DaemonSetSpec
    status 3 apps.v1.DaemonSetStatus`,
  'apps.v1.DaemonSetCondition': `
    type 1 string
    status 2 string
    lastTransitionTime 3 Time
    reason 4 string omitempty
    message 5 string omitempty`,
  'apps.v1.DaemonSetList': `
    metadata 1 meta.v1.ListMeta
    items 2 []apps.v1.DaemonSet`,
  'apps.v1.DaemonSetSpec': `
    selector 1 *meta.v1.LabelSelector
    template 2 core.v1.PodTemplateSpec
    updateStrategy 3 apps.v1.DaemonSetUpdateStrategy
    minReadySeconds 4 int32 omitempty
    revisionHistoryLimit 6 *int32 omitempty`,
  'apps.v1.DaemonSetStatus': `
    currentNumberScheduled 1 int32
    numberMisscheduled 2 int32
    desiredNumberScheduled 3 int32
    numberReady 4 int32
    observedGeneration 5 int64 omitempty
    updatedNumberScheduled 6 int32 omitempty
    numberAvailable 7 int32 omitempty
    numberUnavailable 8 int32 omitempty
    collisionCount 9 *int32 omitempty
    conditions 10 []apps.v1.DaemonSetCondition omitempty`,
  'apps.v1.DaemonSetUpdateStrategy': `
    type 1 string omitempty
    rollingUpdate 2 *apps.v1.RollingUpdateDaemonSet omitempty`,
  'apps.v1.Deployment': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 apps.v1.DeploymentSpec
    status 3 apps.v1.DeploymentStatus`,
  'apps.v1.DeploymentCondition': `
    type 1 string
    status 2 string
    lastUpdateTime 6 Time
    lastTransitionTime 7 Time
    reason 4 string omitempty
    message 5 string omitempty`,
  'apps.v1.DeploymentList': `
    metadata 1 meta.v1.ListMeta
    items 2 []apps.v1.Deployment`,
  'apps.v1.DeploymentSpec': `
    replicas 1 *int32 omitempty
    selector 2 *meta.v1.LabelSelector
    template 3 core.v1.PodTemplateSpec
    strategy 4 apps.v1.DeploymentStrategy
    minReadySeconds 5 int32 omitempty
    revisionHistoryLimit 6 *int32 omitempty
    paused 7 bool omitempty
    progressDeadlineSeconds 9 *int32 omitempty`,
  'apps.v1.DeploymentStatus': `
    observedGeneration 1 int64 omitempty
    replicas 2 int32 omitempty
    updatedReplicas 3 int32 omitempty
    readyReplicas 7 int32 omitempty
    availableReplicas 4 int32 omitempty
    unavailableReplicas 5 int32 omitempty
    conditions 6 []apps.v1.DeploymentCondition omitempty
    collisionCount 8 *int32 omitempty`,
  'apps.v1.DeploymentStrategy': `
    type 1 string omitempty
    rollingUpdate 2 *apps.v1.RollingUpdateDeployment omitempty`,
  'apps.v1.ReplicaSet': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 apps.v1.ReplicaSetSpec
    status 3 apps.v1.ReplicaSetStatus`,
  'apps.v1.ReplicaSetCondition': `
    type 1 string
    status 2 string
    lastTransitionTime 3 Time
    reason 4 string omitempty
    message 5 string omitempty`,
  'apps.v1.ReplicaSetList': `
    metadata 1 meta.v1.ListMeta
    items 2 []apps.v1.ReplicaSet`,
  'apps.v1.ReplicaSetSpec': `
    replicas 1 *int32 omitempty
    minReadySeconds 4 int32 omitempty
    selector 2 *meta.v1.LabelSelector
    template 3 core.v1.PodTemplateSpec`,
  'apps.v1.ReplicaSetStatus': `
    replicas 1 int32
    fullyLabeledReplicas 2 int32 omitempty
    readyReplicas 4 int32 omitempty
    availableReplicas 5 int32 omitempty
    observedGeneration 3 int64 omitempty
    conditions 6 []apps.v1.ReplicaSetCondition omitempty`,
  'apps.v1.RollingUpdateDaemonSet': `
    maxUnavailable 1 *IntOrString omitempty
    maxSurge 2 *IntOrString omitempty`,
  'apps.v1.RollingUpdateDeployment': `
    maxUnavailable 1 *IntOrString omitempty
    maxSurge 2 *IntOrString omitempty`,
  'apps.v1.RollingUpdateStatefulSetStrategy': `
    partition 1 *int32 omitempty
    maxUnavailable 2 *IntOrString omitempty`,
  'apps.v1.StatefulSet': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 apps.v1.StatefulSetSpec
    status 3 apps.v1.StatefulSetStatus`,
  'apps.v1.StatefulSetCondition': `
    type 1 string
    status 2 string
    lastTransitionTime 3 Time
    reason 4 string omitempty
    message 5 string omitempty`,
  'apps.v1.StatefulSetList': `
    metadata 1 meta.v1.ListMeta
    items 2 []apps.v1.StatefulSet`,
  'apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy': `
    whenDeleted 1 string omitempty
    whenScaled 2 string omitempty`,
  'apps.v1.StatefulSetSpec': `
    replicas 1 *int32 omitempty
    selector 2 *meta.v1.LabelSelector
    template 3 core.v1.PodTemplateSpec
    volumeClaimTemplates 4 []core.v1.PersistentVolumeClaim omitempty
    serviceName 5 string
    podManagementPolicy 6 string omitempty
    updateStrategy 7 apps.v1.StatefulSetUpdateStrategy
    revisionHistoryLimit 8 *int32 omitempty
    minReadySeconds 9 int32 omitempty
    persistentVolumeClaimRetentionPolicy 10 *apps.v1.StatefulSetPersistentVolumeClaimRetentionPolicy omitempty`,
  'apps.v1.StatefulSetStatus': `
    observedGeneration 1 int64 omitempty
    replicas 2 int32
    readyReplicas 3 int32 omitempty
    currentReplicas 4 int32 omitempty
    updatedReplicas 5 int32 omitempty
    currentRevision 6 string omitempty
    updateRevision 7 string omitempty
    collisionCount 9 *int32 omitempty
    conditions 10 []apps.v1.StatefulSetCondition omitempty
    availableReplicas 11 int32`,
  'apps.v1.StatefulSetUpdateStrategy': `
    type 1 string omitempty
    rollingUpdate 2 *apps.v1.RollingUpdateStatefulSetStrategy omitempty`,
};
