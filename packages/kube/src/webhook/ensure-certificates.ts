/**
 * `ensureWebhookCertificates`: a self-managed CA kept in a Secret, and a serving certificate
 * issued by it and renewed before it expires — what an operator without cert-manager needs. The
 * CA's caBundle is injected into the webhook configurations and CRDs it names. Replicas racing
 * to create the Secret settle on the first one written (a 409 re-reads it). Secret data is never
 * logged.
 *
 * @module
 */

import type { KubeClient } from '../client/kube-client.js';
import { isConflict, isNotFound } from '../errors.js';
import { generateWebhookCertificates, type WebhookCertificates } from './certificates.js';
import { injectCaBundle, type CaBundleTargets } from './inject-ca-bundle.js';

// The builtin through process.getBuiltinModule, not an ESM import: node:crypto's ES namespace runs
// its lazy getters (webcrypto, ~1.5 ms at start)
const { X509Certificate } = process.getBuiltinModule('node:crypto');

/**
 * Options of {@link ensureWebhookCertificates}.
 *
 * ## Example
 * ```ts
 * import type { EnsureCertificatesOptions } from '@rxkube/kube/webhook';
 * const options: EnsureCertificatesOptions = {
 *   secret: { namespace: 'widget-system', name: 'widget-operator-webhook-certs' },
 *   hosts: ['widget-operator-webhook.widget-system.svc'],
 *   inject: { validating: ['widget-operator'], mutating: ['widget-operator'] },
 * };
 * ```
 */
export interface EnsureCertificatesOptions {
  /** The Secret keeping `ca.crt`, `ca.key`, `tls.crt`, `tls.key`. */
  readonly secret: { readonly namespace: string; readonly name: string };
  /** DNS names / IPs of the serving certificate. */
  readonly hosts: readonly string[];
  /** Where to inject the CA bundle (default nowhere). */
  readonly inject?: CaBundleTargets;
  /** Renew the serving certificate this many days before it expires (default 30). */
  readonly renewBeforeDays?: number;
  /** Validity of a new serving certificate in days (default 365). */
  readonly validForDays?: number;
  /** The time the renewal decision is made at (tests); new certificates start at the real time. */
  readonly now?: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;
type SecretData = Partial<Record<'ca.crt' | 'ca.key' | 'tls.crt' | 'tls.key', string>>;
interface Secret {
  apiVersion: 'v1';
  kind: 'Secret';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  type?: string;
  data?: SecretData;
}

/**
 * Reads the certificates from the Secret, makes or renews what is missing or expiring, writes the
 * Secret back, injects the CA bundle, and returns them: pass `{ cert, key }` to the webhook
 * server (`server.setCertificate` after a renewal). Call it at start and again before `notAfter`.
 *
 * ## Example
 * ```ts
 * import type { KubeClient } from '@rxkube/kube';
 * import { ensureWebhookCertificates } from '@rxkube/kube/webhook';
 * declare const client: KubeClient;
 * const certs = await ensureWebhookCertificates(client, {
 *   secret: { namespace: 'op-system', name: 'op-webhook-certs' },
 *   hosts: ['op-webhook.op-system.svc'],
 *   inject: { validating: ['op'] },
 * });
 * ```
 * @throws the client's errors (403 without get/create/update on the Secret).
 */
export async function ensureWebhookCertificates(
  client: KubeClient,
  options: EnsureCertificatesOptions,
): Promise<WebhookCertificates> {
  const ref = {
    apiVersion: 'v1',
    kind: 'Secret',
    namespace: options.secret.namespace,
    name: options.secret.name,
  };
  const now = options.now ?? new Date();
  const renewAt = now.getTime() + (options.renewBeforeDays ?? 30) * DAY_MS;
  for (let attempt = 1; ; attempt++) {
    const existing = await client.get<Secret>(ref).catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    const data = decode(existing?.data ?? {});
    const current = usable(data, renewAt);
    let certs: WebhookCertificates;
    if (current !== undefined) {
      certs = current;
    } else {
      const ca =
        data['ca.crt'] !== undefined && data['ca.key'] !== undefined
          ? { cert: data['ca.crt'], key: data['ca.key'] }
          : undefined;
      certs = await generateWebhookCertificates({
        hosts: options.hosts,
        ...(ca !== undefined ? { ca } : {}),
        ...(options.validForDays !== undefined ? { validForDays: options.validForDays } : {}),
      });
      const secret: Secret = {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: {
          ...ref,
          ...(existing?.metadata.resourceVersion !== undefined
            ? { resourceVersion: existing.metadata.resourceVersion }
            : {}),
        },
        type: 'Opaque',
        data: encode({
          'ca.crt': certs.caCert,
          'ca.key': certs.caKey,
          'tls.crt': certs.cert,
          'tls.key': certs.key,
        }),
      };
      try {
        if (existing === undefined) await client.create(secret);
        else await client.replace(secret);
      } catch (error) {
        // another replica wrote it first: use theirs
        if ((isConflict(error) || (error as { code?: unknown }).code === 409) && attempt < 5) continue;
        throw error;
      }
    }
    if (options.inject !== undefined)
      await injectCaBundle(client, Buffer.from(certs.caCert).toString('base64'), options.inject);
    return certs;
  }
}

function usable(data: SecretData, renewAt: number): WebhookCertificates | undefined {
  const { 'ca.crt': caCert, 'ca.key': caKey, 'tls.crt': cert, 'tls.key': key } = data;
  if (caCert === undefined || caKey === undefined || cert === undefined || key === undefined)
    return undefined;
  try {
    const serving = new X509Certificate(cert);
    const notAfter = new Date(serving.validTo);
    if (notAfter.getTime() <= renewAt || !serving.checkIssued(new X509Certificate(caCert))) return undefined;
    return { caCert, caKey, cert, key, notAfter };
  } catch {
    return undefined;
  }
}

function decode(data: Record<string, string>): SecretData {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) out[k] = Buffer.from(v, 'base64').toString('utf8');
  return out;
}

function encode(data: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(data)) out[k] = Buffer.from(v).toString('base64');
  return out;
}
