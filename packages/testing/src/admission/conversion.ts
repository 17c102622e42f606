/**
 * CRD conversion webhooks in the embedded server: a custom resource whose CRD says
 * `conversion.strategy: Webhook`, read or written in a version other than the storage version,
 * is converted by a ConversionReview (`apiextensions.k8s.io/v1`) POSTed to the CRD's
 * `conversion.webhook.clientConfig`, as kube-apiserver's apiextensions server does
 * (`apiextensions-apiserver/pkg/apiserver/conversion/webhook_converter.go`).
 *
 * Done for get, list, watch, create, update, patch, delete and deletecollection: a write's body
 * is admitted in the request's version, converted to the storage version and written as that
 * version, and the answer converted back; a watch converts each event's object by its own
 * review; a JSON or merge patch and a server-side apply are applied to the stored object
 * converted to the request's version, and the result converted back, as kube-apiserver's patcher
 * does (`endpoints/handlers/patch.go`); the apply's field manager compares other managers' changes in the version each wrote
 * ({@link withServedVersions}); a deletecollection answers the deleted objects converted. The
 * field manager of a create, PUT or JSON/merge patch runs in the request's version too
 * ({@link managedFieldsInRequestVersion}); a delete is admitted with the stored object converted
 * to the request's version, and a webhook matched under `Equivalent` gets the objects converted
 * to its own ({@link convertForAdmission}).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

import { recordUpdateAcrossVersions } from '../apply/field-manager.js';
import type { ServedVersions } from '../apply/layers.js';
import { fieldManagerType } from '../handlers/field-manager-options.js';
import { parsePatchBody } from '../handlers/patch-body.js';
import { applyJsonPatch, PatchError } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import type { ResourceType } from '../registry/types.js';
import { ApiError, badRequest, failure, invalidGeneric } from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { isObject } from '../store/object.js';
import type { AdmissionEnv } from './webhooks.js';
import { postReview } from './webhooks.js';

const CRD_KEY = 'apiextensions.k8s.io/customresourcedefinitions';
/** kube-apiserver's conversion webhook timeout (`webhook_converter.go`: 30 s). */
const TIMEOUT_MS = 30_000;
/** Rounds of a converted apply: two conversions (old, new) per other version a manager wrote. */
const MAX_APPLY_ROUNDS = 32;

/** How a request's version is converted: the storage version's type and the webhook. */
export interface ConversionPlan {
  readonly storageType: ResourceType;
  readonly requestType: ResourceType;
  readonly clientConfig: Json;
}

/** The plan when `type` is a non-storage version of a CRD with a conversion webhook. */
export function conversionFor(env: AdmissionEnv, type: ResourceType): ConversionPlan | undefined {
  const webhook = conversionWebhookOf(env, type);
  if (webhook === undefined || webhook.storageVersion === type.version) return undefined;
  const storageType = env.registry.lookup(type.group, webhook.storageVersion, type.resource);
  if (storageType === undefined) return undefined;
  return { storageType, requestType: type, clientConfig: webhook.clientConfig };
}

/** The conversion webhook of `type`'s CRD (`strategy: Webhook`) and its storage version. */
function conversionWebhookOf(
  env: AdmissionEnv,
  type: ResourceType,
): { readonly storageVersion: string; readonly clientConfig: Json } | undefined {
  if (type.crd === undefined) return undefined;
  const crd = env.engine.store.get(CRD_KEY, type.crd);
  const spec = isObject(crd?.['spec']) ? crd['spec'] : undefined;
  const conversion = isObject(spec?.['conversion']) ? spec['conversion'] : undefined;
  if (conversion?.['strategy'] !== 'Webhook') return undefined;
  const versions = Array.isArray(spec?.['versions']) ? spec['versions'].filter(isObject) : [];
  const storage = versions.find((v) => v['storage'] === true);
  const webhook = isObject(conversion['webhook']) ? conversion['webhook'] : {};
  const clientConfig = isObject(webhook['clientConfig']) ? webhook['clientConfig'] : undefined;
  if (storage === undefined || clientConfig === undefined) return undefined;
  return { storageVersion: String(storage['name']), clientConfig };
}

