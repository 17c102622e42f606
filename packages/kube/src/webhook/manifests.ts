/**
 * The manifests of what a webhook server registered — ValidatingWebhookConfiguration,
 * MutatingWebhookConfiguration, the Service in front of the operator's pods, and the CRD
 * `spec.conversion` stanza — and the outage lint: a `failurePolicy: Fail` webhook that matches
 * the operator's own pods or `kube-system` deadlocks a cluster when the operator is down (its
 * pods cannot be recreated because creating them needs the webhook), so it is refused.
 *
 * Defaults avoid that: every webhook gets a `namespaceSelector` leaving out `kube-system` and the
 * operator's namespace (by the `kubernetes.io/metadata.name` label every Namespace carries since
 * Kubernetes 1.21). With `matchConditions: true` (Kubernetes 1.28+, where the field is on by
 * default; 1.24 does not know it) requests of kube-system's service accounts and of nodes are
 * left out by CEL conditions too.
 *
 * @module
 */
import type { AdmissionRegistration, ConversionRegistration } from './webhook-server.js';

/** What the manifests are made from: a `WebhookServer`, or the same lists. *
 * ## Example
 * ```ts
 * import { webhookManifests, type WebhookRegistrations } from '@rxkube/kube/webhook';
 * const registrations: WebhookRegistrations = { admissionWebhooks: [], conversionWebhooks: [] };
 * const m = webhookManifests(registrations, { name: 'op', namespace: 'op-system' });
 * ```
 */
export interface WebhookRegistrations {
  readonly admissionWebhooks: readonly AdmissionRegistration[];
  readonly conversionWebhooks: readonly ConversionRegistration[];
  /** The server's port (`WebhookServer.describe()`): the Service's default `targetPort`. */
  readonly listenPort?: number;
  /** Self-managed certificates (`WebhookServer.describe()`): the operator injects the caBundle. */
  readonly certificates?: object;
}

/**
 * Options of {@link webhookManifests}.
 *
 * ## Example
 * ```ts
 * import type { WebhookManifestOptions } from '@rxkube/kube/webhook';
 * const options: WebhookManifestOptions = { name: 'widget-operator', namespace: 'widget-system' };
 * ```
 */
export interface WebhookManifestOptions {
  /** The operator's name: configuration names, the Service name (`<name>-webhook`), pod labels. */
  readonly name: string;
  /** The operator's namespace (where its pods and the Service are). */
  readonly namespace: string;
  /** Labels selecting the operator's pods (default `app.kubernetes.io/name: <name>`). */
  readonly podLabels?: Readonly<Record<string, string>>;
  /** The webhook server's port in the pod (default the registrations' `listenPort`, else 9443). */
  readonly targetPort?: number;
  /**
   * The CA bundle (base64 PEM); absent: injected by the operator when its certificates are
   * self-managed (`registrations.certificates`), else left for cert-manager's CA injector
   * (annotation added).
   */
  readonly caBundle?: string;
  /** cert-manager Certificate `<namespace>/<name>` whose CA is injected (default `<namespace>/<name>-webhook`). */
  readonly certificate?: string;
  /** `failurePolicy` (default `Fail`). */
  readonly failurePolicy?: 'Fail' | 'Ignore';
  /** `timeoutSeconds` (default: the handler's deadline rounded up, plus one second, at most 30). */
  readonly timeoutSeconds?: number;
  /** Plural resource names by kind when the simple plural is wrong (`{ Proxy: 'proxies' }`). */
  readonly plurals?: Readonly<Record<string, string>>;
  /**
   * Add `matchConditions` leaving out requests of kube-system's service accounts and of nodes
   * (default false: the field is Kubernetes 1.28+; 1.24 rejects or drops it).
   */
  readonly matchConditions?: boolean;
}

/** The generated manifests. *
 * ## Example
 * ```ts
 * import type { WebhookManifests } from '@rxkube/kube/webhook';
 * declare const m: WebhookManifests;
 * const documents = [m.service, m.validating, m.mutating].filter((d) => d !== undefined);
 * ```
 */
export interface WebhookManifests {
  readonly service: Record<string, unknown>;
  readonly validating: Record<string, unknown> | undefined;
  readonly mutating: Record<string, unknown> | undefined;
  /** `spec.conversion` per CRD name (`widgets.example.com`), to merge into the CRDs. */
  readonly crdConversions: Readonly<Record<string, Record<string, unknown>>>;
}

