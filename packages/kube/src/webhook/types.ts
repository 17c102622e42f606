/**
 * The wire types of `admission.k8s.io/v1` AdmissionReview and `apiextensions.k8s.io/v1`
 * ConversionReview, and what handlers return.
 *
 * @module
 */
import type { KubeObject } from '../types.js';

/** `group`, `version`, `kind` (AdmissionRequest's `kind`, `requestKind`). *
 * ## Example
 * ```ts
 * import type { GroupVersionKind } from '@rxkube/kube/webhook';
 * const gvk: GroupVersionKind = { group: 'example.com', version: 'v1', kind: 'Widget' };
 * ```
 */
export interface GroupVersionKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** `group`, `version`, `resource` (AdmissionRequest's `resource`, `requestResource`). *
 * ## Example
 * ```ts
 * import type { GroupVersionResource } from '@rxkube/kube/webhook';
 * const gvr: GroupVersionResource = { group: 'example.com', version: 'v1', resource: 'widgets' };
 * ```
 */
export interface GroupVersionResource {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
}

/** The authenticated user of a request (`authentication.k8s.io/v1` UserInfo). *
 * ## Example
 * ```ts
 * import type { AdmissionUserInfo } from '@rxkube/kube/webhook';
 * const user: AdmissionUserInfo = { username: 'alice', groups: ['system:authenticated'] };
 * ```
 */
export interface AdmissionUserInfo {
  readonly username?: string;
  readonly uid?: string;
  readonly groups?: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The operation an admission request is about. *
 * ## Example
 * ```ts
 * import type { AdmissionOperation } from '@rxkube/kube/webhook';
 * const writes: AdmissionOperation[] = ['CREATE', 'UPDATE'];
 * ```
 */
export type AdmissionOperation = 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';

/**
 * An `admission.k8s.io/v1` AdmissionRequest, typed by the resource: `object` is the object being
 * written (absent for DELETE), `oldObject` the stored one (UPDATE and DELETE).
 *
 * ## Example
 * ```ts
 * import type { AdmissionRequest } from '@rxkube/kube/webhook';
 * import type { KubeObject } from '@rxkube/kube';
 * function who(req: AdmissionRequest<KubeObject>): string {
 *   return `${req.operation} ${req.name} by ${req.userInfo.username ?? 'unknown'}`;
 * }
 * ```
 */
export interface AdmissionRequest<T extends KubeObject = KubeObject> {
  readonly uid: string;
  readonly kind: GroupVersionKind;
  readonly resource: GroupVersionResource;
  readonly subResource?: string;
  readonly requestKind?: GroupVersionKind;
  readonly requestResource?: GroupVersionResource;
  readonly requestSubResource?: string;
  readonly name: string;
  readonly namespace?: string;
  readonly operation: AdmissionOperation;
  readonly userInfo: AdmissionUserInfo;
  readonly object?: T;
  readonly oldObject?: T;
  readonly dryRun?: boolean;
  readonly options?: Readonly<Record<string, unknown>>;
}

/**
 * An `admission.k8s.io/v1` AdmissionResponse as rxkube sends it.
 *
 * ## Example
 * ```ts
 * import type { AdmissionResponse } from '@rxkube/kube/webhook';
 * const denied: AdmissionResponse = { uid: 'u1', allowed: false, status: { code: 403, message: 'no' } };
 * ```
 */
export interface AdmissionResponse {
  readonly uid: string;
  readonly allowed: boolean;
  readonly status?: { readonly code?: number; readonly message?: string; readonly reason?: string };
  readonly warnings?: readonly string[];
  readonly patchType?: 'JSONPatch';
  /** base64 of the RFC 6902 JSON patch. */
  readonly patch?: string;
}

/**
 * An `admission.k8s.io/v1` AdmissionReview: the request the API server sends, the response rxkube
 * returns (same `uid`).
 *
 * ## Example
 * ```ts
 * import type { AdmissionReview } from '@rxkube/kube/webhook';
 * const review: AdmissionReview = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview',
 *   response: { uid: 'u1', allowed: true } };
 * ```
 */
export interface AdmissionReview<T extends KubeObject = KubeObject> {
  readonly apiVersion: 'admission.k8s.io/v1';
  readonly kind: 'AdmissionReview';
  readonly request?: AdmissionRequest<T>;
  readonly response?: AdmissionResponse;
}

/**
 * An `apiextensions.k8s.io/v1` ConversionReview.
 *
 * ## Example
 * ```ts
 * import type { ConversionReview } from '@rxkube/kube/webhook';
 * const review: ConversionReview = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview',
 *   request: { uid: 'u1', desiredAPIVersion: 'example.com/v2', objects: [] } };
 * ```
 */
export interface ConversionReview {
  readonly apiVersion: 'apiextensions.k8s.io/v1';
  readonly kind: 'ConversionReview';
  readonly request?: {
    readonly uid: string;
    readonly desiredAPIVersion: string;
    readonly objects: readonly KubeObject[];
  };
  readonly response?: {
    readonly uid: string;
    readonly convertedObjects: readonly KubeObject[];
    readonly result: { readonly status: 'Success' | 'Failure'; readonly message?: string };
  };
}

/**
 * What a validating handler decides: allowed or not, a message, warnings (shown by kubectl), and
 * for a denial the HTTP code the API server answers with (default 403).
 *
 * ## Example
 * ```ts
 * import type { AdmissionVerdict } from '@rxkube/kube/webhook';
 * const verdict: AdmissionVerdict = { allowed: false, message: 'spec.size must be at most 10' };
 * ```
 */
export interface AdmissionVerdict {
  readonly allowed: boolean;
  readonly message?: string;
  readonly warnings?: readonly string[];
  readonly code?: number;
}

/**
 * An allowed verdict, with warnings kubectl prints.
 *
 * ## Example
 * ```ts
 * import { allowed } from '@rxkube/kube/webhook';
 * const ok = allowed('spec.color is deprecated');
 * ```
 */
export function allowed(...warnings: string[]): AdmissionVerdict {
  return warnings.length === 0 ? { allowed: true } : { allowed: true, warnings };
}

/**
 * A denied verdict: the API server answers the write with `code` (default 403) and
 * `admission webhook "<name>" denied the request: <message>`.
 *
 * ## Example
 * ```ts
 * import { denied } from '@rxkube/kube/webhook';
 * const no = denied('spec.size must be at most 10');
 * ```
 */
export function denied(
  message: string,
  options: { readonly code?: number; readonly warnings?: readonly string[] } = {},
): AdmissionVerdict {
  return { allowed: false, message, ...options };
}
