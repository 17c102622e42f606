/**
 * `metav1.Status` bodies shaped exactly like kube-apiserver v1.24's (key order included), and the
 * {@link ApiError} that carries one from a handler to the HTTP layer.
 *
 * Naming rules (see packages/testing/fixtures/kube-wire/README.md): `details.kind` is the resource
 * (`configmaps`) for NotFound, AlreadyExists, update conflicts, Forbidden and delete results, the
 * Kind for `Invalid` and for DELETE precondition conflicts. Messages name objects as
 * `<resource>[.<group>] "<name>"`.
 *
 * @module
 */

import type { StatusCause, StatusDetails } from '@rxkube/wire';

// The wire types are @rxkube/wire's, shared with the client (@rxkube/kube).
export type { StatusCause, StatusDetails } from '@rxkube/wire';

/**
 * A `metav1.Status` as sent on the wire.
 *
 * ## Example
 * ```ts
 * const res = await fetch(`${server.url}/api/v1/namespaces/default/configmaps/missing`);
 * const status = (await res.json()) as StatusBody; // { kind: 'Status', code: 404, reason: 'NotFound', … }
 * ```
 */
export interface StatusBody {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: { continue?: string };
  status: 'Failure' | 'Success';
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code?: number;
}

/** What a Status message names: a resource, optionally in a group. */
export interface ResourceName {
  /** API group, '' for core. */
  readonly group: string;
  /** Lower-case plural, e.g. `configmaps`. */
  readonly resource: string;
}

/**
 * An error answered as a `metav1.Status` with its HTTP code.
 *
 * ## Example
 * ```ts
 * throw new ApiError(notFound({ group: '', resource: 'configmaps' }, 'x'));
 * ```
 */
export class ApiError extends Error {
  readonly _tag = 'ApiError';
  /** HTTP status code. */
  readonly code: number;
  constructor(
    readonly status: StatusBody,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(status.message ?? `HTTP ${String(status.code ?? 500)}`);
    this.name = 'ApiError';
    this.code = status.code ?? 500;
  }
}

/** Builds a failure Status with the real key order; `reason`/`details` omitted when undefined. */
export function failure(
  code: number,
  reason: string | undefined,
  message: string,
  details?: StatusDetails,
  metadata: { continue?: string } = {},
): StatusBody {
  const body: StatusBody = { kind: 'Status', apiVersion: 'v1', metadata, status: 'Failure', message };
  if (reason !== undefined) body.reason = reason;
  if (details !== undefined) body.details = orderDetails(details);
  body.code = code;
  return body;
}

function orderDetails(d: StatusDetails): StatusDetails {
  return {
    ...(d.name !== undefined ? { name: d.name } : {}),
    ...(d.group !== undefined && d.group !== '' ? { group: d.group } : {}),
    ...(d.kind !== undefined ? { kind: d.kind } : {}),
    ...(d.uid !== undefined ? { uid: d.uid } : {}),
    ...(d.causes !== undefined ? { causes: d.causes } : {}),
    ...(d.retryAfterSeconds !== undefined ? { retryAfterSeconds: d.retryAfterSeconds } : {}),
  };
}

/** `configmaps` or `leases.coordination.k8s.io`. */
export function qualified(r: ResourceName): string {
  return r.group === '' ? r.resource : `${r.resource}.${r.group}`;
}

