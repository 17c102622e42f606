/**
 * The typed errors of `@rxkube/cel`: an expression that does not compile, and an expression this
 * package cannot evaluate as Kubernetes would (it fails closed instead of passing).
 *
 * @module
 */

/**
 * Thrown when a CEL expression (a CRD `x-kubernetes-validations` rule, a `messageExpression` or a
 * ValidatingAdmissionPolicy expression) does not parse or type-check. kube-apiserver refuses such a
 * CRD or policy when it is written; fix the expression.
 *
 * ## Example
 * ```ts
 * import { CelCompileError, compileValidations } from '@rxkube/cel';
 *
 * try {
 *   compileValidations({
 *     spec: {
 *       group: 'example.com',
 *       names: { kind: 'Widget', plural: 'widgets' },
 *       versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-validations': [{ rule: 'self.' }] } } }],
 *     },
 *   });
 * } catch (e) {
 *   if (e instanceof CelCompileError) console.error(e.expression, e.message);
 * }
 * ```
 */
export class CelCompileError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'CelCompileError' as const;
  override readonly name = 'CelCompileError';
  /** The expression that did not compile. */
  readonly expression: string;
  /** Where it was declared, e.g. `spec.versions[0].schema.openAPIV3Schema.properties[spec]`. */
  readonly path: string;
  /** What the compiler said, e.g. `Unexpected end of input`. */
  readonly reason: string;

  /** @param expression the source.  @param path where it is declared.  @param reason what the compiler said. */
  constructor(expression: string, path: string, reason: string) {
    super(`${path}: compilation failed for ${JSON.stringify(expression)}: ${reason}`);
    this.expression = expression;
    this.path = path;
    this.reason = reason;
  }
}

/**
 * Thrown when an expression needs something this package does not evaluate as Kubernetes does
 * (an `authorizer` check without an authorizer, a regular expression RE2 would refuse, a library
 * function not implemented). The evaluation fails closed: never a silent pass.
 *
 * ## Example
 * ```ts
 * import { CelUnsupportedError, evaluatePolicy } from '@rxkube/cel';
 *
 * try {
 *   evaluatePolicy(
 *     { metadata: { name: 'p' }, spec: { validations: [{ expression: "authorizer.path('/healthz').check('get').allowed()" }] } },
 *     { operation: 'CREATE', object: {} },
 *   );
 * } catch (e) {
 *   if (e instanceof CelUnsupportedError) console.error(e.feature, e.message);
 * }
 * ```
 */
export class CelUnsupportedError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'CelUnsupportedError' as const;
  override readonly name = 'CelUnsupportedError';
  /** What is not supported, e.g. `authorizer`, `regex lookahead`. */
  readonly feature: string;

  /** @param feature what is missing.  @param advice what to do instead. */
  constructor(feature: string, advice: string) {
    super(`@rxkube/cel cannot evaluate ${feature} as Kubernetes does: ${advice}`);
    this.feature = feature;
  }
}
