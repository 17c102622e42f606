/**
 * Protobuf messages of networking.k8s.io/v1 Ingress, NetworkPolicy: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** networking.k8s.io/v1 Ingress, NetworkPolicy. */
export const NETWORKING_V1: MessageDeclarations = {
  'networking.v1.HTTPIngressPath': `
    path 1 string omitempty
    pathType 3 *string
    backend 2 networking.v1.IngressBackend`,
  'networking.v1.HTTPIngressRuleValue': `
    paths 1 []networking.v1.HTTPIngressPath`,
  'networking.v1.IPBlock': `
    cidr 1 string
    except 2 []string omitempty`,
  'networking.v1.Ingress': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 networking.v1.IngressSpec
    status 3 networking.v1.IngressStatus`,
  'networking.v1.IngressBackend': `
    service 4 *networking.v1.IngressServiceBackend omitempty
    resource 3 *core.v1.TypedLocalObjectReference omitempty`,
  'networking.v1.IngressList': `
    metadata 1 meta.v1.ListMeta
    items 2 []networking.v1.Ingress`,
  'networking.v1.IngressRule': `
    host 1 string omitempty
    ...ingressRuleValue 2 networking.v1.IngressRuleValue`,
  'networking.v1.IngressRuleValue': `
    http 1 *networking.v1.HTTPIngressRuleValue omitempty`,
  'networking.v1.IngressServiceBackend': `
    name 1 string
    port 2 networking.v1.ServiceBackendPort`,
  'networking.v1.IngressSpec': `
    ingressClassName 4 *string omitempty
    defaultBackend 1 *networking.v1.IngressBackend omitempty
    tls 2 []networking.v1.IngressTLS omitempty
    rules 3 []networking.v1.IngressRule omitempty`,
  'networking.v1.IngressStatus': `
    loadBalancer 1 core.v1.LoadBalancerStatus`,
  'networking.v1.IngressTLS': `
    hosts 1 []string omitempty
    secretName 2 string omitempty`,
  'networking.v1.NetworkPolicy': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 networking.v1.NetworkPolicySpec
    status 3 networking.v1.NetworkPolicyStatus`,
  'networking.v1.NetworkPolicyEgressRule': `
    ports 1 []networking.v1.NetworkPolicyPort omitempty
    to 2 []networking.v1.NetworkPolicyPeer omitempty`,
  'networking.v1.NetworkPolicyIngressRule': `
    ports 1 []networking.v1.NetworkPolicyPort omitempty
    from 2 []networking.v1.NetworkPolicyPeer omitempty`,
  'networking.v1.NetworkPolicyList': `
    metadata 1 meta.v1.ListMeta
    items 2 []networking.v1.NetworkPolicy`,
  'networking.v1.NetworkPolicyPeer': `
    podSelector 1 *meta.v1.LabelSelector omitempty
    namespaceSelector 2 *meta.v1.LabelSelector omitempty
    ipBlock 3 *networking.v1.IPBlock omitempty`,
  'networking.v1.NetworkPolicyPort': `
    protocol 1 *string omitempty
    port 2 *IntOrString omitempty
    endPort 3 *int32 omitempty`,
  'networking.v1.NetworkPolicySpec': `
    podSelector 1 meta.v1.LabelSelector
    ingress 2 []networking.v1.NetworkPolicyIngressRule omitempty
    egress 3 []networking.v1.NetworkPolicyEgressRule omitempty
    policyTypes 4 []string omitempty`,
  'networking.v1.NetworkPolicyStatus': `
    conditions 1 []meta.v1.Condition omitempty`,
  'networking.v1.ServiceBackendPort': `
    name 1 string omitempty
    number 2 int32 omitempty`,
};
