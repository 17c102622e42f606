/**
 * `rxkube rbac`'s webhook part: for what the module registered with `mgr.webhooks(…)`, the
 * Service, the ValidatingWebhookConfiguration and MutatingWebhookConfiguration, and the CRD
 * `spec.conversion` stanzas (as partial CRDs for `kubectl apply --server-side`), with plurals
 * from discovery — refused by the outage lint when a `failurePolicy: Fail` webhook would match
 * the operator's own pods or `kube-system`.
 *
 * @module
 */
import type { ResourceType } from '@rxkube/kube';
import type { WebhookDescription } from '@rxkube/kube/webhook';
import { lintWebhookConfigurations, webhookManifests } from '@rxkube/kube/webhook';

import { CliError } from './errors.js';

/**
 * Options of {@link webhookDocuments}.
 *
 * ## Example
 * ```ts
 * const options: WebhookDocumentsOptions = { name: 'widget', namespace: 'widget-system' };
 * ```
 */
export interface WebhookDocumentsOptions {
  /** The operator's name (configurations, `<name>-webhook` Service, pod label). */
  readonly name: string;
  /** The operator's namespace. */
  readonly namespace: string;
  /** Add `matchConditions` (Kubernetes 1.28+). */
  readonly matchConditions?: boolean;
}

/**
 * The webhook manifests of a module, in apply order (Service, configurations, CRD stanzas);
 * empty when it registered none.
 *
 * ## Example
 * ```ts
 * const docs = await webhookDocuments((await mgr.describe()).webhooks, (t) => mgr.client.discovery.resolve(t), {
 *   name: 'widget',
 *   namespace: 'widget-system',
 * });
 * ```
 * @throws {CliError} `UnsafeWebhook` naming each finding of the outage lint.
 */
export async function webhookDocuments(
  webhooks: WebhookDescription | undefined,
  resolve: (type: ResourceType) => Promise<{ readonly plural: string }>,
  options: WebhookDocumentsOptions,
): Promise<Record<string, unknown>[]> {
  if (
    webhooks === undefined ||
    (webhooks.admissionWebhooks.length === 0 && webhooks.conversionWebhooks.length === 0)
  ) {
    return [];
  }
  const plurals: Record<string, string> = {};
  for (const r of webhooks.admissionWebhooks) {
    plurals[r.resource.kind] = (await resolve(r.resource)).plural;
  }
  const m = webhookManifests(webhooks, {
    name: options.name,
    namespace: options.namespace,
    plurals,
    ...(options.matchConditions === true ? { matchConditions: true } : {}),
  });
  const findings = lintWebhookConfigurations([m.validating, m.mutating], { namespace: options.namespace });
  if (findings.length > 0) {
    throw new CliError(
      'UnsafeWebhook',
      `the webhook configurations would risk an outage:\n${findings.map((f) => `  ${f.message}`).join('\n')}`,
    );
  }
  const crds = Object.entries(m.crdConversions).map(([name, conversion]) => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name },
    spec: { conversion },
  }));
  return [m.service, m.validating, m.mutating, ...crds].filter(
    (d): d is Record<string, unknown> => d !== undefined,
  );
}
