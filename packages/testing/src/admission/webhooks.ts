/**
 * The embedded server's admission chain of webhooks, as kube-apiserver v1.24 runs it
 * (`staging/src/k8s.io/apiserver/pkg/admission/plugin/webhook/`; facts and sources in
 * `README.md` beside this file):
 *
 * 1. Mutating webhooks, one after another in the order of their configurations' names and
 *    their order inside a configuration; each sees the object as the previous one left it; a
 *    JSONPatch answer is applied to it. With `reinvocationPolicy: IfNeeded` a webhook runs once
 *    more, in a second round, when a webhook after it changed the object.
 * 2. The write is re-run (defaults, validation) on the mutated object.
 * 3. Validating webhooks, all of them in parallel, on the final object; the first rejection wins.
 * 4. The write.
 *
 * A webhook is called when a rule matches (operations, apiGroups, apiVersions, resources with
 * `*` and `res/sub`, scope), with `matchPolicy: Equivalent` another served version of the same
 * resource too, and its `namespaceSelector` (the namespace's labels; a Namespace's own labels)
 * and `objectSelector` (the new or the old object's labels) select it. A call that fails
 * (unreachable, TLS, timeout after `timeoutSeconds`, bad answer) rejects with 500 under
 * `failurePolicy: Fail` and is skipped under `Ignore`. A dry run is refused with 400 by a
 * webhook whose `sideEffects` is not `None`/`NoneOnDryRun`. Warnings come back as `Warning`
 * headers.
 *
 * A DELETE is admitted with its stored object as `oldObject`, and a deletecollection item by item
 * without a `name` (`http/handlers.ts`). A webhook called under `Equivalent` gets the objects
 * converted to its version by `AdmissionEnv.convert` (a CRD's conversion webhook).
 *
 * Does not: call webhooks on CONNECT, send `matchConditions` (Kubernetes 1.27+), or run a
 * mutating webhook before schema validation (the embedded server validates the request's object
 * first, then again after mutation: a webhook that fixes an invalid object sees a 422 instead).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { request as httpsRequest } from 'node:https';
import { isDeepStrictEqual } from 'node:util';

import type { RequestUser } from '../auth.js';
import type { Engine } from '../handlers/engine.js';
import { applyJsonPatch } from '../patch/json-patch.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceType } from '../registry/types.js';
import { ApiError, badRequest, failure } from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { clone, isObject } from '../store/object.js';

const VALIDATING_KEY = 'admissionregistration.k8s.io/validatingwebhookconfigurations';
const MUTATING_KEY = 'admissionregistration.k8s.io/mutatingwebhookconfigurations';

/** Where a `clientConfig.service` reference is reached in tests. *
 * ## Example
 * ```ts
 * const resolved: ResolvedService = { url: 'https://127.0.0.1:9443', servername: 'webhook.op-system.svc' };
 * ```
 */
export interface ResolvedService {
  /** `https://host:port` to connect to. */
  readonly url: string;
  /** The TLS server name to verify (`<service>.<namespace>.svc`). */
  readonly servername: string;
}

/**
 * Resolves a webhook's `clientConfig.service` in tests. The default connects to
 * `https://127.0.0.1:<port>` and verifies the name `<name>.<namespace>.svc` — a webhook server
 * listening on loopback at the Service's port, with a certificate for its Service name.
 *
 * ## Example
 * ```ts
 * const resolveService: ServiceResolver = (svc) => ({
 *   url: `https://127.0.0.1:${String(svc.port)}`,
 *   servername: `${svc.name}.${svc.namespace}.svc`,
 * });
 * const server = await startApiServer({ resolveService });
 * ```
 */
export type ServiceResolver = (service: {
  readonly namespace: string;
  readonly name: string;
  readonly port: number;
  readonly path: string;
}) => ResolvedService;

/** What the admission chain needs from the server. */
export interface AdmissionEnv {
  readonly engine: Engine;
  readonly registry: Registry;
  readonly resolveService?: ServiceResolver;
  /**
   * Converts an object to the version of a webhook called under `matchPolicy: Equivalent`
   * (a CRD's conversion webhook: `conversion.ts`); without it only `apiVersion` is rewritten.
   */
  readonly convert?: (object: KObj, to: ResourceType) => Promise<KObj>;
}

/** One write under admission. */
export interface AdmissionAttributes {
  readonly operation: 'CREATE' | 'UPDATE' | 'DELETE';
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly subresource: string | undefined;
  readonly user: RequestUser;
  readonly dryRun: boolean;
  /** CreateOptions/UpdateOptions/DeleteOptions as the webhook sees them. */
  readonly options: Json;
}

