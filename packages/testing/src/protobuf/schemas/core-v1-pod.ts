/**
 * Protobuf messages of core/v1 Pod, PodSpec and everything a pod template holds except volumes: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** core/v1 Pod, PodSpec and everything a pod template holds except volumes. */
export const CORE_V1_POD: MessageDeclarations = {
  'core.v1.Affinity': `
    nodeAffinity 1 *core.v1.NodeAffinity omitempty
    podAffinity 2 *core.v1.PodAffinity omitempty
    podAntiAffinity 3 *core.v1.PodAntiAffinity omitempty`,
  'core.v1.Capabilities': `
    add 1 []string omitempty
    drop 2 []string omitempty`,
  'core.v1.ConfigMapEnvSource': `
    ...localObjectReference 1 core.v1.LocalObjectReference
    optional 2 *bool omitempty`,
  'core.v1.ConfigMapKeySelector': `
    ...localObjectReference 1 core.v1.LocalObjectReference
    key 2 string
    optional 3 *bool omitempty`,
  'core.v1.Container': `
    name 1 string
    image 2 string omitempty
    command 3 []string omitempty
    args 4 []string omitempty
    workingDir 5 string omitempty
    ports 6 []core.v1.ContainerPort omitempty
    envFrom 19 []core.v1.EnvFromSource omitempty
    env 7 []core.v1.EnvVar omitempty
    resources 8 core.v1.ResourceRequirements
    volumeMounts 9 []core.v1.VolumeMount omitempty
    volumeDevices 21 []core.v1.VolumeDevice omitempty
    livenessProbe 10 *core.v1.Probe omitempty
    readinessProbe 11 *core.v1.Probe omitempty
    startupProbe 22 *core.v1.Probe omitempty
    lifecycle 12 *core.v1.Lifecycle omitempty
    terminationMessagePath 13 string omitempty
    terminationMessagePolicy 20 string omitempty
    imagePullPolicy 14 string omitempty
    securityContext 15 *core.v1.SecurityContext omitempty
    stdin 16 bool omitempty
    stdinOnce 17 bool omitempty
    tty 18 bool omitempty`,
  'core.v1.ContainerPort': `
    name 1 string omitempty
    hostPort 2 int32 omitempty
    containerPort 3 int32
    protocol 4 string omitempty
    hostIP 5 string omitempty`,
  'core.v1.ContainerState': `
    waiting 1 *core.v1.ContainerStateWaiting omitempty
    running 2 *core.v1.ContainerStateRunning omitempty
    terminated 3 *core.v1.ContainerStateTerminated omitempty`,
  'core.v1.ContainerStateRunning': `
    startedAt 1 Time`,
  'core.v1.ContainerStateTerminated': `
    exitCode 1 int32
    signal 2 int32 omitempty
    reason 3 string omitempty
    message 4 string omitempty
    startedAt 5 Time
    finishedAt 6 Time
    containerID 7 string omitempty`,
  'core.v1.ContainerStateWaiting': `
    reason 1 string omitempty
    message 2 string omitempty`,
  'core.v1.ContainerStatus': `
    name 1 string
    state 2 core.v1.ContainerState
    lastState 3 core.v1.ContainerState
    ready 4 bool
    restartCount 5 int32
    image 6 string
    imageID 7 string
    containerID 8 string omitempty
    started 9 *bool omitempty`,
  'core.v1.EnvFromSource': `
    prefix 1 string omitempty
    configMapRef 2 *core.v1.ConfigMapEnvSource omitempty
    secretRef 3 *core.v1.SecretEnvSource omitempty`,
  'core.v1.EnvVar': `
    name 1 string
    value 2 string omitempty
    valueFrom 3 *core.v1.EnvVarSource omitempty`,
  'core.v1.EnvVarSource': `
    fieldRef 1 *core.v1.ObjectFieldSelector omitempty
    resourceFieldRef 2 *core.v1.ResourceFieldSelector omitempty
    configMapKeyRef 3 *core.v1.ConfigMapKeySelector omitempty
    secretKeyRef 4 *core.v1.SecretKeySelector omitempty`,
  'core.v1.EphemeralContainer': `
    ...ephemeralContainerCommon 1 core.v1.EphemeralContainerCommon
    targetContainerName 2 string omitempty`,
  'core.v1.EphemeralContainerCommon': `
    name 1 string
    image 2 string omitempty
    command 3 []string omitempty
    args 4 []string omitempty
    workingDir 5 string omitempty
    ports 6 []core.v1.ContainerPort omitempty
    envFrom 19 []core.v1.EnvFromSource omitempty
    env 7 []core.v1.EnvVar omitempty
    resources 8 core.v1.ResourceRequirements
    volumeMounts 9 []core.v1.VolumeMount omitempty
    volumeDevices 21 []core.v1.VolumeDevice omitempty
    livenessProbe 10 *core.v1.Probe omitempty
    readinessProbe 11 *core.v1.Probe omitempty
    startupProbe 22 *core.v1.Probe omitempty
    lifecycle 12 *core.v1.Lifecycle omitempty
    terminationMessagePath 13 string omitempty
    terminationMessagePolicy 20 string omitempty
    imagePullPolicy 14 string omitempty
    securityContext 15 *core.v1.SecurityContext omitempty
    stdin 16 bool omitempty
    stdinOnce 17 bool omitempty
    tty 18 bool omitempty`,
  'core.v1.ExecAction': `
    command 1 []string omitempty`,
  'core.v1.GRPCAction': `
    port 1 int32
    service 2 *string`,
  'core.v1.HTTPGetAction': `
    path 1 string omitempty
    port 2 IntOrString
    host 3 string omitempty
    scheme 4 string omitempty
    httpHeaders 5 []core.v1.HTTPHeader omitempty`,
  'core.v1.HTTPHeader': `
    name 1 string
    value 2 string`,
  'core.v1.HostAlias': `
    ip 1 string omitempty
    hostnames 2 []string omitempty`,
  'core.v1.Lifecycle': `
    postStart 1 *core.v1.LifecycleHandler omitempty
    preStop 2 *core.v1.LifecycleHandler omitempty`,
  'core.v1.LifecycleHandler': `
    exec 1 *core.v1.ExecAction omitempty
    httpGet 2 *core.v1.HTTPGetAction omitempty
    tcpSocket 3 *core.v1.TCPSocketAction omitempty`,
  'core.v1.LocalObjectReference': `
    name 1 string omitempty`,
  'core.v1.NodeAffinity': `
    requiredDuringSchedulingIgnoredDuringExecution 1 *core.v1.NodeSelector omitempty
    preferredDuringSchedulingIgnoredDuringExecution 2 []core.v1.PreferredSchedulingTerm omitempty`,
  'core.v1.NodeSelector': `
    nodeSelectorTerms 1 []core.v1.NodeSelectorTerm`,
  'core.v1.NodeSelectorRequirement': `
    key 1 string
    operator 2 string
    values 3 []string omitempty`,
  'core.v1.NodeSelectorTerm': `
    matchExpressions 1 []core.v1.NodeSelectorRequirement omitempty
    matchFields 2 []core.v1.NodeSelectorRequirement omitempty`,
  'core.v1.ObjectFieldSelector': `
    apiVersion 1 string omitempty
    fieldPath 2 string`,
  'core.v1.PodAffinity': `
    requiredDuringSchedulingIgnoredDuringExecution 1 []core.v1.PodAffinityTerm omitempty
    preferredDuringSchedulingIgnoredDuringExecution 2 []core.v1.WeightedPodAffinityTerm omitempty`,
  'core.v1.PodAffinityTerm': `
    labelSelector 1 *meta.v1.LabelSelector omitempty
    namespaces 2 []string omitempty
    topologyKey 3 string
    namespaceSelector 4 *meta.v1.LabelSelector omitempty`,
  'core.v1.PodAntiAffinity': `
    requiredDuringSchedulingIgnoredDuringExecution 1 []core.v1.PodAffinityTerm omitempty
    preferredDuringSchedulingIgnoredDuringExecution 2 []core.v1.WeightedPodAffinityTerm omitempty`,
  'core.v1.PodCondition': `
    type 1 string
    status 2 string
    lastProbeTime 3 Time
    lastTransitionTime 4 Time
    reason 5 string omitempty
    message 6 string omitempty`,
  'core.v1.PodDNSConfig': `
    nameservers 1 []string omitempty
    searches 2 []string omitempty
    options 3 []core.v1.PodDNSConfigOption omitempty`,
  'core.v1.PodDNSConfigOption': `
    name 1 string omitempty
    value 2 *string omitempty`,
  'core.v1.PodIP': `
    ip 1 string omitempty`,
  'core.v1.PodOS': `
    name 1 string`,
  'core.v1.PodReadinessGate': `
    conditionType 1 string`,
  'core.v1.PodSecurityContext': `
    seLinuxOptions 1 *core.v1.SELinuxOptions omitempty
    windowsOptions 8 *core.v1.WindowsSecurityContextOptions omitempty
    runAsUser 2 *int64 omitempty
    runAsGroup 6 *int64 omitempty
    runAsNonRoot 3 *bool omitempty
    supplementalGroups 4 []int64 omitempty
    fsGroup 5 *int64 omitempty
    sysctls 7 []core.v1.Sysctl omitempty
    fsGroupChangePolicy 9 *string omitempty
    seccompProfile 10 *core.v1.SeccompProfile omitempty`,
  'core.v1.PodSpec': `
    volumes 1 []core.v1.Volume omitempty
    initContainers 20 []core.v1.Container omitempty
    containers 2 []core.v1.Container
    ephemeralContainers 34 []core.v1.EphemeralContainer omitempty
    restartPolicy 3 string omitempty
    terminationGracePeriodSeconds 4 *int64 omitempty
    activeDeadlineSeconds 5 *int64 omitempty
    dnsPolicy 6 string omitempty
    nodeSelector 7 map[string]string omitempty
    serviceAccountName 8 string omitempty
    serviceAccount 9 string omitempty
    automountServiceAccountToken 21 *bool omitempty
    nodeName 10 string omitempty
    hostNetwork 11 bool omitempty
    hostPID 12 bool omitempty
    hostIPC 13 bool omitempty
    shareProcessNamespace 27 *bool omitempty
    securityContext 14 *core.v1.PodSecurityContext omitempty
    imagePullSecrets 15 []core.v1.LocalObjectReference omitempty
    hostname 16 string omitempty
    subdomain 17 string omitempty
    affinity 18 *core.v1.Affinity omitempty
    schedulerName 19 string omitempty
    tolerations 22 []core.v1.Toleration omitempty
    hostAliases 23 []core.v1.HostAlias omitempty
    priorityClassName 24 string omitempty
    priority 25 *int32 omitempty
    dnsConfig 26 *core.v1.PodDNSConfig omitempty
    readinessGates 28 []core.v1.PodReadinessGate omitempty
    runtimeClassName 29 *string omitempty
    enableServiceLinks 30 *bool omitempty
    preemptionPolicy 31 *string omitempty
    overhead 32 map[string]Quantity omitempty
    topologySpreadConstraints 33 []core.v1.TopologySpreadConstraint omitempty
    setHostnameAsFQDN 35 *bool omitempty
    os 36 *core.v1.PodOS omitempty`,
  'core.v1.PodStatus': `
    phase 1 string omitempty
    conditions 2 []core.v1.PodCondition omitempty
    message 3 string omitempty
    reason 4 string omitempty
    nominatedNodeName 11 string omitempty
    hostIP 5 string omitempty
    podIP 6 string omitempty
    podIPs 12 []core.v1.PodIP omitempty
    startTime 7 *Time omitempty
    initContainerStatuses 10 []core.v1.ContainerStatus omitempty
    containerStatuses 8 []core.v1.ContainerStatus omitempty
    qosClass 9 string omitempty
    ephemeralContainerStatuses 13 []core.v1.ContainerStatus omitempty`,
  'core.v1.PodTemplateSpec': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 core.v1.PodSpec`,
  'core.v1.PreferredSchedulingTerm': `
    weight 1 int32
    preference 2 core.v1.NodeSelectorTerm`,
  'core.v1.Probe': `
    ...probeHandler 1 core.v1.ProbeHandler
    initialDelaySeconds 2 int32 omitempty
    timeoutSeconds 3 int32 omitempty
    periodSeconds 4 int32 omitempty
    successThreshold 5 int32 omitempty
    failureThreshold 6 int32 omitempty
    terminationGracePeriodSeconds 7 *int64 omitempty`,
  'core.v1.ProbeHandler': `
    exec 1 *core.v1.ExecAction omitempty
    httpGet 2 *core.v1.HTTPGetAction omitempty
    tcpSocket 3 *core.v1.TCPSocketAction omitempty
    grpc 4 *core.v1.GRPCAction omitempty`,
  'core.v1.ResourceFieldSelector': `
    containerName 1 string omitempty
    resource 2 string
    divisor 3 Quantity`,
  'core.v1.ResourceRequirements': `
    limits 1 map[string]Quantity omitempty
    requests 2 map[string]Quantity omitempty`,
  'core.v1.SELinuxOptions': `
    user 1 string omitempty
    role 2 string omitempty
    type 3 string omitempty
    level 4 string omitempty`,
  'core.v1.SeccompProfile': `
    type 1 string
    localhostProfile 2 *string omitempty`,
  'core.v1.SecretEnvSource': `
    ...localObjectReference 1 core.v1.LocalObjectReference
    optional 2 *bool omitempty`,
  'core.v1.SecretKeySelector': `
    ...localObjectReference 1 core.v1.LocalObjectReference
    key 2 string
    optional 3 *bool omitempty`,
  'core.v1.SecurityContext': `
    capabilities 1 *core.v1.Capabilities omitempty
    privileged 2 *bool omitempty
    seLinuxOptions 3 *core.v1.SELinuxOptions omitempty
    windowsOptions 10 *core.v1.WindowsSecurityContextOptions omitempty
    runAsUser 4 *int64 omitempty
    runAsGroup 8 *int64 omitempty
    runAsNonRoot 5 *bool omitempty
    readOnlyRootFilesystem 6 *bool omitempty
    allowPrivilegeEscalation 7 *bool omitempty
    procMount 9 *string omitempty
    seccompProfile 11 *core.v1.SeccompProfile omitempty`,
  'core.v1.Sysctl': `
    name 1 string
    value 2 string`,
  'core.v1.TCPSocketAction': `
    port 1 IntOrString
    host 2 string omitempty`,
  'core.v1.Toleration': `
    key 1 string omitempty
    operator 2 string omitempty
    value 3 string omitempty
    effect 4 string omitempty
    tolerationSeconds 5 *int64 omitempty`,
  'core.v1.TopologySpreadConstraint': `
    maxSkew 1 int32
    topologyKey 2 string
    whenUnsatisfiable 3 string
    labelSelector 4 *meta.v1.LabelSelector omitempty
    minDomains 5 *int32 omitempty`,
  'core.v1.VolumeDevice': `
    name 1 string
    devicePath 2 string`,
  'core.v1.VolumeMount': `
    name 1 string
    readOnly 2 bool omitempty
    mountPath 3 string
    subPath 4 string omitempty
    mountPropagation 5 *string omitempty
    subPathExpr 6 string omitempty`,
  'core.v1.WeightedPodAffinityTerm': `
    weight 1 int32
    podAffinityTerm 2 core.v1.PodAffinityTerm`,
  'core.v1.WindowsSecurityContextOptions': `
    gmsaCredentialSpecName 1 *string omitempty
    gmsaCredentialSpec 2 *string omitempty
    runAsUserName 3 *string omitempty
    hostProcess 4 *bool omitempty`,
};
