/**
 * The CopyratorRule kind and its names: group, type, labels and annotations copyrator writes, the
 * rule's spec and status, and the objects it copies.
 *
 * @module
 */
import type { Condition, KubeObject, Resource } from '@rxkube/kube';

/** The API group of the rule. */
export const COPYRATOR_GROUP = 'copyrator.rxkube.io';
/** The rule's resource type (cluster-scoped). */
export const RULE_TYPE = { apiVersion: 'copyrator.rxkube.io/v1', kind: 'CopyratorRule' } as const;
/** Every copy carries this label; its value is the rule's name. */
export const RULE_LABEL = 'copyrator.rxkube.io/rule';
/**
 * Every copy carries this annotation: `<namespace>/<name>` of its source. An annotation, not a
 * label, because label values cannot contain `/`.
 */
export const SOURCE_ANNOTATION = 'copyrator.rxkube.io/source';
/** The server-side apply field manager of the copies. */
export const FIELD_MANAGER = 'copyrator';
/** The rule's finalizer: its copies are deleted before the rule goes away. */
export const FINALIZER = 'copyrator.rxkube.io/cleanup';
/** ConfigMaps: copied by `ruleType: configmap` rules. */
export const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
/** Secrets: copied by `ruleType: secret` rules. */
export const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
/** Namespaces: the targets. */
export const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' } as const;
/** Secrets the token controller owns: a copy would be deleted (or rewritten) by it at once. */
export const SERVICE_ACCOUNT_TOKEN = 'kubernetes.io/service-account-token';
/** Label values (the rule's name is one) are at most 63 characters. */
export const MAX_LABEL_VALUE = 63;

/** A `metav1.LabelSelectorRequirement`. */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** A `metav1.LabelSelector`. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** `spec` of a CopyratorRule (see `crd.yaml`). */
export interface CopyratorRuleSpec {
  /** What to copy. */
  ruleType: 'configmap' | 'secret';
  /** Which objects of the source namespace to copy; at least one requirement. */
  selector: LabelSelector;
  /** The namespace copied from. */
  sourceNamespace: string;
  /** The namespaces copied into; default every Active namespace. The source namespace is always skipped. */
  targetNamespaces?: string[];
}

/** `status` of a CopyratorRule. */
export interface CopyratorRuleStatus {
  observedGeneration?: number;
  /** Objects of the source namespace the selector matches. */
  sources?: number;
  /** Copies that exist and are in sync. */
  copies?: number;
  conditions?: Condition[];
}

/**
 * A CopyratorRule.
 *
 * ## Example
 * ```ts
 * const rule: CopyratorRule = {
 *   ...RULE_TYPE,
 *   metadata: { name: 'registry' },
 *   spec: { ruleType: 'secret', sourceNamespace: 'platform', selector: { matchLabels: { copy: 'yes' } } },
 * };
 * ```
 */
export type CopyratorRule = Resource<CopyratorRuleSpec, CopyratorRuleStatus>;

/** A ConfigMap or a Secret as plain JSON (Secret `data` values base64, as on the wire). */
export interface CopyObject extends KubeObject {
  data?: Record<string, string>;
  /** ConfigMap only. */
  binaryData?: Record<string, string>;
  /** Secret only; the server defaults it to `Opaque`. */
  type?: string;
}

/** A Namespace as plain JSON. */
export type Namespace = KubeObject<unknown, { phase?: string }>;
