/**
 * `injectCaBundle`: writes a CA bundle into the webhook configurations and CRD conversions that
 * call the operator's webhook server — what cert-manager's CA injector does, for operators that
 * generate their own CA (`generateWebhookCertificates`). One JSON patch per object, guarded by a
 * `test` of its resourceVersion (a concurrent writer makes it retry on the fresh object).
 *
 * @module
 */
import type { KubeClient } from '../client/kube-client.js';
import type { JsonPatchOperation } from '../client/verb-options.js';
import { isConflict } from '../errors.js';

/**
 * What {@link injectCaBundle} writes into, by name.
 *
 * ## Example
 * ```ts
 * import type { CaBundleTargets } from '@rxkube/kube/webhook';
 * const targets: CaBundleTargets = { validating: ['widget-operator'], crds: ['gadgets.example.com'] };
 * ```
 */
export interface CaBundleTargets {
  readonly validating?: readonly string[];
  readonly mutating?: readonly string[];
  /** CRDs whose `spec.conversion.webhook.clientConfig` gets the bundle. */
  readonly crds?: readonly string[];
}

const ATTEMPTS = 5;

/**
 * Sets `caBundle` (base64 PEM) in every webhook of the named configurations and in the conversion
 * webhook of the named CRDs; objects already carrying it are left alone.
 *
 * ## Example
 * ```ts
 * import type { KubeClient } from '@rxkube/kube';
 * import { generateWebhookCertificates, injectCaBundle } from '@rxkube/kube/webhook';
 * declare const client: KubeClient;
 * const certs = await generateWebhookCertificates({ hosts: ['op-webhook.op-system.svc'] });
 * await injectCaBundle(client, Buffer.from(certs.caCert).toString('base64'), {
 *   validating: ['op'],
 *   mutating: ['op'],
 *   crds: ['gadgets.example.com'],
 * });
 * ```
 * @returns the number of objects changed.
 * @throws the client's errors (404 for a missing object, 403 without `patch` on it); a conflict
 *   is retried up to 5 times.
 */
export async function injectCaBundle(
  client: KubeClient,
  caBundle: string,
  targets: CaBundleTargets,
): Promise<number> {
  if (typeof caBundle !== 'string' || caBundle === '') {
    throw new TypeError('injectCaBundle: caBundle must be the base64 of a PEM CA certificate');
  }
  const jobs: {
    apiVersion: string;
    kind: string;
    name: string;
    paths: (o: Record<string, unknown>) => string[];
  }[] = [];
  const webhookPaths = (o: Record<string, unknown>): string[] => {
    const hooks = Array.isArray(o['webhooks']) ? (o['webhooks'] as Record<string, unknown>[]) : [];
    return hooks.flatMap((h, i) =>
      (h['clientConfig'] as { caBundle?: unknown } | undefined)?.caBundle === caBundle
        ? []
        : [`/webhooks/${String(i)}/clientConfig/caBundle`],
    );
  };
  for (const name of targets.validating ?? []) {
    jobs.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      name,
      paths: webhookPaths,
    });
  }
  for (const name of targets.mutating ?? []) {
    jobs.push({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      name,
      paths: webhookPaths,
    });
  }
  for (const name of targets.crds ?? []) {
    jobs.push({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name,
      paths: (o) => {
        const cc = (
          o['spec'] as { conversion?: { webhook?: { clientConfig?: { caBundle?: unknown } } } } | undefined
        )?.conversion?.webhook?.clientConfig;
        return cc === undefined || cc.caBundle === caBundle
          ? []
          : ['/spec/conversion/webhook/clientConfig/caBundle'];
      },
    });
  }
  let changed = 0;
  for (const job of jobs) {
    const ref = { apiVersion: job.apiVersion, kind: job.kind, name: job.name };
    for (let attempt = 1; ; attempt++) {
      const current = await client.get<Record<string, unknown>>(ref);
      const paths = job.paths(current);
      if (paths.length === 0) break;
      const rv = (current['metadata'] as { resourceVersion?: string } | undefined)?.resourceVersion ?? '';
      const ops: JsonPatchOperation[] = [
        { op: 'test', path: '/metadata/resourceVersion', value: rv },
        ...paths.map((path): JsonPatchOperation => ({ op: 'add', path, value: caBundle })),
      ];
      try {
        await client.patch(ref, { type: 'json', body: ops });
        changed++;
        break;
      } catch (error) {
        // a failed `test` is a 422 Invalid, a stale write a 409: read again
        const stale = isConflict(error) || (error as { code?: unknown }).code === 422;
        if (!stale || attempt >= ATTEMPTS) throw error;
      }
    }
  }
  return changed;
}
