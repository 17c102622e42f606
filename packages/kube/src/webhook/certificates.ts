/**
 * Serving certificates of the webhook server: generated (a CA and a serving certificate signed by
 * it — RSA 2048 keys from Node's crypto, the certificates built and signed with `node-forge`, no
 * ASN.1 of our own), or read from files and re-read when they change (cert-manager's Secret
 * mounted as a volume, see `WebhookServer`).
 *
 * @module
 */
import { isIP } from 'node:net';

import type * as Forge from 'node-forge';

// The builtin through process.getBuiltinModule, not an ESM import: node:crypto's ES namespace runs
// its lazy getters (webcrypto, ~1.5 ms at start)
const { generateKeyPairSync, randomBytes } = process.getBuiltinModule('node:crypto');

/** PEM-encoded serving certificate and key, and the CA that signed it. *
 * ## Example
 * ```ts
 * import { generateWebhookCertificates, type WebhookCertificates } from '@rxkube/kube/webhook';
 * const certs: WebhookCertificates = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
 * const caBundle = Buffer.from(certs.caCert).toString('base64');
 * ```
 */
export interface WebhookCertificates {
  /** The CA certificate (PEM): the `caBundle` of the webhook configurations. */
  readonly caCert: string;
  /** The CA's private key (PKCS #8 PEM): keep it in a Secret; never log it. */
  readonly caKey: string;
  /** The serving certificate (PEM). */
  readonly cert: string;
  /** The serving certificate's private key (PKCS #8 PEM). */
  readonly key: string;
  /** When the serving certificate expires. */
  readonly notAfter: Date;
}

/** Options of {@link generateWebhookCertificates}. *
 * ## Example
 * ```ts
 * import type { GenerateCertificatesOptions } from '@rxkube/kube/webhook';
 * const options: GenerateCertificatesOptions = {
 *   hosts: ['widget-operator-webhook.widget-system.svc', 'widget-operator-webhook.widget-system.svc.cluster.local'],
 *   validForDays: 90,
 * };
 * ```
 */
export interface GenerateCertificatesOptions {
  /**
   * DNS names and IP addresses the serving certificate is valid for: the Service's names
   * (`<svc>.<ns>.svc`, `<svc>.<ns>.svc.cluster.local`) in a cluster, `127.0.0.1` in tests.
   */
  readonly hosts: readonly string[];
  /** Validity of the serving certificate in days (default 365); the CA gets ten times that. */
  readonly validForDays?: number;
  /** Common name of the CA (default `rxkube-webhook-ca`). */
  readonly caName?: string;
  /** An existing CA to sign with instead of a new one (both PEM). */
  readonly ca?: { readonly cert: string; readonly key: string };
  /** The time the certificates start (default now). */
  readonly now?: Date;
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Generates a CA and a serving certificate for `hosts` (or signs one with the given CA).
 *
 * ## Example
 * ```ts
 * import { generateWebhookCertificates } from '@rxkube/kube/webhook';
 * const certs = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
 * // certs.caCert is the caBundle; certs.cert and certs.key serve
 * ```
 * @throws {TypeError} when `hosts` is empty.
 */
export async function generateWebhookCertificates(
  options: GenerateCertificatesOptions,
): Promise<WebhookCertificates> {
  const hosts: readonly string[] = options.hosts;
  if (hosts.length === 0 || hosts.some((h) => typeof h !== 'string' || h === '')) {
    throw new TypeError(
      'generateWebhookCertificates: options.hosts must name at least one DNS name or IP address',
    );
  }
  // loaded on use: the X.509 library stays out of every other import graph
  const forge = ((await import('node-forge')) as unknown as { default: typeof Forge }).default;
  const { pki, md } = forge;
  const now = options.now ?? new Date();
  const days = options.validForDays ?? 365;
  const notBefore = new Date(now.getTime() - 60_000);
  const newKeys = (): { privatePem: string; publicPem: string } => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    return {
      privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    };
  };

  let caCertPem: string;
  let caKeyPem: string;
  if (options.ca !== undefined) {
    caCertPem = options.ca.cert;
    caKeyPem = options.ca.key;
  } else {
    const keys = newKeys();
    const ca = pki.createCertificate();
    ca.publicKey = pki.publicKeyFromPem(keys.publicPem);
    ca.serialNumber = serial();
    ca.validity.notBefore = notBefore;
    ca.validity.notAfter = new Date(now.getTime() + days * 10 * DAY_MS);
    const name = [{ name: 'commonName', value: options.caName ?? 'rxkube-webhook-ca' }];
    ca.setSubject(name);
    ca.setIssuer(name);
    ca.setExtensions([
      { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
      { name: 'subjectKeyIdentifier' },
    ]);
    ca.sign(pki.privateKeyFromPem(keys.privatePem), md.sha256.create());
    caCertPem = pki.certificateToPem(ca);
    caKeyPem = keys.privatePem;
  }
  const caCert = pki.certificateFromPem(caCertPem);
  const caKey = pki.privateKeyFromPem(caKeyPem);
  const keys = newKeys();
  const notAfter = new Date(now.getTime() + days * DAY_MS);
  const cert = pki.createCertificate();
  cert.publicKey = pki.publicKeyFromPem(keys.publicPem);
  cert.serialNumber = serial();
  cert.validity.notBefore = notBefore;
  cert.validity.notAfter = notAfter;
  cert.setSubject([{ name: 'commonName', value: hosts[0] ?? 'localhost' }]);
  cert.setIssuer(caCert.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    {
      name: 'subjectAltName',
      // GeneralName types: 2 dNSName, 7 iPAddress
      altNames: hosts.map((h) => (isIP(h) !== 0 ? { type: 7, ip: h } : { type: 2, value: h })),
    },
    {
      name: 'authorityKeyIdentifier',
      keyIdentifier: caCert.generateSubjectKeyIdentifier().getBytes(),
    },
  ]);
  cert.sign(caKey, md.sha256.create());
  return {
    caCert: caCertPem,
    caKey: caKeyPem,
    cert: pki.certificateToPem(cert),
    key: keys.privatePem,
    notAfter,
  };
}

/** A positive 128-bit serial number, hex. */
function serial(): string {
  const bytes = randomBytes(16);
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return bytes.toString('hex');
}
