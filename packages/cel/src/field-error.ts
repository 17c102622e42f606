/**
 * A field error as kube-apiserver reports it (`k8s.io/apimachinery/pkg/util/validation/field`):
 * the path, the type (a Status cause's `reason`), and the message body, e.g.
 * `spec: Invalid value: "object": failed rule: self.min <= self.max`.
 *
 * @module
 */

/**
 * One field error. `reason` and `message` are the Status cause's; `field` its `field`.
 *
 * ## Example
 * ```ts
 * import { type FieldError, formatFieldError } from '@rxkube/cel';
 *
 * const e: FieldError = { reason: 'FieldValueInvalid', field: 'spec', message: 'Invalid value: "object": failed rule: self.min <= self.max', detail: 'failed rule: self.min <= self.max' };
 * formatFieldError(e); // 'spec: Invalid value: "object": failed rule: self.min <= self.max'
 * ```
 */
export interface FieldError {
  /** `FieldValueInvalid`, `FieldValueForbidden`, `FieldValueRequired`, `FieldValueDuplicate`, `InternalError`. */
  reason:
    | 'FieldValueInvalid'
    | 'FieldValueForbidden'
    | 'FieldValueRequired'
    | 'FieldValueDuplicate'
    | 'InternalError';
  /** The field path, e.g. `spec`, `spec.items[0]`, `spec.labels[a]`; `<nil>` at the root (kube-apiserver 1.24). */
  field: string;
  /** The body kube-apiserver puts in the cause: `Invalid value: "object": <detail>`. */
  message: string;
  /** The rule's message, `failed rule: <rule>`, or the evaluation error. */
  detail: string;
}

/**
 * `<field>: <message>`, the text of one error in a 422 Status message.
 *
 * ## Example
 * ```ts
 * import { formatFieldError } from '@rxkube/cel';
 *
 * formatFieldError({ reason: 'FieldValueRequired', field: 'spec.x', message: 'Required value: x is required', detail: 'x is required' });
 * ```
 */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

/** Go's `%q` of a string (the value of `Invalid value: %q`). */
export function goQuote(s: string): string {
  return JSON.stringify(s).replace(
    /[\u007f-\u009f\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The field error of a failed rule, by its reason (`fieldErrorForReason`). */
export function fieldError(
  field: string,
  type: string,
  detail: string,
  reason = 'FieldValueInvalid',
): FieldError {
  switch (reason) {
    case 'FieldValueForbidden':
      return { reason, field, detail, message: detail ? `Forbidden: ${detail}` : 'Forbidden' };
    case 'FieldValueRequired':
      return { reason, field, detail, message: detail ? `Required value: ${detail}` : 'Required value' };
    case 'FieldValueDuplicate':
      return { reason, field, detail, message: `Duplicate value: ${goQuote(type)}` };
    case 'InternalError':
      return { reason, field, detail, message: `Internal error: ${detail}` };
    default:
      return {
        reason: 'FieldValueInvalid',
        field,
        detail,
        message: `Invalid value: ${goQuote(type)}: ${detail}`,
      };
  }
}
