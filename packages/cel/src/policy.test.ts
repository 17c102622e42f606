/**
 * ValidatingAdmissionPolicy evaluation, by Kubernetes' rules (apiserver/pkg/admission/plugin/
 * policy/validating/validator.go, master; Kubernetes 1.24 has no ValidatingAdmissionPolicy to ask):
 * message precedence (messageExpression, message, `failed expression: <expr>`), the default
 * reason `Invalid`, failurePolicy on errors, matchConditions, variables, params, authorizer.
 */
import { describe, expect, it } from 'vitest';

import { CelCompileError, CelUnsupportedError } from './errors.js';
import { evaluatePolicy, type ValidatingAdmissionPolicyLike } from './policy.js';

const deployment = (replicas: number) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', labels: { env: 'prod' } },
  spec: { replicas },
});
const policy = (spec: ValidatingAdmissionPolicyLike['spec']): ValidatingAdmissionPolicyLike => ({
  metadata: { name: 'replicas' },
  spec,
});

describe('evaluatePolicy', () => {
  it('admits when every validation holds, denies with the first message otherwise', () => {
    const vap = policy({
      validations: [
        { expression: 'object.spec.replicas <= 5' },
        { expression: "has(object.metadata.labels) && 'env' in object.metadata.labels" },
      ],
    });
    expect(evaluatePolicy(vap, { operation: 'CREATE', object: deployment(3) })).toEqual({
      matched: true,
      allowed: true,
      violations: [],
    });
    expect(evaluatePolicy(vap, { operation: 'CREATE', object: deployment(7) })).toEqual({
      matched: true,
      allowed: false,
      violations: [
        {
          expression: 'object.spec.replicas <= 5',
          message: 'failed expression: object.spec.replicas <= 5',
          reason: 'Invalid',
        },
      ],
      message:
        "ValidatingAdmissionPolicy 'replicas' denied request: failed expression: object.spec.replicas <= 5",
    });
  });

  it('messageExpression, then message, then the expression; reason as given', () => {
    const decide = (v: NonNullable<ValidatingAdmissionPolicyLike['spec']['validations']>[number]) =>
      evaluatePolicy(policy({ validations: [v] }), { operation: 'CREATE', object: deployment(7) })
        .violations[0];
    expect(
      decide({
        expression: 'object.spec.replicas <= 5',
        messageExpression: "'replicas ' + string(object.spec.replicas) + ' > 5'",
        message: 'too many',
        reason: 'Forbidden',
      }),
    ).toEqual({
      expression: 'object.spec.replicas <= 5',
      message: 'replicas 7 > 5',
      reason: 'Forbidden',
    });
    // an empty, multi-line or erroring messageExpression falls back to the message
    expect(decide({ expression: 'false', messageExpression: "'  '", message: ' too many ' })?.message).toBe(
      'too many',
    );
    expect(decide({ expression: 'false', messageExpression: "'a\\nb'", message: 'too many' })?.message).toBe(
      'too many',
    );
    expect(
      decide({ expression: 'false', messageExpression: 'object.nope', message: 'too many' })?.message,
    ).toBe('too many');
    expect(decide({ expression: ' false ' })?.message).toBe('failed expression: false');
  });

  it('an expression that errors denies under failurePolicy Fail (the default), admits under Ignore', () => {
    const v = [{ expression: 'object.spec.nope > 1' }];
    expect(
      evaluatePolicy(policy({ validations: v }), { operation: 'CREATE', object: deployment(1) }).violations,
    ).toEqual([
      {
        expression: 'object.spec.nope > 1',
        message: "expression 'object.spec.nope > 1' resulted in error: no such key: nope",
        reason: 'Invalid',
      },
    ]);
    expect(
      evaluatePolicy(policy({ failurePolicy: 'Ignore', validations: v }), {
        operation: 'CREATE',
        object: deployment(1),
      }).allowed,
    ).toBe(true);
  });

  it('matchConditions: a false one means the policy does not apply', () => {
    const vap = policy({
      matchConditions: [{ name: 'prod', expression: "object.metadata.labels['env'] == 'prod'" }],
      validations: [{ expression: 'false' }],
    });
    expect(evaluatePolicy(vap, { operation: 'CREATE', object: deployment(1) }).allowed).toBe(false);
    const dev = { ...deployment(1), metadata: { name: 'web', labels: { env: 'dev' } } };
    expect(evaluatePolicy(vap, { operation: 'CREATE', object: dev })).toEqual({
      matched: false,
      allowed: true,
      violations: [],
    });
  });

  it('variables, params, oldObject, request and namespaceObject', () => {
    const vap = policy({
      variables: [{ name: 'max', expression: 'int(params.data.maxReplicas)' }],
      validations: [
        { expression: 'object.spec.replicas <= variables.max' },
        {
          expression: "request.operation != 'UPDATE' || object.spec.replicas >= oldObject.spec.replicas",
          message: 'no scaling down',
        },
        { expression: "namespaceObject.metadata.name != 'kube-system'" },
        { expression: "request.userInfo.username != 'mallory'" },
      ],
    });
    const params = { data: { maxReplicas: '5' } };
    const ns = { metadata: { name: 'default' } };
    const ok = evaluatePolicy(
      vap,
      {
        operation: 'UPDATE',
        object: deployment(4),
        oldObject: deployment(3),
        userInfo: { username: 'alice' },
      },
      { params, namespaceObject: ns },
    );
    expect(ok.violations).toEqual([]);
    const bad = evaluatePolicy(
      vap,
      {
        operation: 'UPDATE',
        object: deployment(6),
        oldObject: deployment(7),
        userInfo: { username: 'mallory' },
      },
      { params, namespaceObject: { metadata: { name: 'kube-system' } } },
    );
    expect(bad.violations.map((v) => v.message)).toEqual([
      'failed expression: object.spec.replicas <= variables.max',
      'no scaling down',
      "failed expression: namespaceObject.metadata.name != 'kube-system'",
      "failed expression: request.userInfo.username != 'mallory'",
    ]);
  });

  it('authorizer checks go to the given authorizer; without one they fail closed', () => {
    const vap = policy({
      validations: [
        {
          expression:
            "authorizer.group('apps').resource('deployments').namespace('default').check('delete').allowed()",
        },
      ],
    });
    const request = { operation: 'CREATE', object: deployment(1), userInfo: { username: 'alice' } };
    const seen: unknown[] = [];
    const d = evaluatePolicy(vap, request, {
      authorizer: (c) => {
        seen.push(c);
        return { decision: 'deny', reason: 'no' };
      },
    });
    expect(seen).toEqual([
      { verb: 'delete', group: 'apps', resource: 'deployments', namespace: 'default', user: 'alice' },
    ]);
    expect(d.allowed).toBe(false);
    expect(evaluatePolicy(vap, request, { authorizer: () => ({ decision: 'allow' }) }).allowed).toBe(true);
    expect(() => evaluatePolicy(vap, request)).toThrow(CelUnsupportedError);
  });

  it('an expression that does not compile throws CelCompileError naming where it is', () => {
    expect(() =>
      evaluatePolicy(policy({ validations: [{ expression: 'object.spec.' }] }), {
        operation: 'CREATE',
        object: {},
      }),
    ).toThrow(/ValidatingAdmissionPolicy replicas spec\.validations\[0\]: compilation failed/);
    expect(() =>
      evaluatePolicy(policy({ validations: [{ expression: 'self == 1' }] }), {
        operation: 'CREATE',
        object: {},
      }),
    ).toThrow(CelCompileError);
  });
});
