/**
 * Kubernetes' authz library (`library/authz.go`) for ValidatingAdmissionPolicy: `authorizer.path`,
 * `.group().resource().subresource().namespace().name()`, `.check(verb)`, `serviceAccount`, and
 * the decision's `allowed()`, `reason()`, `errored()`, `error()`. Checks go to the
 * {@link Authorize} function the caller gives; without one a check throws
 * {@link CelUnsupportedError} (fails closed).
 *
 * @module
 */
import type { Environment } from '@marcbachmann/cel-js';

import { CelUnsupportedError } from '../errors.js';

/**
 * The attributes of one authorization check, as `authorizer.Attributes`.
 *
 * ## Example
 * ```ts
 * import type { AuthorizationCheck } from '@rxkube/cel';
 *
 * const check: AuthorizationCheck = { verb: 'get', group: '', resource: 'secrets', namespace: 'default', name: 'x' };
 * ```
 */
export interface AuthorizationCheck {
  /** The verb, e.g. `get`. */
  verb: string;
  /** A non-resource path (`authorizer.path(...)`), else absent. */
  path?: string;
  /** API group of a resource check. */
  group?: string;
  /** Resource of a resource check. */
  resource?: string;
  /** Subresource of a resource check. */
  subresource?: string;
  /** Namespace of a resource check. */
  namespace?: string;
  /** Name of a resource check. */
  name?: string;
  /** The user checked: the request's user, or `system:serviceaccount:<ns>:<name>`. */
  user?: string;
}

/**
 * Decides one authorization check (a SubjectAccessReview would). Returns the decision.
 *
 * ## Example
 * ```ts
 * import type { Authorize } from '@rxkube/cel';
 *
 * const authorize: Authorize = (check) => ({ decision: check.verb === 'get' ? 'allow' : 'deny', reason: 'test' });
 * ```
 */
export type Authorize = (check: AuthorizationCheck) => {
  decision: 'allow' | 'deny' | 'noOpinion';
  reason?: string;
  error?: string;
};

/** @internal the `authorizer` value of an evaluation. */
export class Authorizer {
  /** @param authorize the decision function, if any.  @param user the user checked. */
  constructor(
    readonly authorize: Authorize | undefined,
    readonly user: string | undefined,
  ) {}
}

/** @internal `authorizer.path(...)` / `.group(...)` and their refinements. */
export class AuthzCheck {
  /** @param authorizer the authorizer.  @param attrs the attributes so far. */
  constructor(
    readonly authorizer: Authorizer,
    readonly attrs: Omit<AuthorizationCheck, 'verb'>,
  ) {}

  with(attrs: Omit<AuthorizationCheck, 'verb'>): AuthzCheck {
    return new AuthzCheck(this.authorizer, { ...this.attrs, ...attrs });
  }
}

/** @internal the decision. */
export class Decision {
  /** @param allowed allowed.  @param reason reason.  @param error error text. */
  constructor(
    readonly allowed: boolean,
    readonly reason: string,
    readonly error: string,
  ) {}
}

function check(c: AuthzCheck, verb: string): Decision {
  const authorize = c.authorizer.authorize;
  if (!authorize)
    throw new CelUnsupportedError(
      'authorizer checks',
      'pass `authorizer` (a function deciding each check) in the evaluation options',
    );
  const user = c.authorizer.user;
  const d = authorize({ verb, ...c.attrs, ...(user === undefined ? {} : { user }) });
  return new Decision(d.decision === 'allow', d.reason ?? '', d.error ?? '');
}

/** Registers the authz library. */
export function registerAuthz(env: Environment): Environment {
  const A = 'kubernetes.authorization.Authorizer';
  const R = 'kubernetes.authorization.ResourceCheck';
  const D = 'kubernetes.authorization.Decision';
  return env
    .registerType(A, Authorizer)
    .registerType(R, AuthzCheck)
    .registerType(D, Decision)
    .registerFunction(`${A}.path(string): ${R}`, (a: Authorizer, path: string) => new AuthzCheck(a, { path }))
    .registerFunction(
      `${A}.group(string): ${R}`,
      (a: Authorizer, group: string) => new AuthzCheck(a, { group }),
    )
    .registerFunction(
      `${A}.serviceAccount(string, string): ${A}`,
      (a: Authorizer, ns: string, name: string) =>
        new Authorizer(a.authorize, `system:serviceaccount:${ns}:${name}`),
    )
    .registerFunction(`${R}.resource(string): ${R}`, (c: AuthzCheck, resource: string) =>
      c.with({ resource }),
    )
    .registerFunction(`${R}.subresource(string): ${R}`, (c: AuthzCheck, subresource: string) =>
      c.with({ subresource }),
    )
    .registerFunction(`${R}.namespace(string): ${R}`, (c: AuthzCheck, namespace: string) =>
      c.with({ namespace }),
    )
    .registerFunction(`${R}.name(string): ${R}`, (c: AuthzCheck, name: string) => c.with({ name }))
    .registerFunction(`${R}.check(string): ${D}`, (c: AuthzCheck, verb: string) => check(c, verb))
    .registerFunction(`${D}.allowed(): bool`, (d: Decision) => d.allowed)
    .registerFunction(`${D}.reason(): string`, (d: Decision) => d.reason)
    .registerFunction(`${D}.errored(): bool`, (d: Decision) => d.error !== '')
    .registerFunction(`${D}.error(): string`, (d: Decision) => d.error);
}
