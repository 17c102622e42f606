/**
 * Errors of the API client, as tagged classes (`_tag`) so they can be matched across module copies:
 * {@link KubeApiError} (the server answered with an error status, parsed from its `metav1.Status`),
 * {@link KubeTransportError} (no answer: network, TLS, timeout, oversized body),
 * {@link KubeConfigError} (the kubeconfig cannot be used) and {@link ResourceNotFoundError}
 * (discovery does not know an apiVersion/kind). Guards follow client-go's `apierrors` words.
 *
 * Messages say what failed, on which URL, and what to check next. They never contain credentials:
 * URLs are printed without user info, and headers are never printed.
 *
 * @module
 */

/** `metav1.StatusCause`: one reason of a failure, e.g. a field that failed validation. */
export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/** `metav1.StatusDetails`: what the failure is about. */
export interface StatusDetails {
  readonly name?: string;
  readonly group?: string;
  /** The resource (`configmaps`) for most reasons, the Kind (`ConfigMap`) for `Invalid`. */
  readonly kind?: string;
  readonly uid?: string;
  readonly causes?: readonly StatusCause[];
  readonly retryAfterSeconds?: number;
}

/**
 * `metav1.Status`, the body of every API error and of a successful DELETE.
 *
 * ## Example
 * ```ts
 * const s: Status = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 404 };
 * ```
 */
export interface Status {
  readonly kind: 'Status';
  readonly apiVersion: string;
  readonly metadata: { readonly continue?: string; readonly resourceVersion?: string };
  /** `Success` or `Failure`. */
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly details?: StatusDetails;
  readonly code?: number;
}

/** What a request was about; names the RBAC rule in a 403 message. */
export interface RequestTarget {
  /** Kubernetes verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`. */
  readonly verb: string;
  /** API group (`''` for the core group). */
  readonly group?: string;
  /** Resource plural, e.g. `configmaps`, with `/status` for a subresource. */
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** The reason client-go derives from an HTTP status when the body carries none. */
const REASON_BY_CODE: Readonly<Record<number, string>> = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  405: 'MethodNotAllowed',
  406: 'NotAcceptable',
  409: 'Conflict',
  410: 'Gone',
  413: 'RequestEntityTooLarge',
  415: 'UnsupportedMediaType',
  422: 'Invalid',
  429: 'TooManyRequests',
  500: 'InternalError',
  503: 'ServiceUnavailable',
  504: 'Timeout',
};

const MAX_MESSAGE_CHARS = 2_000;

/** Everything {@link KubeApiError} is built from. */
export interface KubeApiErrorInit {
  /** HTTP status code of the response. */
  readonly httpStatus: number;
  readonly method: string;
  /** Request URL (user info is stripped before it is stored). */
  readonly url: string;
  readonly target: RequestTarget;
  /** The parsed `metav1.Status`, when the body was one. */
  readonly status?: Status;
  /** The raw body text when it was not a `metav1.Status` (e.g. `404 page not found`). */
  readonly text?: string;
  /** `Retry-After` header, when present. */
  readonly retryAfterHeader?: string;
}

/**
 * The API server answered with an error status. Built from the `metav1.Status` body (or, for
 * non-JSON bodies such as the plain-text `404 page not found`, an equivalent Status).
 *
 * ## Example
 * ```ts
 * try {
 *   await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'x' });
 * } catch (e) {
 *   if (isNotFound(e)) return undefined;
 *   throw e;
 * }
 * ```
 */
export class KubeApiError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'KubeApiError' as const;
  override readonly name = 'KubeApiError';
  /** `Status.code`, else the HTTP status. */
  readonly code: number;
  /** `Status.reason`; for bodies without one, the reason client-go derives from the code. */
  readonly reason: string;
  /** The `metav1.Status` (synthesised from the status code and text for non-Status bodies). */
  readonly status: Status;
  /** `Status.details`. */
  readonly details: StatusDetails | undefined;
  /** The Kubernetes verb of the request (`get`, `list`, `patch`, …). */
  readonly verb: string;
  /** Request URL, without user info. */
  readonly url: string;
  /** HTTP method. */
  readonly method: string;
  /** What the request was about (resource, namespace, name). */
  readonly target: RequestTarget;
  /** Seconds to wait before retrying, from `Retry-After` or `details.retryAfterSeconds`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(init: KubeApiErrorInit) {
    const status = init.status ?? synthesiseStatus(init.httpStatus, init.text);
    const code = typeof status.code === 'number' && status.code > 0 ? status.code : init.httpStatus;
    const reason = status.reason !== undefined && status.reason !== '' ? status.reason : reasonForCode(code);
    const url = redactUrl(init.url);
    const retryAfter =
      parseRetryAfter(init.retryAfterHeader) ?? nonNegative(status.details?.retryAfterSeconds);
    super(apiErrorMessage(init, status, code, reason, url, retryAfter));
    this.code = code;
    this.reason = reason;
    this.status = status;
    this.details = status.details;
    this.verb = init.target.verb;
    this.url = url;
    this.method = init.method;
    this.target = init.target;
    this.retryAfterSeconds = retryAfter;
  }
}

/** Which transport step failed. */
export type TransportFailure = 'network' | 'tls' | 'timeout' | 'body-too-large' | 'protocol';

