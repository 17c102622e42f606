/**
 * Protobuf messages of core/v1 ConfigMap, Secret, Namespace, ServiceAccount, Service, Endpoints, Event, PersistentVolumeClaim: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** core/v1 ConfigMap, Secret, Namespace, ServiceAccount, Service, Endpoints, Event, PersistentVolumeClaim. */
export const CORE_V1: MessageDeclarations = {
  'core.v1.ClientIPConfig': `
    timeoutSeconds 1 *int32 omitempty`,
  'core.v1.ConfigMap': `
    metadata 1 meta.v1.ObjectMeta
    immutable 4 *bool omitempty
    data 2 map[string]string omitempty
    binaryData 3 map[string]bytes omitempty`,
  'core.v1.ConfigMapList': `
    metadata 1 meta.v1.ListMeta
    items 2 []core.v1.ConfigMap`,
  'core.v1.EndpointAddress': `
    ip 1 string
    hostname 3 string omitempty
    nodeName 4 *string omitempty
    targetRef 2 *core.v1.ObjectReference omitempty`,
  'core.v1.EndpointPort': `
    name 1 string omitempty
    port 2 int32
    protocol 3 string omitempty
    appProtocol 4 *string omitempty`,
  'core.v1.EndpointSubset': `
    addresses 1 []core.v1.EndpointAddress omitempty
    notReadyAddresses 2 []core.v1.EndpointAddress omitempty
    ports 3 []core.v1.EndpointPort omitempty`,
  'core.v1.Endpoints': `
    metadata 1 meta.v1.ObjectMeta
    subsets 2 []core.v1.EndpointSubset omitempty`,
  'core.v1.EndpointsList': `
    metadata 1 meta.v1.ListMeta
    items 2 []core.v1.Endpoints`,
  'core.v1.Event': `
    metadata 1 meta.v1.ObjectMeta
    involvedObject 2 core.v1.ObjectReference
    reason 3 string omitempty
    message 4 string omitempty
    source 5 core.v1.EventSource
    firstTimestamp 6 Time
    lastTimestamp 7 Time
    count 8 int32 omitempty
    type 9 string omitempty
    eventTime 10 MicroTime
    series 11 *core.v1.EventSeries omitempty
    action 12 string omitempty
    related 13 *core.v1.ObjectReference omitempty
    reportingComponent 14 string
    reportingInstance 15 string`,
  'core.v1.EventList': `
    metadata 1 meta.v1.ListMeta
    items 2 []core.v1.Event`,
  'core.v1.EventSeries': `
    count 1 int32 omitempty
    lastObservedTime 2 MicroTime`,
  'core.v1.EventSource': `
    component 1 string omitempty
    host 2 string omitempty`,
  'core.v1.KeyToPath': `
    key 1 string
    path 2 string
    mode 3 *int32 omitempty`,
  'core.v1.LoadBalancerIngress': `
    ip 1 string omitempty
    hostname 2 string omitempty
    ports 4 []core.v1.PortStatus omitempty`,
  'core.v1.LoadBalancerStatus': `
    ingress 1 []core.v1.LoadBalancerIngress omitempty`,
  'core.v1.Namespace': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 core.v1.NamespaceSpec
    status 3 core.v1.NamespaceStatus`,
  'core.v1.NamespaceCondition': `
    type 1 string
    status 2 string
    lastTransitionTime 4 Time
    reason 5 string omitempty
    message 6 string omitempty`,
  'core.v1.NamespaceList': `
    metadata 1 meta.v1.ListMeta
    items 2 []core.v1.Namespace`,
  'core.v1.NamespaceSpec': `
    finalizers 1 []string omitempty`,
  'core.v1.NamespaceStatus': `
    phase 1 string omitempty
    conditions 2 []core.v1.NamespaceCondition omitempty`,
  'core.v1.ObjectReference': `
    kind 1 string omitempty
    namespace 2 string omitempty
    name 3 string omitempty
    uid 4 string omitempty
    apiVersion 5 string omitempty
    resourceVersion 6 string omitempty
    fieldPath 7 string omitempty`,
  'core.v1.PersistentVolumeClaim': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 core.v1.PersistentVolumeClaimSpec
    status 3 core.v1.PersistentVolumeClaimStatus`,
  'core.v1.PersistentVolumeClaimCondition': `
    type 1 string
    status 2 string
    lastProbeTime 3 Time
    lastTransitionTime 4 Time
    reason 5 string omitempty
    message 6 string omitempty`,
  'core.v1.PersistentVolumeClaimList': `
    metadata 1 meta.v1.ListMeta
    items 2 []core.v1.PersistentVolumeClaim`,
  'core.v1.PersistentVolumeClaimStatus': `
    phase 1 string omitempty
    accessModes 2 []string omitempty
    capacity 3 map[string]Quantity omitempty
    conditions 4 []core.v1.PersistentVolumeClaimCondition omitempty
    allocatedResources 5 map[string]Quantity omitempty
    resizeStatus 6 *string omitempty`,
  'core.v1.Pod': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 core.v1.PodSpec
    status 3 core.v1.PodStatus`,
  'core.v1.PodList': `
    metadata 1 meta.v1.ListMeta
    items 2 []core.v1.Pod`,
  'core.v1.PortStatus': `
    port 1 int32
    protocol 2 string
    error 3 *string omitempty`,
  'core.v1.Secret': `
    metadata 1 meta.v1.ObjectMeta
    immutable 5 *bool omitempty
    data 2 map[string]bytes omitempty
    stringData 4 map[string]string omitempty
    type 3 string omitempty`,
  'core.v1.SecretList': `
    metadata 1 meta.v1.ListMeta
    items 2 []core.v1.Secret`,
  'core.v1.Service': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 core.v1.ServiceSpec
    status 3 core.v1.ServiceStatus`,
  'core.v1.ServiceAccount': `
    metadata 1 meta.v1.ObjectMeta
    secrets 2 []core.v1.ObjectReference omitempty
    imagePullSecrets 3 []core.v1.LocalObjectReference omitempty
    automountServiceAccountToken 4 *bool omitempty`,
  'core.v1.ServiceAccountList': `
    metadata 1 meta.v1.ListMeta
    items 2 []core.v1.ServiceAccount`,
  'core.v1.ServiceList': `
    metadata 1 meta.v1.ListMeta
    items 2 []core.v1.Service`,
  'core.v1.ServicePort': `
    name 1 string omitempty
    protocol 2 string omitempty
    appProtocol 6 *string omitempty
    port 3 int32
    targetPort 4 IntOrString
    nodePort 5 int32 omitempty`,
  'core.v1.ServiceSpec': `
    ports 1 []core.v1.ServicePort omitempty
    selector 2 map[string]string omitempty
    clusterIP 3 string omitempty
    clusterIPs 18 []string omitempty
    type 4 string omitempty
    externalIPs 5 []string omitempty
    sessionAffinity 7 string omitempty
    loadBalancerIP 8 string omitempty
    loadBalancerSourceRanges 9 []string omitempty
    externalName 10 string omitempty
    externalTrafficPolicy 11 string omitempty
    healthCheckNodePort 12 int32 omitempty
    publishNotReadyAddresses 13 bool omitempty
    sessionAffinityConfig 14 *core.v1.SessionAffinityConfig omitempty
    ipFamilies 19 []string omitempty
    ipFamilyPolicy 17 *string omitempty
    allocateLoadBalancerNodePorts 20 *bool omitempty
    loadBalancerClass 21 *string omitempty
    internalTrafficPolicy 22 *string omitempty`,
  'core.v1.ServiceStatus': `
    loadBalancer 1 core.v1.LoadBalancerStatus
    conditions 2 []meta.v1.Condition omitempty`,
  'core.v1.SessionAffinityConfig': `
    clientIP 1 *core.v1.ClientIPConfig omitempty`,
  'core.v1.TypedLocalObjectReference': `
    apiGroup 1 *string
    kind 2 string
    name 3 string`,
};
