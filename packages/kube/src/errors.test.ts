import {
  kubeWireTranscript,
  type KubeWireExchange,
  type KubeWireTranscriptName,
} from '@rxkube/testing/fixtures';
import { describe, expect, it } from 'vitest';

import {
  forbiddenCause,
  isAlreadyExists,
  isConflict,
  isForbidden,
  isGone,
  isInvalid,
  isKubeApiError,
  isNamespaceTerminating,
  isNotFound,
  isTooManyRequests,
  isUnauthorized,
  KubeApiError,
  KubeTransportError,
  ResourceNotFoundError,
  retryAfterSeconds,
} from './errors.js';
import { parseStatus } from './status.js';

/** The error responses of a kube-wire transcript (a real kube-apiserver v1.24). */
function recorded(name: KubeWireTranscriptName): KubeWireExchange[] {
  return kubeWireTranscript(name).exchanges.filter((e) => e.response !== null && e.response.status >= 400);
}

function fromRecorded(
  ex: KubeWireExchange,
  target = { verb: 'get', resource: 'configmaps', namespace: 'wire' },
) {
  const text = typeof ex.response!.body === 'string' ? ex.response!.body : JSON.stringify(ex.response!.body);
  const status = parseStatus(text);
  return new KubeApiError({
    httpStatus: ex.response!.status,
    method: ex.request.method,
    url: `https://127.0.0.1:6443${ex.request.path}`,
    target,
    ...(status ? { status } : { text }),
    ...(ex.response!.headers['Retry-After'] ? { retryAfterHeader: ex.response!.headers['Retry-After'] } : {}),
  });
}