/**
 * No usable answer from the API server: connection refused or reset, DNS, TLS verification, a
 * timeout, a body over the size limit, or a response that is not what the API promises.
 *
 * ## Example
 * ```ts
 * if (e instanceof KubeTransportError && e.failure === 'tls') console.error(e.message);
 * ```
 */
export class KubeTransportError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'KubeTransportError' as const;
  override readonly name = 'KubeTransportError';
  readonly url: string;
  readonly method: string;
  /** Which step failed. */
  readonly failure: TransportFailure;
  /** Node's error code (`ECONNREFUSED`, `CERT_HAS_EXPIRED`, …), when there is one. */
  readonly errorCode: string | undefined;
  /** The underlying error. */
  override readonly cause: unknown;

  /**
   * @param method HTTP method.  @param url request URL (user info is stripped).
   * @param failure the step that failed.  @param cause the underlying error.
   * @param detail what happened, when `cause` does not say it.
   */
  constructor(method: string, url: string, failure: TransportFailure, cause: unknown, detail?: string) {
    const safeUrl = redactUrl(url);
    const errorCode = errorCodeOf(cause);
    const what = detail ?? (cause instanceof Error ? cause.message : String(cause));
    super(
      `${method} ${safeUrl} failed (${failure}${errorCode ? ` ${errorCode}` : ''}): ${what}. ` +
        transportHint(failure, safeUrl, errorCode),
    );
    this.url = safeUrl;
    this.method = method;
    this.failure = failure;
    this.errorCode = errorCode;
    this.cause = cause;
  }
}

/**
 * The kubeconfig cannot be used: no current context, a context naming a missing cluster, a bad
 * server URL, or a credential plugin (exec, OIDC, token file) that failed.
 *
 * ## Example
 * ```ts
 * try { KubeClient.default(); } catch (e) { if (e instanceof KubeConfigError) process.exit(2); }
 * ```
 */
export class KubeConfigError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'KubeConfigError' as const;
  override readonly name = 'KubeConfigError';
  override readonly cause: unknown;

  /** @param message what is wrong and what to change.  @param cause the underlying error. */
  constructor(message: string, cause?: unknown) {
    super(message);
    this.cause = cause;
  }
}

/**
 * Discovery does not know this apiVersion/kind: the group-version is not served, or it has no
 * such kind (typically a CRD that is not installed yet).
 *
 * ## Example
 * ```ts
 * await client.discovery.resolve({ apiVersion: 'example.com/v1', kind: 'Widget' });
 * // ResourceNotFoundError: kind "Widget" of apiVersion "example.com/v1" is not served …
 * ```
 */
export class ResourceNotFoundError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'ResourceNotFoundError' as const;
  override readonly name = 'ResourceNotFoundError';
  readonly apiVersion: string;
  readonly kind: string;

  /**
   * @param apiVersion the apiVersion asked for.  @param kind the kind asked for.
   * @param why what discovery found instead.
   */
  constructor(apiVersion: string, kind: string, why: string) {
    super(
      `kind "${kind}" of apiVersion "${apiVersion}" is not served by the API server (${why}). ` +
        'Is the CRD installed? Check `kubectl api-resources --api-group=' +
        `${apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : "''"}\` and the spelling of apiVersion and kind.`,
    );
    this.apiVersion = apiVersion;
    this.kind = kind;
  }
}

// ---------------------------------------------------------------------------------------------
// Guards (client-go apierrors words)

function apiError(e: unknown): KubeApiError | undefined {
  return e instanceof KubeApiError ||
    (e !== null && typeof e === 'object' && (e as { _tag?: unknown })._tag === 'KubeApiError')
    ? (e as KubeApiError)
    : undefined;
}

/**
 * True for a {@link KubeApiError}.
 *
 * ## Example
 * ```ts
 * if (isKubeApiError(e)) console.log(e.code, e.reason);
 * ```
 */
