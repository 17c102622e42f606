import { KubeApiError } from '@rxkube/kube';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type ConfigMap,
  FIELD_MANAGER,
  MANAGED_BY_LABEL,
  type Namespace,
  WELCOME_CONFIGMAP,
  type WelcomePorts,
  decide,
  isNamespaceGoneError,
  reconcileNamespace,
  welcomeConfigMap,
} from './reconcile.js';

const ns = (name: string, labels: Record<string, string> = {}, phase = 'Active', rv = '1'): Namespace => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, labels, resourceVersion: rv },
  status: { phase },
});
const terminating = (name: string): Namespace => ({
  ...ns(name, {}, 'Terminating'),
  metadata: { name, deletionTimestamp: '2024-01-01T00:00:00Z' },
});

const apiError = (code: number, reason: string, details: object): KubeApiError =>
  new KubeApiError({
    httpStatus: code,
    method: 'PATCH',
    url: 'http://127.0.0.1/api/v1/namespaces/a/configmaps/rxkube-welcome',
    target: { verb: 'patch', resource: 'configmaps', namespace: 'a', name: WELCOME_CONFIGMAP },
    status: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      code,
      reason,
      message: reason,
      details,
    },
  });
const terminatingError = apiError(403, 'Forbidden', {
  name: WELCOME_CONFIGMAP,
  kind: 'configmaps',
  causes: [
    {
      reason: 'NamespaceTerminating',
      message: 'namespace a is being terminated',
      field: 'metadata.namespace',
    },
  ],
});
const namespaceNotFound = apiError(404, 'NotFound', { name: 'a', kind: 'namespaces' });

describe('namespace-watcher decisions', () => {
  it('summarises name, phase and labels (sorted), nothing volatile', () => {
    const cm = welcomeConfigMap(ns('team-a', { team: 'a', env: 'dev' }));
    expect(cm).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: WELCOME_CONFIGMAP,
        namespace: 'team-a',
        labels: { [MANAGED_BY_LABEL]: FIELD_MANAGER },
      },
      data: {
        namespace: 'team-a',
        phase: 'Active',
        labels: 'env=dev,team=a',
        summary: 'Welcome to team-a (Active), labels: env=dev,team=a',
      },
    });
    expect(welcomeConfigMap(ns('team-a', { env: 'dev', team: 'a' }, 'Active', '99'))).toEqual(cm);
  });

  it('applies when missing or stale, writes nothing when up to date', () => {
    const a = ns('a', { team: 'a' });
    const desired = welcomeConfigMap(a);
    expect(decide(a, undefined)).toEqual({ type: 'apply', configMap: desired, existed: false });
    const stale: ConfigMap = { ...desired, data: { ...desired.data, labels: '-' } };
    expect(decide(a, stale)).toEqual({ type: 'apply', configMap: desired, existed: true });
    expect(decide(a, { ...desired, metadata: { ...desired.metadata, resourceVersion: '7' } })).toEqual({
      type: 'unchanged',
    });
  });

  it('skips terminating, gone and excluded namespaces; removes the ConfigMap of an opted-out one', () => {
    expect(decide(undefined, undefined)).toEqual({ type: 'skip', reason: 'gone' });
    expect(decide(terminating('a'), undefined)).toEqual({ type: 'skip', reason: 'terminating' });
    expect(decide(ns('a', {}, 'Terminating'), undefined)).toEqual({ type: 'skip', reason: 'terminating' });
    expect(decide(ns('kube-system'), undefined)).toEqual({ type: 'skip', reason: 'excluded' });
    expect(decide(ns('kube-system'), undefined, { exclude: [] }).type).toBe('apply');
    const optedOut = ns('a', { 'rxkube.io/welcome': 'false' });
    expect(decide(optedOut, undefined)).toEqual({ type: 'skip', reason: 'excluded' });
    expect(decide(optedOut, welcomeConfigMap(ns('a')))).toEqual({
      type: 'delete',
      ref: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'a', name: WELCOME_CONFIGMAP },
    });
    // a ConfigMap of that name someone else made is not ours to delete
    expect(decide(optedOut, { metadata: { name: WELCOME_CONFIGMAP, namespace: 'a' } })).toEqual({
      type: 'skip',
      reason: 'excluded',
    });
  });

  it('recognises a namespace deleted under the write, and nothing else', () => {
    expect(isNamespaceGoneError(terminatingError)).toBe(true);
    expect(isNamespaceGoneError(namespaceNotFound)).toBe(true);
    expect(isNamespaceGoneError(apiError(403, 'Forbidden', { kind: 'configmaps' }))).toBe(false);
    expect(isNamespaceGoneError(apiError(404, 'NotFound', { kind: 'configmaps' }))).toBe(false);
    expect(isNamespaceGoneError(new Error('boom'))).toBe(false);
  });
});