/**
 * An object of a write under admission converted to `to`, the version of a webhook called under
 * `matchPolicy: Equivalent` (`generic/webhook.go` `ConvertVersionedAttributes`, with the CRD's
 * converter): through the CRD's conversion webhook when it has one, otherwise by its apiVersion
 * alone (the versions of a CRD without a webhook differ in nothing else).
 */
export async function convertForAdmission(env: AdmissionEnv, object: KObj, to: ResourceType): Promise<KObj> {
  const apiVersion = to.group === '' ? to.version : `${to.group}/${to.version}`;
  if (object['apiVersion'] === apiVersion) return object;
  const webhook = conversionWebhookOf(env, to);
  if (webhook === undefined) return { ...object, apiVersion };
  const plan: ConversionPlan = { storageType: to, requestType: to, clientConfig: webhook.clientConfig };
  return (await convertThroughWebhook(env, plan, [object], to))[0] as KObj;
}

/**
 * The managedFields after a create, PUT or JSON/merge patch in a non-storage version, as
 * kube-apiserver's field manager computes them in the request's version (the CRD handler's
 * request scope is that version: `FieldManager.UpdateNoErrors` of `live` and `object`, both in
 * it): the writer's entry names that version and its fields; other managers' changes are compared
 * in the version each wrote, converted through the webhook ({@link withServedVersions}). `live`
 * is the stored object converted to the request's version (undefined on create), `object` the
 * request's object (the body, or the patched object) in that version.
 */
export async function managedFieldsInRequestVersion(
  env: AdmissionEnv,
  plan: ConversionPlan,
  live: KObj | undefined,
  object: KObj,
  manager: string,
  subresource: 'status' | undefined,
): Promise<unknown[]> {
  const type = plan.requestType;
  const now = env.engine.nowIso();
  return withServedVersions(env, plan, (versions) =>
    recordUpdateAcrossVersions(
      live,
      object,
      {
        fieldManager: manager,
        apiVersion: type.apiVersion,
        now,
        ...(subresource !== undefined ? { subresource } : {}),
        ...fieldManagerType(type, subresource),
      },
      versions,
    ),
  );
}

/** Converts objects to `to` (a type's apiVersion) through the webhook; 500 when it fails. */
export async function convertThroughWebhook(
  env: AdmissionEnv,
  plan: ConversionPlan,
  objects: readonly KObj[],
  to: ResourceType,
): Promise<KObj[]> {
  const desired = `${to.group}/${to.version}`;
  const pending = objects.filter((o) => o['apiVersion'] !== desired);
  if (pending.length === 0) return [...objects];
  const uid = randomUUID();
  const fail = (reason: string): ApiError => {
    const message = `conversion webhook for ${desired}, Kind=${to.kind} failed: ${reason}`;
    return new ApiError(
      failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
    );
  };
  let answer: Json;
  try {
    answer = await postReview(env, plan.clientConfig, TIMEOUT_MS, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'ConversionReview',
      request: { uid, desiredAPIVersion: desired, objects: pending },
    });
  } catch (error) {
    throw fail(error instanceof Error ? error.message : String(error));
  }
  const response = isObject(answer['response']) ? answer['response'] : undefined;
  if (response?.['uid'] !== uid) throw fail(`expected response uid ${uid}`);
  const result = isObject(response['result']) ? response['result'] : {};
  if (result['status'] !== 'Success')
    throw fail(typeof result['message'] === 'string' ? result['message'] : 'conversion failed');
  const converted = Array.isArray(response['convertedObjects'])
    ? response['convertedObjects'].filter(isObject)
    : [];
  if (converted.length !== pending.length) {
    throw fail(`expected ${String(pending.length)} converted objects, got ${String(converted.length)}`);
  }
  let next = 0;
  return objects.map((o) => {
    if (o['apiVersion'] === desired) return o;
    const c = converted[next++] as KObj;
    if (c['apiVersion'] !== desired)
      throw fail(`invalid converted object: apiVersion ${String(c['apiVersion'])}, expected ${desired}`);
    // metadata other than labels and annotations is the API server's (webhook_converter.go restores it)
    const { labels: _l, annotations: _a, ...kept } = o.metadata;
    const labels = c.metadata?.labels;
    const annotations = c.metadata?.annotations;
    return {
      ...c,
      metadata: {
        ...kept,
        ...(labels !== undefined ? { labels } : {}),
        ...(annotations !== undefined ? { annotations } : {}),
      },
    };
  });
}

