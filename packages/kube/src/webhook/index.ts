/**
 * Admission and conversion webhooks served in-process over HTTPS: {@link WebhookServer}
 * (`mgr.webhooks(…)` on a Manager), certificates, the JSON patch of a mutation, and a round-trip
 * check of conversions for tests.
 *
 * @module @rxkube/kube/webhook
 */
export type {
  AdmissionHandlerOptions,
  AdmissionRegistration,
  Conversion,
  ConversionRegistration,
  MutateRecipe,
  SelfManagedCertificates,
  ValidateHandler,
  WebhookDescription,
  WebhookServerOptions,
  WebhookTls,
} from './webhook-server.js';
export {
  DEFAULT_WEBHOOK_PORT,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  WebhookServer,
  convertObject,
} from './webhook-server.js';
export type { GenerateCertificatesOptions, WebhookCertificates } from './certificates.js';
export { generateWebhookCertificates } from './certificates.js';
export { createJsonPatch } from './json-patch.js';
export type {
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionUserInfo,
  AdmissionVerdict,
  ConversionReview,
  GroupVersionKind,
  GroupVersionResource,
} from './types.js';
export { allowed, denied } from './types.js';
export type {
  WebhookLintFinding,
  WebhookManifestOptions,
  WebhookManifests,
  WebhookRegistrations,
} from './manifests.js';
export { lintWebhookConfigurations, webhookManifests } from './manifests.js';
export type { CaBundleTargets } from './inject-ca-bundle.js';
export { injectCaBundle } from './inject-ca-bundle.js';
export type { EnsureCertificatesOptions } from './ensure-certificates.js';
export { ensureWebhookCertificates } from './ensure-certificates.js';
