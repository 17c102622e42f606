/**
 * admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration and
 * MutatingWebhookConfiguration: stored with kube-apiserver's v1 defaults filled in
 * (`failurePolicy: Fail`, `matchPolicy: Equivalent`, empty selectors, `timeoutSeconds: 10`,
 * rule `scope: *`, `reinvocationPolicy: Never`) and the required fields checked (`sideEffects`,
 * `admissionReviewVersions`, a `clientConfig` with exactly one of `url` and `service`). The
 * embedded server calls them: see `admission/webhooks.ts`.
 *
 * @module
 */
import type { StatusCause } from '../../status.js';
import type { KObj } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import type { ResourceType } from '../types.js';
import { builtin } from './builtin.js';

/** The two webhook configuration kinds. */
export function admissionregistrationKinds(): ResourceType[] {
  return (['Validating', 'Mutating'] as const).map((flavor) =>
    builtin({
      group: 'admissionregistration.k8s.io',
      version: 'v1',
      resource: `${flavor.toLowerCase()}webhookconfigurations`,
      kind: `${flavor}WebhookConfiguration`,
      metaValidation: { flavor: 'generic', onUpdate: 'update' },
      namespaced: false,
      knownFields: ['webhooks'],
      defaults: (o: KObj) => defaultWebhooks(o, flavor === 'Mutating'),
      validate: (o: KObj) => validateWebhooks(o),
    }),
  );
}

function defaultWebhooks(o: KObj, mutating: boolean): void {
  const hooks = o['webhooks'];
  if (!Array.isArray(hooks)) return;
  for (const h of hooks) {
    if (!isObject(h)) continue;
    h['failurePolicy'] ??= 'Fail';
    h['matchPolicy'] ??= 'Equivalent';
    h['namespaceSelector'] ??= {};
    h['objectSelector'] ??= {};
    h['timeoutSeconds'] ??= 10;
    if (mutating) h['reinvocationPolicy'] ??= 'Never';
    const rules = h['rules'];
    if (Array.isArray(rules)) for (const r of rules) if (isObject(r)) r['scope'] ??= '*';
    const cc = h['clientConfig'];
    if (isObject(cc) && isObject(cc['service'])) cc['service']['port'] ??= 443;
  }
}

function validateWebhooks(o: KObj): StatusCause[] {
  const causes: StatusCause[] = [];
  const hooks: unknown = o['webhooks'] ?? [];
  if (!Array.isArray(hooks))
    return [{ reason: 'FieldValueInvalid', message: 'Invalid value: must be a list', field: 'webhooks' }];
  const names = new Set<string>();
  hooks.forEach((h, i) => {
    const at = `webhooks[${String(i)}]`;
    if (!isObject(h)) return;
    const name = h['name'];
    if (typeof name !== 'string' || name === '') {
      causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${at}.name` });
    } else if (names.has(name)) {
      causes.push({
        reason: 'FieldValueDuplicate',
        message: `Duplicate value: "${name}"`,
        field: `${at}.name`,
      });
    } else {
      names.add(name);
    }
    const sideEffects = h['sideEffects'];
    if (sideEffects === undefined) {
      causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${at}.sideEffects` });
    } else if (sideEffects !== 'None' && sideEffects !== 'NoneOnDryRun') {
      causes.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${JSON.stringify(sideEffects)}: supported values: "None", "NoneOnDryRun"`,
        field: `${at}.sideEffects`,
      });
    }
    const versions = h['admissionReviewVersions'];
    if (!Array.isArray(versions) || versions.length === 0) {
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value',
        field: `${at}.admissionReviewVersions`,
      });
    }
    const cc = h['clientConfig'];
    const hasUrl = isObject(cc) && typeof cc['url'] === 'string';
    const hasService = isObject(cc) && isObject(cc['service']);
    if (hasUrl === hasService) {
      causes.push({
        reason: 'FieldValueRequired',
        message: 'Required value: exactly one of url or service is required',
        field: `${at}.clientConfig`,
      });
    }
    const timeout = h['timeoutSeconds'];
    if (typeof timeout === 'number' && (timeout < 1 || timeout > 30)) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${String(timeout)}: the timeout value must be between 1 and 30 seconds`,
        field: `${at}.timeoutSeconds`,
      });
    }
  });
  return causes;
}