/** 404 `configmaps "x" not found`. */
export function notFound(r: ResourceName, name: string): StatusBody {
  return failure(404, 'NotFound', `${qualified(r)} "${name}" not found`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

/** 404 for a path the server does not serve in a known group-version. */
export function genericNotFound(): StatusBody {
  return failure(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** 409 AlreadyExists. */
export function alreadyExists(r: ResourceName, name: string): StatusBody {
  return failure(409, 'AlreadyExists', `${qualified(r)} "${name}" already exists`, {
    name,
    group: r.group,
    kind: r.resource,
  });
}

/** 409 Conflict for a stale resourceVersion. */
export function conflict(r: ResourceName, name: string): StatusBody {
  return failure(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(r)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group: r.group, kind: r.resource },
  );
}

/**
 * 409 for a PUT whose body carries another object's uid: the storage precondition of
 * `GuaranteedUpdate` (`Precondition failed: UID in precondition: …`), with the object's etcd key.
 */
export function uidPreconditionFailed(
  r: ResourceName,
  name: string,
  etcdKey: string,
  given: string,
  actual: string,
): StatusBody {
  return failure(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(r)} "${name}": StorageError: invalid object, Code: 4, Key: ${etcdKey}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${given}, UID in object meta: ${actual}`,
    { name, group: r.group, kind: r.resource },
  );
}

/** 409 for an apply (or create-on-update) naming a uid when no object exists (`handlers/patch.go`). */
export function uidMismatchOnCreate(r: ResourceName, name: string, uid: string): StatusBody {
  return failure(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualified(r)} "${name}": uid mismatch: the provided object specified uid ${uid}, and no existing object was found`,
    { name, group: r.group, kind: r.resource },
  );
}

/** 400 BadRequest (no details). */
export function badRequest(message: string): StatusBody {
  return failure(400, 'BadRequest', message);
}

/** 500 without a reason, as the real server sends for internal errors. */
export function internalError(message: string): StatusBody {
  return failure(500, undefined, message);
}

/** A Kind for messages: `ConfigMap` or `Widget.example.com`. */
export interface KindName {
  readonly group: string;
  readonly kind: string;
}

/** Formats `a: b` or `[a: b, c: d]` the way field.ErrorList.ToAggregate does (identical errors once). */
export function causesMessage(causes: readonly StatusCause[]): string {
  const parts = [
    ...new Set(causes.map((c) => (c.field ? `${c.field}: ${c.message ?? ''}` : (c.message ?? '')))),
  ];
  return parts.length === 1 ? (parts[0] ?? '') : `[${parts.join(', ')}]`;
}

/** 422 Invalid naming the Kind: `ConfigMap "x" is invalid: metadata.name: …`. */
export function invalid(k: KindName, name: string | undefined, causes: readonly StatusCause[]): StatusBody {
  const q = k.group === '' ? k.kind : `${k.kind}.${k.group}`;
  const details: StatusDetails = {
    ...(name !== undefined && name !== '' ? { name } : {}),
    group: k.group,
    kind: k.kind,
    causes: [...causes],
  };
  return failure(422, 'Invalid', `${q} "${name ?? ''}" is invalid: ${causesMessage(causes)}`, details);
}

/** 422 Invalid naming the resource (used by the strategy-level checks, e.g. Lease PUT without RV). */
export function invalidResource(r: ResourceName, name: string, causes: readonly StatusCause[]): StatusBody {
  return failure(422, 'Invalid', `${qualified(r)} "${name}" is invalid: ${causesMessage(causes)}`, {
    name,
    group: r.group,
    kind: r.resource,
    causes: [...causes],
  });
}

/** 422 for invalid request options (`ListOptions.meta.k8s.io "" is invalid: …`). */
export function invalidOptions(kind: string, causes: readonly StatusCause[]): StatusBody {
  return failure(422, 'Invalid', `${kind}.meta.k8s.io "" is invalid: ${causesMessage(causes)}`, {
    group: 'meta.k8s.io',
    kind,
    causes: [...causes],
  });
}

/** 422 with the generic message (failed JSON-patch `test`, bad patch path). */
export function invalidGeneric(): StatusBody {
  return failure(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
}

/** 410 Expired. */
export function expired(message: string, metadata: { continue?: string } = {}): StatusBody {
  return failure(410, 'Expired', message, undefined, metadata);
}

/** The Status of the watch ERROR event for a too-old resourceVersion. */
export function tooOldResourceVersion(requested: number | string, oldest: number): StatusBody {
  return expired(`too old resource version: ${String(requested)} (${String(oldest)})`);
}

/** 415 for an unsupported PATCH Content-Type. */
export function unsupportedMediaType(): StatusBody {
  return failure(415, 'UnsupportedMediaType', '415: Unsupported Media Type', {});
}

/** 415 for a POST/PUT/DELETE body in a media type the server does not decode (`NegotiateInputSerializer`). */
export function unsupportedBodyMediaType(
  accepted = 'application/json, application/yaml, application/vnd.kubernetes.protobuf',
): StatusBody {
  return failure(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted}`,
  );
}

/** 415 for strategic merge on a custom resource. */
export function unsupportedPatchForCustomResource(): StatusBody {
  return failure(
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml',
  );
}

/** 406 for an Accept header the server cannot satisfy. */
export function notAcceptable(): StatusBody {
  return failure(
    406,
    'NotAcceptable',
    'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
  );
}

/** 406 when a metadata-only list was asked for an object, or the reverse (`handlers/response.go`). */
export function notAcceptableShape(requested: string, isList: boolean, goType: string): StatusBody {
  return failure(
    406,
    'NotAcceptable',
    isList
      ? `you requested ${requested}, but the requested object is a list (${goType})`
      : `you requested ${requested}, but the requested object is not a list (${goType})`,
  );
}

/** 405 for a verb the resource does not support. */
export function methodNotAllowed(): StatusBody {
  return failure(
    405,
    'MethodNotAllowed',
    'the server does not allow this method on the requested resource',
    {},
  );
}

/** 405 for a create of a custom resource whose CRD is terminating (apiextensions crdHandler). */
export function crdTerminating(r: ResourceName): StatusBody {
  return failure(
    405,
    'MethodNotAllowed',
    'create not allowed while custom resource definition is terminating',
    {
      group: r.group,
      kind: r.resource,
    },
  );
}

/** 401. */
export function unauthorized(): StatusBody {
  return failure(401, 'Unauthorized', 'Unauthorized');
}

/** 403 from the authorizer. */
export function forbidden(
  user: string,
  verb: string,
  r: ResourceName & { subresource?: string; namespace?: string; name?: string },
): StatusBody {
  const res = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  const subject = r.name ? `${qualified(r)} "${r.name}"` : qualified(r);
  const scope = r.namespace ? `in the namespace "${r.namespace}"` : 'at the cluster scope';
  const details: StatusDetails = { ...(r.name ? { name: r.name } : {}), group: r.group, kind: r.resource };
  return failure(
    403,
    'Forbidden',
    `${subject} is forbidden: User "${user}" cannot ${verb} resource "${res}" in API group "${r.group}" ${scope}`,
    details,
  );
}

/** 403 for a non-resource path. */
export function forbiddenPath(user: string, verb: string, path: string): StatusBody {
  return failure(403, 'Forbidden', `forbidden: User "${user}" cannot ${verb} path "${path}"`, {});
}

/** 403 for a create into a terminating namespace (file 20). */
export function namespaceTerminating(r: ResourceName, name: string, namespace: string): StatusBody {
  return failure(
    403,
    'Forbidden',
    `${qualified(r)} "${name}" is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
    {
      name,
      group: r.group,
      kind: r.resource,
      causes: [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ],
    },
  );
}

/** 429 with Retry-After (API Priority and Fairness). */
export function tooManyRequests(retryAfterSeconds: number): StatusBody {
  return failure(429, 'TooManyRequests', 'Too many requests, please try again later.', {
    retryAfterSeconds,
  });
}

/** 503 ServiceUnavailable. */
export function serviceUnavailable(): StatusBody {
  return failure(503, 'ServiceUnavailable', 'the server is currently unable to handle the request', {});
}

/** 413 for a body over the limit. */
export function requestTooLarge(limit: number): StatusBody {
  return failure(413, 'RequestEntityTooLarge', `Request entity too large: limit is ${String(limit)}`);
}

/** 504 for a list at a resourceVersion the server has not reached (file 08). */
export function resourceVersionTooLarge(requested: number, current: number): StatusBody {
  return failure(
    504,
    'Timeout',
    `Timeout: Too large resource version: ${String(requested)}, current: ${String(current)}`,
    {
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
      retryAfterSeconds: 1,
    },
  );
}

/** A successful DELETE (file 19). */
export function deleteSuccess(r: ResourceName, name: string, uid: string): StatusBody {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: orderDetails({ name, group: r.group, kind: r.resource, uid }),
  };
}
