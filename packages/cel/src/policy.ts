/**
 * ValidatingAdmissionPolicy expressions as kube-apiserver evaluates them
 * (`apiserver/pkg/admission/plugin/policy/validating`): `matchConditions` (all true, else the
 * policy does not apply), `variables` (`variables.<name>`), then each validation with `object`,
 * `oldObject`, `request`, `params`, `namespaceObject`, `variables` and `authorizer`; a false
 * validation denies with its `message`, `messageExpression` or `failed expression: <expr>`, and
 * its `reason` (default `Invalid`). An expression that errors follows `failurePolicy` (default
 * `Fail`: denied).
 *
 * @module
 */
import { celGoMessage, compileExpression, type Program } from './environment.js';
import { CelCompileError, CelUnsupportedError } from './errors.js';
import { type Authorize, Authorizer } from './library/authz.js';
import { toCelUntyped } from './schema.js';

/**
 * A ValidatingAdmissionPolicy (`admissionregistration.k8s.io/v1`), as far as evaluation goes.
 *
 * ## Example
 * ```ts
 * import type { ValidatingAdmissionPolicyLike } from '@rxkube/cel';
 *
 * const vap: ValidatingAdmissionPolicyLike = {
 *   metadata: { name: 'replicas' },
 *   spec: { validations: [{ expression: 'object.spec.replicas <= 5', reason: 'Forbidden' }] },
 * };
 * ```
 */
export interface ValidatingAdmissionPolicyLike {
  metadata: { name: string };
  spec: {
    failurePolicy?: 'Fail' | 'Ignore';
    matchConditions?: readonly { name: string; expression: string }[];
    variables?: readonly { name: string; expression: string }[];
    validations?: readonly {
      expression: string;
      message?: string;
      messageExpression?: string;
      reason?: string;
    }[];
  };
}

/**
 * What the policy sees of an admission request.
 *
 * ## Example
 * ```ts
 * import type { PolicyRequest } from '@rxkube/cel';
 *
 * const request: PolicyRequest = { operation: 'CREATE', object: { spec: { replicas: 3 } }, userInfo: { username: 'alice' } };
 * ```
 */
export interface PolicyRequest {
  /** `CREATE`, `UPDATE`, `DELETE` or `CONNECT`. */
  operation: string;
  /** The object (null for DELETE). */
  object?: unknown;
  /** The old object (null for CREATE). */
  oldObject?: unknown;
  /** The rest of the AdmissionRequest (`userInfo`, `namespace`, `name`, `kind`, `resource`, `dryRun`, …). */
  [field: string]: unknown;
}

/**
 * Evaluation inputs besides the request.
 *
 * ## Example
 * ```ts
 * import type { PolicyOptions } from '@rxkube/cel';
 *
 * const options: PolicyOptions = { params: { data: { max: '5' } }, namespaceObject: { metadata: { name: 'default' } } };
 * ```
 */
export interface PolicyOptions {
  /** The binding's parameter resource (`params`), null when none. */
  params?: unknown;
  /** The request namespace's Namespace object (`namespaceObject`). */
  namespaceObject?: unknown;
  /** Decides `authorizer` checks; without it they throw {@link CelUnsupportedError}. */
  authorizer?: Authorize;
}

/**
 * One failed validation.
 *
 * ## Example
 * ```ts
 * import type { PolicyViolation } from '@rxkube/cel';
 *
 * const v: PolicyViolation = { expression: 'object.spec.replicas <= 5', message: 'failed expression: object.spec.replicas <= 5', reason: 'Invalid' };
 * ```
 */
export interface PolicyViolation {
  /** The validation's expression. */
  expression: string;
  /** The message, as it appears after `denied request: `. */
  message: string;
  /** The Status reason: `Invalid` (422), `Forbidden` (403), `Unauthorized`, `RequestEntityTooLarge`. */
  reason: string;
}

/**
 * The verdict of a policy on a request.
 *
 * ## Example
 * ```ts
 * import type { PolicyDecision } from '@rxkube/cel';
 *
 * const d: PolicyDecision = { matched: true, allowed: false, violations: [{ expression: 'false', message: 'no', reason: 'Invalid' }] };
 * ```
 */
export interface PolicyDecision {
  /** False when a match condition was false: the policy does not apply. */
  matched: boolean;
  /** True when every validation held (or the policy did not apply). */
  allowed: boolean;
  /** The failed validations, in order. */
  violations: PolicyViolation[];
  /**
   * When denied, the message kube-apiserver answers with (without a binding):
   * `ValidatingAdmissionPolicy '<name>' denied request: <first violation's message>`.
   */
  message?: string;
}