export function isKubeApiError(e: unknown): e is KubeApiError {
  return apiError(e) !== undefined;
}

/**
 * 404 `NotFound`: the object (or the resource) does not exist.
 *
 * ## Example
 * ```ts
 * const cm = await client.get(ref).catch((e) => (isNotFound(e) ? undefined : Promise.reject(e)));
 * ```
 */
export function isNotFound(e: unknown): e is KubeApiError {
  return apiError(e)?.reason === 'NotFound';
}

/**
 * 409 `Conflict`: a stale resourceVersion, a precondition, or a server-side apply field conflict.
 *
 * ## Example
 * ```ts
 * if (isConflict(e)) return requeue(0); // re-read and try again
 * ```
 */
export function isConflict(e: unknown): e is KubeApiError {
  return apiError(e)?.reason === 'Conflict';
}

/**
 * 409 `AlreadyExists`: create of a name that is taken.
 *
 * ## Example
 * ```ts
 * await client.create(cm).catch((e) => { if (!isAlreadyExists(e)) throw e; });
 * ```
 */
export function isAlreadyExists(e: unknown): e is KubeApiError {
  return apiError(e)?.reason === 'AlreadyExists';
}

/**
 * 410 `Gone` / `Expired`: a resourceVersion or continue token too old — relist.
 *
 * ## Example
 * ```ts
 * if (isGone(e)) relist();
 * ```
 */
export function isGone(e: unknown): e is KubeApiError {
  const a = apiError(e);
  return a !== undefined && (a.code === 410 || a.reason === 'Expired' || a.reason === 'Gone');
}

/**
 * Why a 403 `Forbidden` was answered: RBAC did not allow the request (`rbac`), the namespace is
 * being deleted so nothing new can be created in it (`namespace-terminating`), an admission webhook
 * denied it (`webhook`), a ResourceQuota is exhausted (`quota`), or another admission plugin refused
 * the object (`admission`: PodSecurity, LimitRange, …). Only `rbac` is fixed by granting permissions.
 */
export type ForbiddenCause = 'rbac' | 'namespace-terminating' | 'webhook' | 'quota' | 'admission';

/**
 * The cause of a 403 (see {@link ForbiddenCause}), read from its `StatusCause`s and message as
 * kube-apiserver sends them; `undefined` for any other error.
 *
 * ## Example
 * ```ts
 * if (forbiddenCause(e) === 'namespace-terminating') return; // the namespace is going away
 * ```
 */
export function forbiddenCause(e: unknown): ForbiddenCause | undefined {
  const err = apiError(e);
  if (err === undefined || (err.reason !== 'Forbidden' && err.code !== 403)) return undefined;
  return classifyForbidden(err.status);
}

/**
 * A write refused because its namespace is being deleted (403 with cause `NamespaceTerminating`,
 * kube-apiserver's NamespaceLifecycle admission).
 *
 * ## Example
 * ```ts
 * catchError((e) => (isNamespaceTerminating(e) ? EMPTY : throwError(() => e)))
 * ```
 */
export function isNamespaceTerminating(e: unknown): e is KubeApiError {
  return forbiddenCause(e) === 'namespace-terminating';
}