describe('KubeApiError from recorded responses', () => {
  it('parses every recorded error Status: code and reason as sent, guards agree with the reason', () => {
    const files: KubeWireTranscriptName[] = [
      '01-discovery',
      '02-create-get',
      '03-invalid-objects',
      '05-expired-continue',
      '08-watch-too-old',
      '09-optimistic-concurrency',
      '10-patches',
      '11-server-side-apply',
      '15-forbidden',
    ];
    let seen = 0;
    for (const ex of files.flatMap(recorded)) {
      const e = fromRecorded(ex);
      seen++;
      const body = ex.response!.body as { code?: number; reason?: string } | string;
      if (typeof body === 'object') {
        expect(e.code).toBe(body.code ?? ex.response!.status);
        if (body.reason) expect(e.reason).toBe(body.reason);
        expect(e.status).toEqual(body);
      } else {
        expect(e.code).toBe(ex.response!.status);
      }
      expect(isNotFound(e)).toBe(e.reason === 'NotFound');
      expect(isConflict(e)).toBe(e.reason === 'Conflict');
      expect(isAlreadyExists(e)).toBe(e.reason === 'AlreadyExists');
      expect(isForbidden(e)).toBe(e.code === 403);
      expect(isUnauthorized(e)).toBe(e.code === 401);
      expect(isGone(e)).toBe(e.code === 410);
      expect(isInvalid(e)).toBe(e.code === 422);
    }
    expect(seen).toBeGreaterThan(30);
  });

  it('turns the plain-text "404 page not found" into a NotFound Status with a CRD hint', () => {
    const e = new KubeApiError({
      httpStatus: 404,
      method: 'GET',
      url: 'https://h/apis/nope.example.com/v1',
      target: { verb: 'list', group: 'nope.example.com', resource: 'widgets' },
      text: '404 page not found\n',
    });
    expect(isNotFound(e)).toBe(true);
    expect(e.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: '404 page not found',
      reason: 'NotFound',
      code: 404,
    });
    expect(e.message).toContain('is the CRD installed');
  });

  it('names verb, resource and namespace RBAC must allow in a 403 message', () => {
    const e = new KubeApiError({
      httpStatus: 403,
      method: 'GET',
      url: 'https://h/apis/example.com/v1/namespaces/default/widgets',
      target: { verb: 'list', group: 'example.com', resource: 'widgets', namespace: 'default' },
      status: parseStatus(
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"widgets.example.com is forbidden: User \\"x\\" cannot list resource","reason":"Forbidden","details":{"group":"example.com","kind":"widgets"},"code":403}',
      )!,
    });
    expect(e.message).toMatch(
      /^forbidden: rxkube needs RBAC permission to "list" "widgets\.example\.com" in namespace "default" \(server: widgets\.example\.com is forbidden/,
    );
    expect(e.message).toContain('apiGroups: ["example.com"], resources: ["widgets"], verbs: ["list"]');
    const cluster = new KubeApiError({
      httpStatus: 403,
      method: 'GET',
      url: 'https://h/api/v1/namespaces',
      target: { verb: 'watch', group: '', resource: 'namespaces' },
      text: 'forbidden',
    });
    expect(cluster.message).toContain('"watch" "namespaces" cluster-wide');
    expect(cluster.message).toContain('ClusterRole');
  });

  it('tells a write into a terminating namespace from an RBAC denial (fixtures/kube-wire/20-namespace-deletion.json, NamespaceLifecycle admission)', () => {
    const [terminating] = recorded('20-namespace-deletion').filter((ex) => ex.response!.status === 403);
    const e = fromRecorded(terminating!, {
      verb: 'create',
      resource: 'configmaps',
      namespace: 'wire-ns-del',
    });
    expect(isForbidden(e)).toBe(true);
    expect(forbiddenCause(e)).toBe('namespace-terminating');
    expect(isNamespaceTerminating(e)).toBe(true);
    expect(e.message).toMatch(
      /^forbidden: namespace "wire-ns-del" is being deleted, so "create" of configmaps in namespace "wire-ns-del" is refused/,
    );
    expect(e.message).toContain('This is not an RBAC problem');
    expect(e.message).not.toContain('Grant it');
    // every 403 of the RBAC transcript is an RBAC denial
    for (const ex of recorded('15-forbidden').filter((x) => x.response!.status === 403)) {
      const rbac = fromRecorded(ex);
      expect(forbiddenCause(rbac)).toBe('rbac');
      expect(isNamespaceTerminating(rbac)).toBe(false);
      expect(rbac.message).toContain('Grant it with a Role rule');
    }
  });

  it('names a webhook denial, an exhausted quota and another admission refusal, each with what to do', () => {
    const forbidden = (message: string) =>
      new KubeApiError({
        httpStatus: 403,
        method: 'POST',
        url: 'https://h/api/v1/namespaces/ns/pods',
        target: { verb: 'create', group: '', resource: 'pods', namespace: 'ns', name: 'web' },
        status: {
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message,
          reason: 'Forbidden',
          code: 403,
        },
      });
    // k8s.io/apiserver/pkg/admission/plugin/webhook/errors/statuserror.go
    const webhook = forbidden(
      'admission webhook "policy.example.com" denied the request: label app is required',
    );
    expect(forbiddenCause(webhook)).toBe('webhook');
    expect(webhook.message).toMatch(
      /^forbidden: an admission webhook denied "create" of pods "web" in namespace "ns"/,
    );
    expect(webhook.message).toContain("satisfy the webhook's policy");
    // kubernetes/plugin/pkg/admission/resourcequota/controller.go
    const quota = forbidden(
      'pods "web" is forbidden: exceeded quota: compute, requested: requests.cpu=2, used: requests.cpu=1, limited: requests.cpu=2',
    );
    expect(forbiddenCause(quota)).toBe('quota');
    expect(quota.message).toContain('raise the quota');
    // k8s.io/pod-security-admission: another admission plugin
    const psa = forbidden('pods "web" is forbidden: violates PodSecurity "restricted:latest": privileged');
    expect(forbiddenCause(psa)).toBe('admission');
    expect(psa.message).toContain('This is not an RBAC problem');
    for (const e of [webhook, quota, psa]) expect(e.message).not.toContain('Grant it');
    expect(forbiddenCause(new Error('x'))).toBeUndefined();
  });

  it('reads Retry-After from the header, else from details.retryAfterSeconds', () => {
    const throttled = new KubeApiError({
      httpStatus: 429,
      method: 'GET',
      url: 'https://h/api/v1/pods',
      target: { verb: 'list', resource: 'pods' },
      text: 'Too many requests, please try again later.',
      retryAfterHeader: '7',
    });
    expect(isTooManyRequests(throttled)).toBe(true);
    expect(retryAfterSeconds(throttled)).toBe(7);
    expect(throttled.message).toContain('retry after 7 s');
    const timeout = fromRecorded(recorded('08-watch-too-old').find((x) => x.response!.status === 504)!);
    expect(timeout.reason).toBe('Timeout');
    expect(retryAfterSeconds(timeout)).toBe(1);
    expect(retryAfterSeconds(new Error('x'))).toBeUndefined();
  });

  it('gives a 500 without reason the reason client-go derives (InternalError)', () => {
    const e = new KubeApiError({
      httpStatus: 500,
      method: 'PUT',
      url: 'https://h/x',
      target: { verb: 'update' },
      status: parseStatus(
        '{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"strconv.ParseUint: parsing \\"abc\\": invalid syntax","code":500}',
      )!,
    });
    expect(e.reason).toBe('InternalError');
    expect(e.status.reason).toBeUndefined();
  });

  it('lists Invalid causes in the message', () => {
    const ex = recorded('03-invalid-objects').find((x) => x.response!.status === 422)!;
    const e = fromRecorded(ex, { verb: 'create', resource: 'configmaps', namespace: 'wire' });
    expect(isInvalid(e)).toBe(true);
    expect(e.details?.causes?.length).toBeGreaterThan(0);
    expect(e.message).toContain('Causes: metadata.name');
  });

  it('matches guards on the tag, so errors from another copy of the module count', () => {
    const foreign = { _tag: 'KubeApiError', reason: 'NotFound', code: 404 };
    expect(isKubeApiError(foreign)).toBe(true);
    expect(isNotFound(foreign)).toBe(true);
    expect(isNotFound({ reason: 'NotFound' })).toBe(false);
    expect(isNotFound(undefined)).toBe(false);
  });
});

