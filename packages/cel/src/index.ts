/**
 * `@rxkube/cel`: Kubernetes' CEL — CRD `x-kubernetes-validations` and ValidatingAdmissionPolicy
 * expressions evaluated as kube-apiserver does, in a unit test, without a server. The embedded
 * API server of `@rxkube/testing` uses it on every write to a CRD with rules.
 *
 * @module @rxkube/cel
 */
export { CelCompileError, CelUnsupportedError } from './errors.js';
export { type FieldError, formatFieldError } from './field-error.js';
export type { CelSchema, ValidationRule } from './schema.js';
export {
  type CompiledValidations,
  type CompileOptions,
  type CustomResourceDefinitionLike,
  compileValidations,
  validateCustomResource,
} from './crd.js';
export {
  type PolicyDecision,
  type PolicyOptions,
  type PolicyRequest,
  type PolicyViolation,
  type ValidatingAdmissionPolicyLike,
  evaluatePolicy,
} from './policy.js';
export type { AuthorizationCheck, Authorize } from './library/authz.js';