const NAME_LABEL = 'kubernetes.io/metadata.name';
/** What `matchConditions: true` adds (CEL on the AdmissionRequest, Kubernetes 1.28+). */
const MATCH_CONDITIONS = [
  {
    name: 'not-kube-system-service-accounts',
    expression: "!request.userInfo.username.startsWith('system:serviceaccount:kube-system:')",
  },
  { name: 'not-nodes', expression: "!('system:nodes' in request.userInfo.groups)" },
];

/**
 * The manifests for what `registrations` registered.
 *
 * ## Example
 * ```ts
 * import { WebhookServer, webhookManifests, allowed } from '@rxkube/kube/webhook';
 * const server = new WebhookServer({ tls: { certFile: '/certs/tls.crt', keyFile: '/certs/tls.key' } })
 *   .validate({ apiVersion: 'example.com/v1', kind: 'Widget' }, () => allowed());
 * const m = webhookManifests(server, { name: 'widget-operator', namespace: 'widget-system' });
 * // m.validating, m.service → kubectl apply
 * ```
 */
export function webhookManifests(
  registrations: WebhookRegistrations,
  options: WebhookManifestOptions,
): WebhookManifests {
  const serviceName = `${options.name}-webhook`;
  const port = registrations.listenPort;
  const targetPort = options.targetPort ?? (port !== undefined && port !== 0 ? port : 9443);
  const podLabels = options.podLabels ?? { 'app.kubernetes.io/name': options.name };
  const certificate = options.certificate ?? `${options.namespace}/${serviceName}`;
  const annotations =
    options.caBundle === undefined && registrations.certificates === undefined
      ? { 'cert-manager.io/inject-ca-from': certificate }
      : undefined;
  const clientConfig = (path: string): Record<string, unknown> => ({
    service: { namespace: options.namespace, name: serviceName, path, port: 443 },
    ...(options.caBundle !== undefined ? { caBundle: options.caBundle } : {}),
  });
  const webhook = (r: AdmissionRegistration): Record<string, unknown> => {
    const [group, version] = splitApiVersion(r.resource.apiVersion);
    const kind = r.resource.kind;
    return {
      name: `${r.type === 'validating' ? 'v' : 'm'}${kind.toLowerCase()}.${group === '' ? 'core' : group}`,
      clientConfig: clientConfig(r.path),
      rules: [
        {
          operations: ['CREATE', 'UPDATE'],
          apiGroups: [group],
          apiVersions: [version],
          resources: [options.plurals?.[kind] ?? plural(kind)],
        },
      ],
      failurePolicy: options.failurePolicy ?? 'Fail',
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      timeoutSeconds: options.timeoutSeconds ?? Math.min(30, Math.ceil(r.timeoutMs / 1000) + 1),
      namespaceSelector: {
        matchExpressions: [
          { key: NAME_LABEL, operator: 'NotIn', values: ['kube-system', options.namespace] },
        ],
      },
      ...(options.matchConditions === true ? { matchConditions: MATCH_CONDITIONS } : {}),
    };
  };
  const config = (kind: string, type: 'validating' | 'mutating'): Record<string, unknown> | undefined => {
    const hooks = registrations.admissionWebhooks.filter((r) => r.type === type).map(webhook);
    if (hooks.length === 0) return undefined;
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind,
      metadata: { name: options.name, ...(annotations !== undefined ? { annotations } : {}) },
      webhooks: hooks,
    };
  };
  const crdConversions: Record<string, Record<string, unknown>> = {};
  for (const c of registrations.conversionWebhooks) {
    crdConversions[`${options.plurals?.[c.kind] ?? plural(c.kind)}.${c.group}`] = {
      strategy: 'Webhook',
      webhook: { conversionReviewVersions: ['v1'], clientConfig: clientConfig(c.path) },
    };
  }
  return {
    service: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: serviceName, namespace: options.namespace },
      spec: { selector: podLabels, ports: [{ name: 'webhook', port: 443, targetPort, protocol: 'TCP' }] },
    },
    validating: config('ValidatingWebhookConfiguration', 'validating'),
    mutating: config('MutatingWebhookConfiguration', 'mutating'),
    crdConversions,
  };
}

/**
 * One finding of {@link lintWebhookConfigurations}.
 *
 * ## Example
 * ```ts
 * import type { WebhookLintFinding } from '@rxkube/kube/webhook';
 * const f: WebhookLintFinding = { configuration: 'x', webhook: 'w', message: 'matches pods in kube-system' };
 * ```
 */
export interface WebhookLintFinding {
  readonly configuration: string;
  readonly webhook: string;
  readonly message: string;
}