describe('reconcileNamespace (marbles)', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('applies the welcome ConfigMap once and reports created; updated when one existed', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const applied: ConfigMap[] = [];
      const write = cold('--(a|)', { a: {} });
      const ports: WelcomePorts = {
        apply: (cm) => {
          applied.push(cm);
          return write;
        },
        remove: () => cold('#'),
      };
      const a = ns('a');
      //                        the apply answers at frame 2
      expectObservable(reconcileNamespace(a, undefined, ports)).toBe('--(o|)', {
        o: { namespace: 'a', type: 'created' },
      });
      expectObservable(reconcileNamespace(a, { metadata: { name: WELCOME_CONFIGMAP } }, ports)).toBe(
        '--(o|)',
        {
          o: { namespace: 'a', type: 'updated' },
        },
      );
      expectSubscriptions(write.subscriptions).toBe(['^-!', '^-!']);
      scheduler.flush();
      expect(applied).toEqual([welcomeConfigMap(a), welcomeConfigMap(a)]);
    });
  });

  it('writes nothing for an up-to-date, terminating or gone namespace', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const write = cold('--(a|)', { a: {} });
      const ports: WelcomePorts = { apply: () => write, remove: () => write };
      const a = ns('a');
      expectObservable(reconcileNamespace(a, welcomeConfigMap(a), ports)).toBe('(o|)', {
        o: { namespace: 'a', type: 'unchanged' },
      });
      expectObservable(reconcileNamespace(terminating('b'), undefined, ports)).toBe('(o|)', {
        o: { namespace: 'b', type: 'skipped', reason: 'terminating' },
      });
      expectObservable(reconcileNamespace(undefined, undefined, ports, {}, 'c')).toBe('(o|)', {
        o: { namespace: 'c', type: 'skipped', reason: 'gone' },
      });
      expectSubscriptions(write.subscriptions).toBe([]);
    });
  });

  it('ends as skipped when the namespace is deleted under the write (403 NamespaceTerminating, 404 namespace)', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const a = ns('a');
      const failing = (e: unknown): WelcomePorts => ({
        apply: () => cold('---#', undefined, e),
        remove: () => cold('#'),
      });
      //                 the write fails at frame 3 → one skipped outcome, no error
      expectObservable(reconcileNamespace(a, undefined, failing(terminatingError))).toBe('---(o|)', {
        o: { namespace: 'a', type: 'skipped', reason: 'terminating' },
      });
      expectObservable(reconcileNamespace(a, undefined, failing(namespaceNotFound))).toBe('---(o|)', {
        o: { namespace: 'a', type: 'skipped', reason: 'terminating' },
      });
    });
  });

  it('forwards any other write error so the controller retries with backoff', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const boom = apiError(500, 'InternalError', {});
      const ports: WelcomePorts = { apply: () => cold('-#', undefined, boom), remove: () => cold('#') };
      expectObservable(reconcileNamespace(ns('a'), undefined, ports)).toBe('-#', undefined, boom);
    });
  });

  it('deletes the ConfigMap of an opted-out namespace; a 404 counts as deleted', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const optedOut = ns('a', { 'rxkube.io/welcome': 'false' });
      const removed: string[] = [];
      const ports = (answer: ReturnType<typeof cold<unknown>>): WelcomePorts => ({
        apply: () => cold('#'),
        remove: (ref) => {
          removed.push(`${ref.namespace ?? ''}/${ref.name}`);
          return answer;
        },
      });
      const existing = welcomeConfigMap(ns('a'));
      expectObservable(reconcileNamespace(optedOut, existing, ports(cold('-(a|)', { a: {} })))).toBe(
        '-(o|)',
        {
          o: { namespace: 'a', type: 'deleted' },
        },
      );
      const gone = apiError(404, 'NotFound', { kind: 'configmaps', name: WELCOME_CONFIGMAP });
      expectObservable(reconcileNamespace(optedOut, existing, ports(cold('--#', undefined, gone)))).toBe(
        '--(o|)',
        {
          o: { namespace: 'a', type: 'deleted' },
        },
      );
      scheduler.flush();
      expect(removed).toEqual([`a/${WELCOME_CONFIGMAP}`, `a/${WELCOME_CONFIGMAP}`]);
    });
  });
});
