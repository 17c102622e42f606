/**
 * `metav1.Status` (k8s.io/apimachinery/pkg/apis/meta/v1 `types.go`): the body of every API error
 * and of a successful DELETE, as the client reads it and the embedded API server writes it. Every
 * field but `kind`, `apiVersion` and `metadata` is `omitempty` on the wire.
 *
 * @module
 */

/**
 * `metav1.StatusCause`: one reason of a failure, e.g. a field that failed validation.
 *
 * ## Example
 * ```ts
 * const cause: StatusCause = { reason: 'FieldValueInvalid', message: 'Invalid value: -1', field: 'spec.replicas' };
 * ```
 */
export interface StatusCause {
  readonly reason?: string;
  readonly message?: string;
  readonly field?: string;
}

/**
 * `metav1.StatusDetails`: what the failure is about.
 *
 * ## Example
 * ```ts
 * const details: StatusDetails = { name: 'web', group: 'apps', kind: 'deployments', retryAfterSeconds: 1 };
 * ```
 */
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