/**
 * The outage lint: every `failurePolicy: Fail` webhook (the default) of the given
 * configurations whose rules and `namespaceSelector` would match pods in the operator's namespace
 * (its own pods: when it is down they cannot be recreated) or anything in `kube-system`.
 * Empty when the configurations are safe.
 *
 * ## Example
 * ```ts
 * import { lintWebhookConfigurations, webhookManifests } from '@rxkube/kube/webhook';
 * import type { WebhookServer } from '@rxkube/kube/webhook';
 * declare const server: WebhookServer;
 * const m = webhookManifests(server, { name: 'op', namespace: 'op-system' });
 * const findings = lintWebhookConfigurations([m.validating, m.mutating], { namespace: 'op-system' });
 * if (findings.length > 0) throw new Error(findings.map((f) => f.message).join('\n'));
 * ```
 */
export function lintWebhookConfigurations(
  configurations: readonly (Record<string, unknown> | undefined)[],
  options: { readonly namespace: string },
): WebhookLintFinding[] {
  const findings: WebhookLintFinding[] = [];
  for (const config of configurations) {
    if (config === undefined) continue;
    const name = text((config['metadata'] as { name?: unknown } | undefined)?.name);
    const hooks = Array.isArray(config['webhooks']) ? (config['webhooks'] as Record<string, unknown>[]) : [];
    for (const hook of hooks) {
      if ((hook['failurePolicy'] ?? 'Fail') !== 'Fail') continue;
      const rules = Array.isArray(hook['rules']) ? (hook['rules'] as Record<string, unknown>[]) : [];
      const selector = (hook['namespaceSelector'] ?? {}) as Record<string, unknown>;
      const reaches = (ns: string): boolean => selectorMatches(selector, { [NAME_LABEL]: ns });
      const webhook = text(hook['name']);
      const say = (what: string): void => {
        findings.push({
          configuration: name,
          webhook,
          message: `${config['kind'] as string} ${name}, webhook ${webhook}: failurePolicy Fail and ${what} — when the operator is down nothing there can be created; add a namespaceSelector leaving it out (key ${NAME_LABEL}, NotIn) or use failurePolicy Ignore`,
        });
      };
      if (reaches(options.namespace) && rules.some((r) => matchesPods(r))) {
        say(`its rules match pods in the operator's namespace ${options.namespace}`);
      }
      if (reaches('kube-system') && rules.some((r) => namespacedRule(r))) {
        say('its rules match objects in kube-system');
      }
    }
  }
  return findings;
}

/** A string field, '' when it is not a string. */
function text(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function list(rule: Record<string, unknown>, field: string): string[] {
  const v = rule[field];
  return Array.isArray(v) ? v.map(String) : [];
}

function matchesPods(rule: Record<string, unknown>): boolean {
  const groups = list(rule, 'apiGroups');
  const resources = list(rule, 'resources');
  const ops = list(rule, 'operations');
  return (
    (groups.includes('') || groups.includes('*')) &&
    (resources.includes('pods') || resources.includes('*') || resources.includes('*/*')) &&
    (ops.includes('CREATE') || ops.includes('*')) &&
    (rule['scope'] ?? '*') !== 'Cluster'
  );
}

function namespacedRule(rule: Record<string, unknown>): boolean {
  return (rule['scope'] ?? '*') !== 'Cluster' && list(rule, 'resources').length > 0;
}

/** A metav1.LabelSelector against labels (matchLabels and matchExpressions). */
function selectorMatches(
  selector: Record<string, unknown>,
  labels: Readonly<Record<string, string>>,
): boolean {
  const matchLabels = (selector['matchLabels'] ?? {}) as Record<string, string>;
  for (const [k, v] of Object.entries(matchLabels)) if (labels[k] !== v) return false;
  const expressions = Array.isArray(selector['matchExpressions'])
    ? (selector['matchExpressions'] as Record<string, unknown>[])
    : [];
  return expressions.every((e) => {
    const key = String(e['key']);
    const values = Array.isArray(e['values']) ? e['values'].map(String) : [];
    const value = labels[key];
    switch (e['operator']) {
      case 'In':
        return value !== undefined && values.includes(value);
      case 'NotIn':
        return value === undefined || !values.includes(value);
      case 'Exists':
        return value !== undefined;
      case 'DoesNotExist':
        return value === undefined;
      default:
        return false;
    }
  });
}

/** The simple English plural kubebuilder uses for resource names. */
function plural(kind: string): string {
  const k = kind.toLowerCase();
  if (/(s|x|z|ch|sh)$/.test(k)) return `${k}es`;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

function splitApiVersion(apiVersion: string): [string, string] {
  const i = apiVersion.lastIndexOf('/');
  return i < 0 ? ['', apiVersion] : [apiVersion.slice(0, i), apiVersion.slice(i + 1)];
}