describe('parseStatus', () => {
  it('refuses bodies that are not a Status', () => {
    expect(parseStatus('404 page not found')).toBeUndefined();
    expect(parseStatus('{"kind":"ConfigMap","metadata":{}}')).toBeUndefined();
    expect(parseStatus('{"kind":"Status",')).toBeUndefined();
    expect(parseStatus('[]')).toBeUndefined();
  });
});

describe('KubeTransportError', () => {
  it('strips user info from URLs and says what to check', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const e = new KubeTransportError('GET', 'https://admin:s3cret@127.0.0.1:1/api', 'network', cause);
    expect(e.url).toBe('https://127.0.0.1:1/api');
    expect(e.message).not.toContain('s3cret');
    expect(e.message).toContain('ECONNREFUSED');
    expect(e.message).toContain('Is the API server reachable at https://127.0.0.1:1');
    expect(e.errorCode).toBe('ECONNREFUSED');
    expect(e._tag).toBe('KubeTransportError');
  });

  it('points TLS failures at the kubeconfig CA', () => {
    const e = new KubeTransportError(
      'GET',
      'https://h:6443/api',
      'tls',
      Object.assign(new Error('x'), { code: 'SELF_SIGNED_CERT_IN_CHAIN' }),
    );
    expect(e.message).toContain('certificate-authority');
  });
});

describe('ResourceNotFoundError', () => {
  it('names apiVersion and kind and asks whether the CRD is installed', () => {
    const e = new ResourceNotFoundError(
      'example.com/v1',
      'Widget',
      'the server does not serve the group-version example.com/v1',
    );
    expect(e.message).toContain('kind "Widget" of apiVersion "example.com/v1"');
    expect(e.message).toContain('Is the CRD installed?');
    expect(e.message).toContain('--api-group=example.com');
  });
});