/** A served version's type (`example.com/v1`), undefined when not served. */
function typeAt(env: AdmissionEnv, plan: ConversionPlan, apiVersion: string): ResourceType | undefined {
  const t = plan.requestType;
  const slash = apiVersion.indexOf('/');
  if (apiVersion.slice(0, slash) !== t.group) return undefined;
  return env.registry.lookup(t.group, apiVersion.slice(slash + 1), t.resource);
}

/** A conversion the synchronous field manager asked for: done, then the apply runs again. */
class NeedsConversion extends Error {
  constructor(
    readonly object: KObj,
    readonly apiVersion: string,
  ) {
    super(`needs ${apiVersion}`);
  }
}

/**
 * Runs `run` (a server-side apply) with the CRD's other served versions: the field manager
 * compares another manager's changes in the version it wrote (structured-merge-diff's
 * `Updater.update` converts the old and new objects to each manager's apiVersion). Conversions
 * go through the webhook; the synchronous field manager asks for one it has not got by throwing,
 * and `run` is repeated with it (deterministic: each round knows one more conversion).
 */
export async function withServedVersions<T>(
  env: AdmissionEnv,
  plan: ConversionPlan,
  run: (versions: ServedVersions) => T,
): Promise<T> {
  const converted = new Map<string, unknown>();
  const keyOf = (object: unknown, apiVersion: string): string => `${apiVersion}\n${JSON.stringify(object)}`;
  const versions: ServedVersions = {
    convert: (object, apiVersion) => {
      if (!isObject(object) || object['apiVersion'] === apiVersion) return object;
      const key = keyOf(object, apiVersion);
      if (converted.has(key)) return converted.get(key);
      throw new NeedsConversion(object as KObj, apiVersion);
    },
    schemaOf: (apiVersion) => typeAt(env, plan, apiVersion)?.schema,
  };
  for (let round = 0; round < MAX_APPLY_ROUNDS; round++) {
    try {
      return run(versions);
    } catch (e) {
      if (!(e instanceof NeedsConversion)) throw e;
      const to = typeAt(env, plan, e.apiVersion);
      if (to === undefined) {
        throw new ApiError(
          failure(
            500,
            'InternalError',
            `managedFields name ${e.apiVersion}, not a served version of ${plan.requestType.resource}.${plan.requestType.group}`,
          ),
        );
      }
      const [object] = await convertThroughWebhook(env, plan, [e.object], to);
      converted.set(keyOf(e.object, e.apiVersion), object);
    }
  }
  throw new ApiError(
    failure(
      500,
      'InternalError',
      `server-side apply needed more than ${String(MAX_APPLY_ROUNDS)} conversions`,
    ),
  );
}

/** A stored object in the storage version's wire form. */
export function asStorageVersion(plan: ConversionPlan, stored: KObj): KObj {
  return plan.storageType.fromStorage(stored);
}

/** The refusal of a verb the embedded server does not convert. */
export function conversionUnsupported(plan: ConversionPlan, verb: string): ApiError {
  const t = plan.requestType;
  return new ApiError(
    failure(
      500,
      'InternalError',
      `the embedded API server does not ${verb} ${t.resource}.${t.group} in ${t.version} through its conversion webhook: use the storage version ${plan.storageType.version}, or a real API server`,
    ),
  );
}

/**
 * A JSON or merge patch applied to an object in the request's version (the engine patches
 * stored ones); the engine's errors: 400 for a body that does not parse, 422 for a failed `test`.
 */
export function patchConverted(contentType: string, current: KObj, body: Buffer): KObj {
  const ct = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
  const patch = parsePatchBody(body, ct);
  let patched: unknown;
  try {
    patched =
      ct === 'application/json-patch+json' ? applyJsonPatch(current, patch) : applyMergePatch(current, patch);
  } catch (e) {
    if (e instanceof PatchError)
      throw new ApiError(e.kind === 'invalid' ? invalidGeneric() : badRequest(e.message));
    throw e;
  }
  if (!isObject(patched)) throw new ApiError(badRequest('the patched object is not an object'));
  return patched as KObj;
}
