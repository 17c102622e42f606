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
import { apiErrorMessage, errorCodeOf, transportHint } from './internal/error-messages.js';
import type { ForbiddenCause, RequestTarget, Status, StatusDetails, TransportFailure } from './status.js';
import { classifyForbidden, reasonForCode, redactUrl, synthesiseStatus } from './status.js';

export type {
  BlockedOwner,
  ForbiddenCause,
  RequestTarget,
  Status,
  StatusCause,
  StatusDetails,
  TransportFailure,
} from './status.js';

/**
 * Everything {@link KubeApiError} is built from.
 *
 * ## Example
 * ```ts
 * const init: KubeApiErrorInit = {
 *   httpStatus: 404,
 *   method: 'GET',
 *   url: 'https://127.0.0.1:6443/api/v1/namespaces/default/configmaps/x',
 *   target: { verb: 'get', resource: 'configmaps', namespace: 'default', name: 'x' },
 *   text: '404 page not found',
 * };
 * isNotFound(new KubeApiError(init)); // true
 * ```
 */
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
 * async function configMapOrUndefined(name: string) {
 *   try {
 *     return await client.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name });
 *   } catch (e) {
 *     if (isNotFound(e)) return undefined;
 *     throw e;
 *   }
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
 * const onError = (e: unknown) => (isConflict(e) ? Action.requeue(0) : Action.requeue(5_000)); // conflict: re-read now
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
 * const relistFromScratch = isGone(e); // the resourceVersion was compacted away
 * ```
 */
export function isGone(e: unknown): e is KubeApiError {
  const a = apiError(e);
  return a !== undefined && (a.code === 410 || a.reason === 'Expired' || a.reason === 'Gone');
}

/**
 * The cause of a 403 (see {@link ForbiddenCause}), read from its `StatusCause`s and message as
 * kube-apiserver sends them; `undefined` for any other error.
 *
 * ## Example
 * ```ts
 * const goingAway = forbiddenCause(e) === 'namespace-terminating'; // the namespace is being deleted
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
 * if (isUnauthorized(e)) log.error({ err: e }, 'check the kubeconfig user');
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
 * const onError = (e: unknown) => (isTooManyRequests(e) ? Action.requeue((retryAfterSeconds(e) ?? 1) * 1000) : undefined);
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