function classifyForbidden(status: Status): ForbiddenCause {
  const message = status.message ?? '';
  if (
    (status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating') ||
    /because it is being terminated/.test(message)
  ) {
    return 'namespace-terminating';
  }
  if (/admission webhook "[^"]*" denied the request/.test(message)) return 'webhook';
  if (/exceeded quota/.test(message)) return 'quota';
  // The authorizer's words: `User "x" cannot list resource "pods" …` / `cannot get path "/x"`.
  if (/\bcannot [a-z]+ (resource|path)\b/.test(message) || /forbidden: User "/.test(message)) return 'rbac';
  // A bare "forbidden" says nothing more: most likely RBAC (an authorizer without a reason).
  const explanation = message.replace(/^.*? is forbidden:\s*/, '').trim();
  return explanation === '' || /^forbidden\.?$/i.test(explanation) ? 'rbac' : 'admission';
}

/**
 * 403 `Forbidden`: the request was refused — by RBAC, or by admission (a terminating namespace, a
 * webhook, a quota): see {@link forbiddenCause}; the message says which, and what to do.
 *
 * ## Example
 * ```ts
 * if (isForbidden(e)) log.error(e.message);
 * ```
 */
export function isForbidden(e: unknown): e is KubeApiError {
  return apiError(e)?.reason === 'Forbidden';
}

/**
 * 401 `Unauthorized`: the credentials were rejected (expired token? wrong certificate?).
 *
 * ## Example
 * ```ts
 * if (isUnauthorized(e)) log.error('check the kubeconfig user', e.message);
 * ```
 */
export function isUnauthorized(e: unknown): e is KubeApiError {
  return apiError(e)?.reason === 'Unauthorized';
}

/**
 * 422 `Invalid`: validation failed; `details.causes` lists the fields.
 *
 * ## Example
 * ```ts
 * if (isInvalid(e)) console.log(e.details?.causes?.map((c) => c.field));
 * ```
 */
export function isInvalid(e: unknown): e is KubeApiError {
  return apiError(e)?.reason === 'Invalid';
}

/**
 * 429 `TooManyRequests` (API Priority and Fairness): wait {@link retryAfterSeconds} and retry.
 *
 * ## Example
 * ```ts
 * if (isTooManyRequests(e)) return requeue((retryAfterSeconds(e) ?? 1) * 1000);
 * ```
 */
export function isTooManyRequests(e: unknown): e is KubeApiError {
  const a = apiError(e);
  return a !== undefined && (a.code === 429 || a.reason === 'TooManyRequests');
}

/**
 * Seconds the server asked to wait (`Retry-After` header or `details.retryAfterSeconds`), if any.
 *
 * ## Example
 * ```ts
 * const wait = retryAfterSeconds(e) ?? 1;
 * ```
 */
export function retryAfterSeconds(e: unknown): number | undefined {
  return apiError(e)?.retryAfterSeconds;
}

// ---------------------------------------------------------------------------------------------
// Parsing (used by the transport; not exported from the package)

/**
 * Parses an error response body into a `metav1.Status` when it is one (JSON with `kind: Status`
 * or the Status fields); undefined otherwise.
 */
export function parseStatus(text: string): Status | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{')) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const v = value as Record<string, unknown>;
  const looksLikeStatus =
    v['kind'] === 'Status' || (typeof v['status'] === 'string' && ('code' in v || 'reason' in v));
  if (!looksLikeStatus) return undefined;
  const details = v['details'];
  return {
    kind: 'Status',
    apiVersion: typeof v['apiVersion'] === 'string' ? v['apiVersion'] : 'v1',
    metadata: isRecord(v['metadata']) ? v['metadata'] : {},
    ...(typeof v['status'] === 'string' ? { status: v['status'] } : {}),
    ...(typeof v['message'] === 'string' ? { message: v['message'] } : {}),
    ...(typeof v['reason'] === 'string' ? { reason: v['reason'] } : {}),
    ...(isRecord(details) ? { details: details } : {}),
    ...(typeof v['code'] === 'number' ? { code: v['code'] } : {}),
  };
}

/** The reason client-go derives from an HTTP status code (`Unknown` when it has none). */
export function reasonForCode(code: number): string {
  return REASON_BY_CODE[code] ?? (code >= 500 ? 'InternalError' : 'Unknown');
}

/** A URL as text without user info (never print `https://user:password@host`). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.username === '' && u.password === '') return url;
    u.username = '';
    u.password = '';
    return u.toString();
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//');
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function synthesiseStatus(code: number, text: string | undefined): Status {
  const message = clip((text ?? '').trim()) || `HTTP ${code} with an empty body`;
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason: reasonForCode(code),
    code,
  };
}

function clip(s: string): string {
  return s.length > MAX_MESSAGE_CHARS ? `${s.slice(0, MAX_MESSAGE_CHARS)}… (${s.length} chars)` : s;
}

function nonNegative(n: unknown): number | undefined {
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : undefined;
}

function parseRetryAfter(header: string | undefined): number | undefined {
  if (header === undefined) return undefined;
  const t = header.trim();
  // Kubernetes sends delta-seconds; HTTP-dates are not used by the API server.
  return /^\d+$/.test(t) ? Number(t) : undefined;
}

/** `widgets.example.com`, `configmaps`, `deployments.apps/status`. */
function resourceName(target: RequestTarget): string {
  const resource = target.resource ?? 'the resource';
  const slash = resource.indexOf('/');
  const plural = slash < 0 ? resource : resource.slice(0, slash);
  const sub = slash < 0 ? '' : resource.slice(slash);
  return `${target.group ? `${plural}.${target.group}` : plural}${sub}`;
}

function where(target: RequestTarget): string {
  return target.namespace ? `in namespace "${target.namespace}"` : 'cluster-wide';
}

function apiErrorMessage(
  init: KubeApiErrorInit,
  status: Status,
  code: number,
  reason: string,
  url: string,
  retryAfter: number | undefined,
): string {
  const t = init.target;
  const server = clip(status.message ?? '') || '(no message)';
  const request = `${init.method} ${url}`;
  const object = `${resourceName(t)}${t.name ? ` "${t.name}"` : ''} ${where(t)}`;
  switch (reason) {
    case 'Forbidden':
      return forbiddenMessage(classifyForbidden(status), t, server, object, `[${code} ${request}]`);
    case 'Unauthorized':
      return (
        `unauthorized: the API server rejected the credentials while trying to "${t.verb}" ${object} ` +
        `(server: ${server}). Check the kubeconfig user: an expired token, a wrong client ` +
        `certificate or a failing exec/OIDC plugin. [${code} ${request}]`
      );
    case 'TooManyRequests':
      return (
        `too many requests: the API server throttled "${t.verb}" ${object} (server: ${server}); ` +
        `retry after ${retryAfter ?? 1} s. [${code} ${request}]`
      );
    default:
      break;
  }
  const hint =
    code === 404 && (init.text !== undefined || !t.name)
      ? ' The resource is not served at this path: is the CRD installed and the apiVersion right?'
      : code === 410 || reason === 'Expired'
        ? ' The resourceVersion or continue token is too old: list again.'
        : reason === 'Invalid' && status.details?.causes?.length
          ? ` Causes: ${status.details.causes.map((c) => `${c.field ?? '?'}: ${c.message ?? c.reason ?? ''}`).join('; ')}.`
          : '';
  return `${t.verb} ${object} failed: ${code} ${reason}: ${server}.${hint} [${request}]`;
}

function forbiddenMessage(
  cause: ForbiddenCause,
  t: RequestTarget,
  server: string,
  object: string,
  request: string,
): string {
  switch (cause) {
    case 'rbac':
      return (
        `forbidden: rxkube needs RBAC permission to "${t.verb}" "${resourceName(t)}" ${where(t)} ` +
        `(server: ${server}). Grant it with a ${t.namespace ? 'Role' : 'ClusterRole'} rule ` +
        `{ apiGroups: ["${t.group ?? ''}"], resources: ["${t.resource ?? ''}"], verbs: ["${t.verb}"] } ` +
        `bound to the identity in the kubeconfig. ${request}`
      );
    case 'namespace-terminating':
      return (
        `forbidden: namespace "${t.namespace ?? '?'}" is being deleted, so "${t.verb}" of ${object} is refused ` +
        `(server: ${server}). This is not an RBAC problem: nothing new can be created in a terminating ` +
        `namespace; write elsewhere, or treat the work there as done (a finalizer cleanup does). ${request}`
      );
    case 'webhook':
      return (
        `forbidden: an admission webhook denied "${t.verb}" of ${object} (server: ${server}). ` +
        `This is not an RBAC problem: change the object to satisfy the webhook's policy, or ask the ` +
        `webhook's owners (kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations). ${request}`
      );
    case 'quota':
      return (
        `forbidden: a ResourceQuota ${where(t)} refused "${t.verb}" of ${object} (server: ${server}). ` +
        `This is not an RBAC problem: raise the quota (kubectl describe resourcequota) or request less. ${request}`
      );
    case 'admission':
      return (
        `forbidden: admission refused "${t.verb}" of ${object} (server: ${server}). This is not an RBAC ` +
        `problem: change the object to satisfy the policy the server names (PodSecurity, LimitRange, …). ${request}`
      );
  }
}

function errorCodeOf(cause: unknown): string | undefined {
  if (cause !== null && typeof cause === 'object') {
    const c = (cause as { code?: unknown }).code;
    if (typeof c === 'string') return c;
  }
  return undefined;
}

function transportHint(failure: TransportFailure, url: string, errorCode: string | undefined): string {
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // keep the text as is
  }
  switch (failure) {
    case 'tls':
      return (
        `TLS verification of ${origin} failed: check the cluster's certificate-authority(-data) and ` +
        'tls-server-name in the kubeconfig (insecure-skip-tls-verify disables the check; do not use it in production).'
      );
    case 'timeout':
      return `No answer from ${origin} in time: is the API server reachable and healthy (try /readyz)?`;
    case 'body-too-large':
      return 'Lower the list page size (limit) or raise maxResponseBytes.';
    case 'protocol':
      return `${origin} did not answer like a Kubernetes API server: check the server URL of the kubeconfig's cluster.`;
    case 'network':
      return errorCode === 'ENOTFOUND' || errorCode === 'EAI_AGAIN'
        ? `The host of ${origin} does not resolve: check the server URL of the kubeconfig's current context.`
        : `Is the API server reachable at ${origin}? Check the kubeconfig's current context and cluster server, ` +
            'and any proxy or firewall in between.';
  }
}