interface Webhook {
  readonly mutating: boolean;
  readonly configuration: string;
  readonly hook: Json;
}

interface Invocation {
  readonly webhook: Webhook;
  /** The version of the resource the webhook is called with (Equivalent match: another one). */
  readonly type: ResourceType;
}

/** What admission decided: the mutated object to write instead (if any) and the warnings. */
export interface Admitted {
  readonly mutated: KObj | undefined;
  readonly warnings: readonly string[];
}

/**
 * Runs the webhooks registered in the server on one write. `dryRunWrite(object?)` runs the write
 * without committing it (defaults, validation) and returns the object it would store — of the
 * request's body, or of `object` when given; absent for DELETE. Rejections throw `ApiError`.
 * The caller then writes — the `mutated` object instead of the request's when there is one.
 */
export async function admit(
  env: AdmissionEnv,
  attrs: AdmissionAttributes,
  oldObject: KObj | undefined,
  dryRunWrite: ((object?: KObj) => KObj | Promise<KObj>) | undefined,
): Promise<Admitted> {
  const candidates = webhooksFor(env, attrs);
  if (candidates.length === 0) return { mutated: undefined, warnings: [] };
  const warnings: string[] = [];
  // a create by generateName: mutating webhooks see no name (kube-apiserver generates it in the
  // registry's BeforeCreate, after them); validating ones see the generated name, in `name` too
  // (`rest.AdmissionToValidateObjectFunc`), and the write keeps it
  const unnamed = attrs.operation === 'CREATE' && attrs.name === '';
  let object = await dryRunWrite?.();
  if (unnamed && object !== undefined) object = withoutName(object);
  let mutated = false;
  // reinvocationPolicy IfNeeded (mutating/dispatcher.go, reinvocationcontext.go, admission/reinvocation.go):
  // a webhook that changes the object marks every IfNeeded webhook called before it; if any
  // webhook changed the object, those marked run once more, in order, in a second round
  const previouslyInvoked = new Set<Invocation>();
  const reinvoke = new Set<Invocation>();
  let shouldReinvoke = false;
  const mutating = candidates.filter((c) => c.webhook.mutating);
  for (const round of [0, 1]) {
    if (round === 1 && !shouldReinvoke) break;
    for (const inv of mutating) {
      if (!selected(env, attrs, inv, object, oldObject)) continue;
      // a webhook is never called for the first time in the second round
      if (round === 1 && !reinvoke.has(inv)) continue;
      const sent = await inVersion(env, object, inv.type);
      const answer = await call(env, attrs, inv, sent, await inVersion(env, oldObject, inv.type), warnings);
      let changed = false;
      if (answer.patch !== undefined && sent !== undefined && object !== undefined) {
        let next: KObj;
        try {
          next = applyJsonPatch(sent, answer.patch) as KObj;
        } catch (error) {
          throw callingError(
            inv.webhook,
            `JSONPatch could not be applied: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
        const converted = await inVersion(env, next, attrs.type);
        changed = !isDeepStrictEqual(converted, object);
        object = converted;
        mutated = true;
      }
      if (changed) {
        for (const p of previouslyInvoked) reinvoke.add(p);
        previouslyInvoked.clear();
        shouldReinvoke = true;
      }
      if (inv.webhook.hook['reinvocationPolicy'] === 'IfNeeded') previouslyInvoked.add(inv);
    }
  }
  // defaults and validation again, on what the webhooks made of the object
  if ((mutated || unnamed) && object !== undefined && dryRunWrite !== undefined)
    object = await dryRunWrite(object);
  const validatingAttrs = unnamed ? { ...attrs, name: object?.metadata.name ?? '' } : attrs;
  const validating = candidates.filter(
    (c) => !c.webhook.mutating && selected(env, attrs, c, object, oldObject),
  );
  const results = await Promise.allSettled(
    validating.map(async (inv) =>
      call(
        env,
        validatingAttrs,
        inv,
        await inVersion(env, object, inv.type),
        await inVersion(env, oldObject, inv.type),
        warnings,
      ),
    ),
  );
  for (const r of results) if (r.status === 'rejected') throw r.reason;
  return { mutated: mutated || unnamed ? object : undefined, warnings };
}

function withoutName(o: KObj): KObj {
  const { name: _name, ...metadata } = o.metadata;
  return { ...o, metadata };
}

/** The stored object in wire form, or undefined. */
export function currentObject(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
): KObj | undefined {
  const stored = engine.store.get(type.storageKey, engine.keyOf(type, namespace, name));
  return stored === undefined ? undefined : engine.present(type, stored);
}

/** Every webhook whose rules match the request (selectors are checked with the objects later). */
function webhooksFor(env: AdmissionEnv, attrs: AdmissionAttributes): Invocation[] {
  const out: Invocation[] = [];
  for (const [key, mutating] of [
    [MUTATING_KEY, true],
    [VALIDATING_KEY, false],
  ] as const) {
    const store = env.engine.store;
    // kube-apiserver sorts configurations by name (configuration/*_webhook_manager.go)
    const configs = store
      .sortedKeys(key)
      .map((k) => store.get(key, k))
      .filter((c): c is KObj => c !== undefined)
      .sort((a, b) => ((a.metadata.name ?? '') < (b.metadata.name ?? '') ? -1 : 1));
    for (const config of configs) {
      const hooks = config['webhooks'];
      if (!Array.isArray(hooks)) continue;
      for (const hook of hooks) {
        if (!isObject(hook)) continue;
        const type = matchingType(env, attrs, hook);
        if (type !== undefined)
          out.push({ webhook: { mutating, configuration: config.metadata.name ?? '', hook }, type });
      }
    }
  }
  return out;
}

/** The type to call `hook` with: the request's when a rule matches it, an equivalent one under Equivalent. */
function matchingType(env: AdmissionEnv, attrs: AdmissionAttributes, hook: Json): ResourceType | undefined {
  const rules = Array.isArray(hook['rules']) ? hook['rules'].filter(isObject) : [];
  const matches = (t: ResourceType): boolean => rules.some((r) => ruleMatches(r, attrs, t));
  if (matches(attrs.type)) return attrs.type;
  if (hook['matchPolicy'] === 'Exact') return undefined;
  return env.registry
    .all()
    .find(
      (t) =>
        t.group === attrs.type.group &&
        t.resource === attrs.type.resource &&
        t.version !== attrs.type.version &&
        t.storageKey === attrs.type.storageKey &&
        matches(t),
    );
}

function ruleMatches(rule: Json, attrs: AdmissionAttributes, type: ResourceType): boolean {
  const has = (field: string, value: string): boolean => {
    const list = rule[field];
    return Array.isArray(list) && list.some((v) => v === '*' || v === value);
  };
  if (!has('operations', attrs.operation)) return false;
  if (!has('apiGroups', type.group) || !has('apiVersions', type.version)) return false;
  const scope = typeof rule['scope'] === 'string' ? rule['scope'] : '*';
  if (scope === 'Cluster' && type.namespaced) return false;
  if (scope === 'Namespaced' && !type.namespaced) return false;
  const resources = Array.isArray(rule['resources']) ? rule['resources'] : [];
  const sub = attrs.subresource ?? '';
  return resources.some((r) => {
    if (typeof r !== 'string') return false;
    const [res, rsub = ''] = r.split('/', 2) as [string, string | undefined];
    if (r === '*/*') return true;
    if (res !== '*' && res !== type.resource) return false;
    if (r.includes('/')) return rsub === '*' || rsub === sub;
    return sub === '';
  });
}

/** namespaceSelector and objectSelector (`generic/webhook.go` ShouldCallHook). */
function selected(
  env: AdmissionEnv,
  attrs: AdmissionAttributes,
  inv: Invocation,
  object: KObj | undefined,
  oldObject: KObj | undefined,
): boolean {
  const hook = inv.webhook.hook;
  const objectSelector = isObject(hook['objectSelector']) ? hook['objectSelector'] : {};
  const labelsOf = (o: KObj | undefined): Record<string, string> | undefined => o?.metadata.labels;
  if (
    !selectorMatches(objectSelector, labelsOf(object)) &&
    !selectorMatches(objectSelector, labelsOf(oldObject))
  ) {
    // both objects are checked: a write changing the labels is seen by webhooks of either side
    if (object !== undefined || oldObject !== undefined) return false;
  }
  const namespaceSelector = isObject(hook['namespaceSelector']) ? hook['namespaceSelector'] : {};
  if (attrs.type.group === '' && attrs.type.resource === 'namespaces') {
    return selectorMatches(namespaceSelector, labelsOf(object ?? oldObject));
  }
  if (!attrs.type.namespaced || attrs.namespace === undefined) return true;
  const namespace = findNamespace(env, attrs.namespace);
  return selectorMatches(namespaceSelector, namespace?.metadata.labels);
}

function findNamespace(env: AdmissionEnv, name: string): KObj | undefined {
  const type = env.registry.lookup('', 'v1', 'namespaces');
  return type === undefined
    ? undefined
    : env.engine.store.get(type.storageKey, env.engine.keyOf(type, undefined, name));
}

/** A metav1.LabelSelector (matchLabels and matchExpressions) against labels. */
export function selectorMatches(
  selector: Json,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const have = labels ?? {};
  const matchLabels = isObject(selector['matchLabels']) ? selector['matchLabels'] : {};
  for (const [k, v] of Object.entries(matchLabels)) if (have[k] !== v) return false;
  const expressions = Array.isArray(selector['matchExpressions'])
    ? selector['matchExpressions'].filter(isObject)
    : [];
  for (const e of expressions) {
    const key = String(e['key']);
    const values = Array.isArray(e['values']) ? e['values'].map(String) : [];
    const present = Object.hasOwn(have, key);
    const value = have[key];
    switch (e['operator']) {
      case 'In':
        if (!present || value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (present && value !== undefined && values.includes(value)) return false;
        break;
      case 'Exists':
        if (!present) return false;
        break;
      case 'DoesNotExist':
        if (present) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** `o` in `type`'s version: converted by `env.convert` (Equivalent matches), or relabelled. */
async function inVersion(
  env: AdmissionEnv,
  o: KObj | undefined,
  type: ResourceType,
): Promise<KObj | undefined> {
  if (o === undefined) return undefined;
  const apiVersion = type.group === '' ? type.version : `${type.group}/${type.version}`;
  if (o['apiVersion'] === apiVersion) return o;
  return env.convert !== undefined ? env.convert(o, type) : { ...o, apiVersion };
}

interface Answer {
  readonly patch?: unknown;
}

/** Calls one webhook; `object` and `oldObject` are already in its version (`inv.type`). */
async function call(
  env: AdmissionEnv,
  attrs: AdmissionAttributes,
  inv: Invocation,
  object: KObj | undefined,
  oldObject: KObj | undefined,
  warnings: string[],
): Promise<Answer> {
  const { hook, mutating } = inv.webhook;
  const name = String(hook['name']);
  const sideEffects = hook['sideEffects'];
  if (attrs.dryRun && sideEffects !== 'None' && sideEffects !== 'NoneOnDryRun') {
    throw new ApiError(badRequest(`admission webhook "${name}" does not support dry run`));
  }
  const failOpen = hook['failurePolicy'] === 'Ignore';
  const uid = randomUUID();
  const t = inv.type;
  const gvk = { group: t.group, version: t.version, kind: t.kind };
  const gvr = { group: t.group, version: t.version, resource: t.resource };
  const req = attrs.type;
  const request: Json = {
    uid,
    kind: gvk,
    resource: gvr,
    ...(attrs.subresource !== undefined ? { subResource: attrs.subresource } : {}),
    requestKind: { group: req.group, version: req.version, kind: req.kind },
    requestResource: { group: req.group, version: req.version, resource: req.resource },
    ...(attrs.subresource !== undefined ? { requestSubResource: attrs.subresource } : {}),
    // `name` is omitempty: absent for a deletecollection's items and, to mutating webhooks, a
    // create by generateName
    ...(attrs.name !== '' ? { name: attrs.name } : {}),
    ...(attrs.namespace !== undefined ? { namespace: attrs.namespace } : {}),
    operation: attrs.operation,
    userInfo: {
      username: attrs.user.name,
      ...(attrs.user.uid !== undefined ? { uid: attrs.user.uid } : {}),
      groups: attrs.user.groups,
      ...(attrs.user.extra !== undefined ? { extra: attrs.user.extra } : {}),
    },
    object: object === undefined ? null : clone(object),
    oldObject: oldObject === undefined ? null : clone(oldObject),
    dryRun: attrs.dryRun,
    options: attrs.options,
  };
  let response: Json;
  try {
    response = await post(env, hook, { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request });
    const r = response['response'];
    if (!isObject(r)) throw new Error('webhook response was absent');
    if (r['uid'] !== uid) throw new Error(`expected response.uid="${uid}", got "${String(r['uid'])}"`);
    if (typeof r['allowed'] !== 'boolean') throw new Error('webhook response.allowed is not a boolean');
    if (!mutating && r['patch'] !== undefined) throw new Error('validating webhook may not return patches');
    if (r['patch'] !== undefined && r['patchType'] !== 'JSONPatch') {
      throw new Error(`unsupported patch type "${String(r['patchType'])}"`);
    }
    response = r;
  } catch (error) {
    if (error instanceof ApiError) throw error;
    if (failOpen) return {};
    throw callingError(inv.webhook, error instanceof Error ? error.message : String(error));
  }
  if (Array.isArray(response['warnings'])) for (const w of response['warnings']) warnings.push(String(w));
  if (response['allowed'] !== true)
    throw new ApiError(denial(name, isObject(response['status']) ? response['status'] : {}));
  if (typeof response['patch'] === 'string') {
    try {
      return { patch: JSON.parse(Buffer.from(response['patch'], 'base64').toString('utf8')) as unknown };
    } catch (error) {
      if (failOpen) return {};
      throw callingError(
        inv.webhook,
        `the patch is not base64 JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
  return {};
}

/** `webhookerrors.ToStatusErr` of v1.24. */
function denial(webhook: string, result: Json): ReturnType<typeof failure> {
  const deniedBy = `admission webhook "${webhook}" denied the request`;
  const code = typeof result['code'] === 'number' && result['code'] >= 400 ? result['code'] : 403;
  const message =
    typeof result['message'] === 'string' && result['message'] !== '' ? result['message'] : undefined;
  const reason =
    typeof result['reason'] === 'string' && result['reason'] !== '' ? result['reason'] : undefined;
  const text =
    message !== undefined
      ? `${deniedBy}: ${message}`
      : reason !== undefined
        ? `${deniedBy}: ${reason}`
        : `${deniedBy} without explanation`;
  return failure(code, reason, text, isObject(result['details']) ? result['details'] : undefined);
}

/** `apierrors.NewInternalError(ErrCallingWebhook)`. */
function callingError(webhook: Webhook, reason: string): ApiError {
  const message = `failed calling webhook "${String(webhook.hook['name'])}": ${reason}`;
  return new ApiError(
    failure(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
  );
}

async function post(env: AdmissionEnv, hook: Json, body: Json): Promise<Json> {
  const timeoutMs = (typeof hook['timeoutSeconds'] === 'number' ? hook['timeoutSeconds'] : 10) * 1000;
  return postReview(env, isObject(hook['clientConfig']) ? hook['clientConfig'] : {}, timeoutMs, body);
}

/** POSTs a review to a webhook's `clientConfig` (url or service, caBundle) and parses the answer. */
export async function postReview(env: AdmissionEnv, cc: Json, timeoutMs: number, body: Json): Promise<Json> {
  let url: string;
  let servername: string | undefined;
  if (typeof cc['url'] === 'string') {
    url = cc['url'];
  } else if (isObject(cc['service'])) {
    const svc = cc['service'];
    const ref = {
      namespace: String(svc['namespace']),
      name: String(svc['name']),
      port: typeof svc['port'] === 'number' ? svc['port'] : 443,
      path: typeof svc['path'] === 'string' ? svc['path'] : '/',
    };
    const resolved = (env.resolveService ?? defaultResolver)(ref);
    url = resolved.url.replace(/\/$/, '') + ref.path;
    servername = resolved.servername;
  } else {
    throw new Error('clientConfig has neither url nor service');
  }
  const ca =
    typeof cc['caBundle'] === 'string' ? Buffer.from(cc['caBundle'], 'base64').toString('utf8') : undefined;
  const payload = JSON.stringify(body);
  return new Promise<Json>((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
        ...(ca !== undefined ? { ca } : {}),
        ...(servername !== undefined ? { servername } : {}),
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if ((res.statusCode ?? 0) < 200 || (res.statusCode ?? 0) >= 300) {
            reject(
              new Error(
                `an error on the server ("${text.slice(0, 200)}") has prevented the request from succeeding`,
              ),
            );
            return;
          }
          try {
            const parsed: unknown = JSON.parse(text);
            if (!isObject(parsed)) throw new Error('not an object');
            resolve(parsed);
          } catch (error) {
            reject(
              new Error(
                `the response is not an AdmissionReview: ${error instanceof Error ? error.message : String(error)}`,
              ),
            );
          }
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error(`Post "${url}": context deadline exceeded`)));
    req.on('error', (error) => reject(new Error(`failed to call webhook: Post "${url}": ${error.message}`)));
    req.end(payload);
  });
}

const defaultResolver: ServiceResolver = (svc) => ({
  url: `https://127.0.0.1:${String(svc.port)}`,
  servername: `${svc.name}.${svc.namespace}.svc`,
});
