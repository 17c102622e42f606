/**
 * Protobuf messages of autoscaling/v1 Scale and autoscaling/v2 HorizontalPodAutoscaler: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** autoscaling/v1 Scale and autoscaling/v2 HorizontalPodAutoscaler. */
export const AUTOSCALING: MessageDeclarations = {
  'autoscaling.v1.Scale': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 autoscaling.v1.ScaleSpec
    status 3 autoscaling.v1.ScaleStatus`,
  'autoscaling.v1.ScaleSpec': `
    replicas 1 int32 omitempty`,
  'autoscaling.v1.ScaleStatus': `
    replicas 1 int32
    selector 2 string omitempty`,
  'autoscaling.v2.ContainerResourceMetricSource': `
    name 1 string
    target 2 autoscaling.v2.MetricTarget
    container 3 string`,
  'autoscaling.v2.ContainerResourceMetricStatus': `
    name 1 string
    current 2 autoscaling.v2.MetricValueStatus
    container 3 string`,
  'autoscaling.v2.CrossVersionObjectReference': `
    kind 1 string
    name 2 string
    apiVersion 3 string omitempty`,
  'autoscaling.v2.ExternalMetricSource': `
    metric 1 autoscaling.v2.MetricIdentifier
    target 2 autoscaling.v2.MetricTarget`,
  'autoscaling.v2.ExternalMetricStatus': `
    metric 1 autoscaling.v2.MetricIdentifier
    current 2 autoscaling.v2.MetricValueStatus`,
  'autoscaling.v2.HPAScalingPolicy': `
    type 1 string
    value 2 int32
    periodSeconds 3 int32`,
  'autoscaling.v2.HPAScalingRules': `
    stabilizationWindowSeconds 3 *int32 omitempty
    selectPolicy 1 *string omitempty
    policies 2 []autoscaling.v2.HPAScalingPolicy omitempty`,
  'autoscaling.v2.HorizontalPodAutoscaler': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 autoscaling.v2.HorizontalPodAutoscalerSpec
    status 3 autoscaling.v2.HorizontalPodAutoscalerStatus`,
  'autoscaling.v2.HorizontalPodAutoscalerBehavior': `
    scaleUp 1 *autoscaling.v2.HPAScalingRules omitempty
    scaleDown 2 *autoscaling.v2.HPAScalingRules omitempty`,
  'autoscaling.v2.HorizontalPodAutoscalerCondition': `
    type 1 string
    status 2 string
    lastTransitionTime 3 Time
    reason 4 string omitempty
    message 5 string omitempty`,
  'autoscaling.v2.HorizontalPodAutoscalerList': `
    metadata 1 meta.v1.ListMeta
    items 2 []autoscaling.v2.HorizontalPodAutoscaler`,
  'autoscaling.v2.HorizontalPodAutoscalerSpec': `
    scaleTargetRef 1 autoscaling.v2.CrossVersionObjectReference
    minReplicas 2 *int32 omitempty
    maxReplicas 3 int32
    metrics 4 []autoscaling.v2.MetricSpec omitempty
    behavior 5 *autoscaling.v2.HorizontalPodAutoscalerBehavior omitempty`,
  'autoscaling.v2.HorizontalPodAutoscalerStatus': `
    observedGeneration 1 *int64 omitempty
    lastScaleTime 2 *Time omitempty
    currentReplicas 3 int32 omitempty
    desiredReplicas 4 int32
    currentMetrics 5 []autoscaling.v2.MetricStatus
    conditions 6 []autoscaling.v2.HorizontalPodAutoscalerCondition omitempty`,
  'autoscaling.v2.MetricIdentifier': `
    name 1 string
    selector 2 *meta.v1.LabelSelector omitempty`,
  'autoscaling.v2.MetricSpec': `
    type 1 string
    object 2 *autoscaling.v2.ObjectMetricSource omitempty
    pods 3 *autoscaling.v2.PodsMetricSource omitempty
    resource 4 *autoscaling.v2.ResourceMetricSource omitempty
    containerResource 7 *autoscaling.v2.ContainerResourceMetricSource omitempty
    external 5 *autoscaling.v2.ExternalMetricSource omitempty`,
  'autoscaling.v2.MetricStatus': `
    type 1 string
    object 2 *autoscaling.v2.ObjectMetricStatus omitempty
    pods 3 *autoscaling.v2.PodsMetricStatus omitempty
    resource 4 *autoscaling.v2.ResourceMetricStatus omitempty
    containerResource 7 *autoscaling.v2.ContainerResourceMetricStatus omitempty
    external 5 *autoscaling.v2.ExternalMetricStatus omitempty`,
  'autoscaling.v2.MetricTarget': `
    type 1 string
    value 2 *Quantity omitempty
    averageValue 3 *Quantity omitempty
    averageUtilization 4 *int32 omitempty`,
  'autoscaling.v2.MetricValueStatus': `
    value 1 *Quantity omitempty
    averageValue 2 *Quantity omitempty
    averageUtilization 3 *int32 omitempty`,
  'autoscaling.v2.ObjectMetricSource': `
    describedObject 1 autoscaling.v2.CrossVersionObjectReference
    target 2 autoscaling.v2.MetricTarget
    metric 3 autoscaling.v2.MetricIdentifier`,
  'autoscaling.v2.ObjectMetricStatus': `
    metric 1 autoscaling.v2.MetricIdentifier
    current 2 autoscaling.v2.MetricValueStatus
    describedObject 3 autoscaling.v2.CrossVersionObjectReference`,
  'autoscaling.v2.PodsMetricSource': `
    metric 1 autoscaling.v2.MetricIdentifier
    target 2 autoscaling.v2.MetricTarget`,
  'autoscaling.v2.PodsMetricStatus': `
    metric 1 autoscaling.v2.MetricIdentifier
    current 2 autoscaling.v2.MetricValueStatus`,
  'autoscaling.v2.ResourceMetricSource': `
    name 1 string
    target 2 autoscaling.v2.MetricTarget`,
  'autoscaling.v2.ResourceMetricStatus': `
    name 1 string
    current 2 autoscaling.v2.MetricValueStatus`,
};