const compiled = (expression: string, where: string): Program => {
  const p = compileExpression(expression, 'policy');
  if (typeof p === 'string') throw new CelCompileError(expression, where, p);
  return p;
};

/**
 * Evaluates a ValidatingAdmissionPolicy on one request.
 *
 * ## Example
 * ```ts
 * import { evaluatePolicy } from '@rxkube/cel';
 *
 * const decision = evaluatePolicy(
 *   { metadata: { name: 'max-replicas' }, spec: { validations: [{ expression: 'object.spec.replicas <= 5', message: 'at most 5 replicas', reason: 'Forbidden' }] } },
 *   { operation: 'CREATE', object: { spec: { replicas: 7 } } },
 * );
 * // { matched: true, allowed: false, violations: [{ message: 'at most 5 replicas', reason: 'Forbidden', ... }] }
 * ```
 *
 * @throws CelCompileError when an expression does not compile; CelUnsupportedError for an
 * `authorizer` check without `options.authorizer`.
 */
export function evaluatePolicy(
  vap: ValidatingAdmissionPolicyLike,
  request: PolicyRequest,
  options: PolicyOptions = {},
): PolicyDecision {
  const spec = vap.spec;
  const failClosed = spec.failurePolicy !== 'Ignore';
  const userInfo = request['userInfo'] as { username?: string } | undefined;
  const variables: Record<string, unknown> = {};
  const activation: Record<string, unknown> = {
    object: toCelUntyped(request.object ?? null),
    oldObject: toCelUntyped(request.oldObject ?? null),
    request: toCelUntyped(request),
    params: toCelUntyped(options.params ?? null),
    namespaceObject: toCelUntyped(options.namespaceObject ?? null),
    authorizer: new Authorizer(options.authorizer, userInfo?.username),
    variables,
  };
  const run = (p: Program, withAuthorizer = true): { value: unknown } | { error: string } => {
    try {
      return {
        value: p(
          withAuthorizer ? activation : { ...activation, authorizer: new Authorizer(undefined, undefined) },
        ),
      };
    } catch (e) {
      if (e instanceof CelUnsupportedError) throw e;
      const m = celGoMessage(e);
      if (m === undefined) throw e;
      return { error: m };
    }
  };
  const where = (k: string, i: number): string =>
    `ValidatingAdmissionPolicy ${vap.metadata.name} spec.${k}[${i}]`;
  for (const [i, mc] of (spec.matchConditions ?? []).entries()) {
    const r = run(compiled(mc.expression, where('matchConditions', i)));
    if ('error' in r) {
      if (!failClosed) return { matched: true, allowed: true, violations: [] };
      const message = `failed to evaluate match condition ${JSON.stringify(mc.name)}: ${r.error}`;
      return {
        matched: true,
        allowed: false,
        violations: [{ expression: mc.expression, message, reason: 'Invalid' }],
        message: `ValidatingAdmissionPolicy '${vap.metadata.name}' denied request: ${message}`,
      };
    }
    if (r.value !== true) return { matched: false, allowed: true, violations: [] };
  }
  for (const [i, v] of (spec.variables ?? []).entries()) {
    const r = run(compiled(v.expression, where('variables', i)));
    // an erroring variable fails the validations that read it: leave it unset
    if ('value' in r) variables[v.name] = r.value;
  }
  const violations: PolicyViolation[] = [];
  for (const [i, v] of (spec.validations ?? []).entries()) {
    const r = run(compiled(v.expression, where('validations', i)));
    const reason = v.reason ?? 'Invalid';
    if ('error' in r) {
      if (failClosed)
        violations.push({
          expression: v.expression,
          message: `expression '${v.expression}' resulted in error: ${r.error}`,
          reason,
        });
      continue;
    }
    if (r.value === true) continue;
    // messageExpression (trimmed, one line, ≤ 5000 bytes; no authorizer), else message, else the expression
    let message = '';
    if (v.messageExpression !== undefined) {
      const m = run(compiled(v.messageExpression, where('validations', i)), false);
      if ('value' in m && typeof m.value === 'string') {
        message = m.value.trim();
        if (message.includes('\n') || Buffer.byteLength(message) > 5000) message = '';
      }
    }
    if (message === '') message = (v.message ?? '').trim();
    if (message === '') message = `failed expression: ${v.expression.trim()}`;
    violations.push({ expression: v.expression, message, reason });
  }
  const first = violations[0];
  return {
    matched: true,
    allowed: violations.length === 0,
    violations,
    ...(first
      ? { message: `ValidatingAdmissionPolicy '${vap.metadata.name}' denied request: ${first.message}` }
      : {}),
  };
}
