/**
 * The vocabulary of a failed request: `metav1.Status` (the body of every API error), what a
 * request was about (`RequestTarget`, which names the RBAC rule in a 403), why a 403 was answered
 * (`ForbiddenCause`), why no answer came (`TransportFailure`), and the parsing of an error body
 * into a Status. The errors themselves are in `errors.ts`.
 *
 * @module
 */

import type { Status } from '@rxkube/wire';

// The wire types are @rxkube/wire's, shared with the embedded API server.
export type { Status, StatusCause, StatusDetails } from '@rxkube/wire';

/**
 * What a request was about; names the RBAC rule in a 403 message.
 *
 * ## Example
 * ```ts
 * const target: RequestTarget = { verb: 'list', group: '', resource: 'pods', namespace: 'shop' };
 * await transport.request({ method: 'GET', path: '/api/v1/namespaces/shop/pods', target });
 * ```
 */
export interface RequestTarget {
  /** Kubernetes verb: `get`, `list`, `watch`, `create`, `update`, `patch`, `delete`. */
  readonly verb: string;
  /** API group (`''` for the core group). */
  readonly group?: string;
  /** Resource plural, e.g. `configmaps`, with `/status` for a subresource. */
  readonly resource?: string;
  readonly namespace?: string;
  readonly name?: string;
  /**
   * For a write: the owners its ownerReferences with `blockOwnerDeletion: true` name, resolved
   * through discovery where it could (`resource` is their plural) — what a refusal by
   * OwnerReferencesPermissionEnforcement needs granted.
   */
  readonly blockedOwners?: readonly BlockedOwner[];
}

/**
 * An owner a write's ownerReference blocks deletion of (`blockOwnerDeletion: true`).
 *
 * ## Example
 * ```ts
 * const owner: BlockedOwner = { group: 'example.com', kind: 'Widget', resource: 'widgets', namespaced: true, name: 'w' };
 * ```
 */
export interface BlockedOwner {
  /** API group of the reference's apiVersion (`''` for the core group). */
  readonly group: string;
  readonly kind: string;
  readonly name: string;
  /** The plural, when discovery knows the kind. */
  readonly resource?: string;
  /** Whether the owner's kind is namespaced, when discovery knows it. */
  readonly namespaced?: boolean;
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

/**
 * Which transport step failed.
 *
 * ## Example
 * ```ts
 * if (e instanceof KubeTransportError && e.failure === 'tls') console.error(e.message);
 * ```
 */
export type TransportFailure =
  | 'network'
  | 'tls'
  | 'timeout'
  | 'body-too-large'
  | 'protocol'
  /** The caller's `AbortSignal` cancelled the request (`cause` is the signal's reason). */
  | 'aborted';

/**
 * Why a 403 `Forbidden` was answered, read from kube-apiserver's own words:
 * - `rbac`: the authorizer did not allow the request — grant the verb on the resource it names.
 * - `owner-references`: the OwnerReferencesPermissionEnforcement admission plugin refused the
 *   object's ownerReferences — grant `update` on the owner's `<plural>/finalizers` (a reference with
 *   `blockOwnerDeletion: true`) or `delete` on the object itself (ownerReferences changed by an
 *   update). A grant fixes it.
 * - `escalation`: RBAC's escalation check refused a Role or binding granting permissions the writer
 *   does not hold — grant `bind` on the referenced role (a binding) or `escalate` (a role), or the
 *   permissions themselves. A grant fixes it.
 * - `namespace-terminating`: the namespace is being deleted, nothing new can be created in it.
 * - `webhook`: an admission webhook denied it. - `quota`: a ResourceQuota is exhausted.
 * - `admission`: another admission plugin refused the object (PodSecurity, LimitRange, …).
 *
 * `rbac`, `owner-references` and `escalation` are fixed by granting permissions (the error's
 * message names the rule); the others are not.
 *
 * ## Example
 * ```ts
 * const cause: ForbiddenCause | undefined = forbiddenCause(e);
 * if (cause === 'rbac') console.error('grant the verb this message names to the service account');
 * ```
 */
export type ForbiddenCause =
  'rbac' | 'owner-references' | 'escalation' | 'namespace-terminating' | 'webhook' | 'quota' | 'admission';

/**
 * `plugin/pkg/admission/gc/gc_admission.go` (v1.24): a new blocking reference needs `update` on the
 * owner's finalizers; changing references on an update needs `delete` on the object.
 */
export const OWNER_FINALIZERS_REFUSAL =
  "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on";
/** `gc_admission.go`: ownerReferences changed by an update without `delete` on the object. */
export const OWNER_DELETE_REFUSAL = "cannot set an ownerRef on a resource you can't delete";
/** `pkg/registry/rbac/validation/rule.go` `ConfirmNoEscalation`. */
const ESCALATION = /is attempting to grant RBAC permissions not currently held/;

/** The cause of a 403 read from its Status: its `StatusCause`s and message as kube-apiserver sends them. */
export function classifyForbidden(status: Status): ForbiddenCause {
  const message = status.message ?? '';
  if (
    (status.details?.causes ?? []).some((c) => c.reason === 'NamespaceTerminating') ||
    /because it is being terminated/.test(message)
  ) {
    return 'namespace-terminating';
  }
  if (/admission webhook "[^"]*" denied the request/.test(message)) return 'webhook';
  if (message.includes(OWNER_FINALIZERS_REFUSAL) || message.includes(OWNER_DELETE_REFUSAL)) {
    return 'owner-references';
  }
  if (ESCALATION.test(message)) return 'escalation';
  // plugin/pkg/admission/resourcequota: "exceeded quota: …", "status unknown for quota: …"
  if (/exceeded quota|status unknown for quota/.test(message)) return 'quota';
  // The authorizer's words: `User "x" cannot list resource "pods" …` / `cannot get path "/x"`.
  if (/\bcannot [a-z]+ (resource|path)\b/.test(message) || /forbidden: User "/.test(message)) return 'rbac';
  // A bare "forbidden" says nothing more: most likely RBAC (an authorizer without a reason).
  const explanation = message.replace(/^.*? is forbidden:\s*/, '').trim();
  return explanation === '' || /^forbidden\.?$/i.test(explanation) ? 'rbac' : 'admission';
}

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

/** A Status for an error body that was not one (e.g. the plain-text `404 page not found`). */
export function synthesiseStatus(code: number, text: string | undefined): Status {
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

/** `s`, cut to a length fit for an error message. */
export function clip(s: string): string {
  return s.length > MAX_MESSAGE_CHARS ? `${s.slice(0, MAX_MESSAGE_CHARS)}… (${s.length} chars)` : s;
}
