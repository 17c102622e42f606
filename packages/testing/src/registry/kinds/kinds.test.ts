/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
/**
 * The built-in kinds operators own, against answers recorded from a real kube-apiserver v1.24
 * (`fixtures/kube-v1.24/`): discovery entries, the object a create returns (defaults of
 * `pkg/apis/<group>/v1/defaults.go`, the statuses of each `pkg/registry/<group>/<kind>/strategy.go`
 * `PrepareForCreate`), generation rules (`PrepareForUpdate`), and the Table columns of
 * `pkg/printers/internalversion/printers.go`.
 */
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from '../../internal/test-client.js';
import type { ApiServer } from '../../server.js';
import { startApiServer } from '../../server.js';

const fixture = (name: string): any =>
  JSON.parse(readFileSync(new URL(`../../../fixtures/kube-v1.24/${name}`, import.meta.url), 'utf8'));

const created: { request: any; response: any }[] = fixture('created-objects.json');
const discovery: Record<string, any[]> = fixture('discovery.json');
const columns: Record<string, any[]> = fixture('printer-columns.json');

/**
 * What the real Pod and Service answers carry that this server does not make: admission plugins
 * (ServiceAccount token volume and mounts, DefaultTolerationSeconds, Priority) and the Service IP
 * allocator. Listed, so anything else that differs fails.
 */
const NOT_EMULATED: Record<string, string[]> = {
  Pod: [
    'spec.containers.0.volumeMounts',
    'spec.volumes',
    'spec.tolerations',
    'spec.serviceAccount',
    'spec.serviceAccountName',
    'spec.priority',
    'spec.preemptionPolicy',
  ],
  Service: ['spec.clusterIP', 'spec.clusterIPs', 'spec.ipFamilies', 'spec.ipFamilyPolicy'],
};

function pathOf(kind: string, gv: string): string {
  const plural: Record<string, string> = {
    Endpoints: 'endpoints',
    NetworkPolicy: 'networkpolicies',
    Ingress: 'ingresses',
    PodDisruptionBudget: 'poddisruptionbudgets',
    HorizontalPodAutoscaler: 'horizontalpodautoscalers',
  };
  const resource = plural[kind] ?? `${kind.toLowerCase()}s`;
  return `${gv === 'v1' ? '/api/v1' : `/apis/${gv}`}/namespaces/default/${resource}`;
}

function drop(o: any, path: string): void {
  const parts = path.split('.');
  const last = parts.pop() ?? '';
  let cur = o;
  for (const p of parts) cur = cur?.[p];
  if (cur) delete cur[last];
}

/** Removes what differs per run: uid-based values, times, resourceVersions, managedFields. */
function normalise(o: any): any {
  const text = JSON.stringify(o);
  const uid: unknown = o.metadata.uid;
  const c = JSON.parse(typeof uid === 'string' ? text.replaceAll(uid, '<uid>') : text);
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields']) delete c.metadata[k];
  return c;
}

describe('built-in kinds answer as kube-apiserver v1.24 does', () => {
  let server: ApiServer;
  beforeAll(async () => {
    server = await startApiServer({ logger: { error: () => undefined } });
  });
  afterAll(() => server.stop());

  it.each(Object.keys(discovery))('discovery of %s lists each recorded resource the same way', async (gv) => {
    const res = await call(server.url, 'GET', gv === 'v1' ? '/api/v1' : `/apis/${gv}`);
    const served = new Map((res.body.resources as any[]).map((r) => [r.name, r]));
    for (const entry of discovery[gv] ?? []) {
      // pods' and serviceaccounts' exec/attach/proxy/eviction/token are not served (README)
      if (
        entry.name.includes('/') &&
        !['status', 'scale', 'log', 'finalize'].includes(entry.name.split('/')[1])
      )
        continue;
      expect(served.get(entry.name), entry.name).toEqual(entry);
    }
  });

  it.each(created.map((c) => [c.request.kind, c] as const))(
    'a created %s comes back with the real defaults and status',
    async (kind, c) => {
      const res = await call(server.url, 'POST', pathOf(kind, c.request.apiVersion), { body: c.request });
      expect(res.status).toBe(201);
      const ours = normalise(res.body);
      const real = normalise(c.response);
      for (const p of NOT_EMULATED[kind] ?? []) drop(real, p);
      expect(ours).toEqual(real);
    },
  );

  it.each([
    ['jobs', 'batch/v1', { spec: { activeDeadlineSeconds: 100 } }, 2],
    ['cronjobs', 'batch/v1', { spec: { suspend: true } }, 2],
    ['statefulsets', 'apps/v1', { spec: { replicas: 2 } }, 2],
    ['daemonsets', 'apps/v1', { spec: { minReadySeconds: 3 } }, 2],
    ['replicasets', 'apps/v1', { spec: { replicas: 2 } }, 2],
    ['ingresses', 'networking.k8s.io/v1', { spec: { ingressClassName: 'x' } }, 2],
    ['networkpolicies', 'networking.k8s.io/v1', { spec: { policyTypes: ['Ingress', 'Egress'] } }, 2],
    ['poddisruptionbudgets', 'policy/v1', { spec: { minAvailable: 2 } }, 2],
    ['horizontalpodautoscalers', 'autoscaling/v2', { spec: { maxReplicas: 4 } }, undefined],
    ['persistentvolumeclaims', 'v1', { spec: { volumeName: 'v' } }, undefined],
  ] as const)(
    // measured on a real v1.24 server: labels and annotations never count, a spec change does, HPA and PVC keep none
    '%s (%s): generation ignores label/annotation patches and follows spec changes',
    async (resource, gv, specPatch, after) => {
      const base = `${gv === 'v1' ? '/api/v1' : `/apis/${gv}`}/namespaces/default/${resource}`;
      const name = created.find((c) => pathOf(c.request.kind, c.request.apiVersion) === base)?.request
        .metadata.name;
      const path = `${base}/${String(name)}`;
      const merge = 'application/merge-patch+json';
      const first = await call(server.url, 'GET', path);
      const gen0 = first.body.metadata.generation;
      expect(gen0).toBe(after === undefined ? undefined : 1);
      await call(server.url, 'PATCH', path, {
        body: { metadata: { annotations: { x: '1' } } },
        contentType: merge,
      });
      await call(server.url, 'PATCH', path, {
        body: { metadata: { labels: { y: '1' } } },
        contentType: merge,
      });
      expect((await call(server.url, 'GET', path)).body.metadata.generation).toBe(gen0);
      const patched = await call(server.url, 'PATCH', path, { body: specPatch, contentType: merge });
      expect(patched.status).toBe(200);
      expect(patched.body.metadata.generation).toBe(after);
    },
  );

  it('a DaemonSet template change bumps the template generation annotation (daemonset strategy)', async () => {
    const path = '/apis/apps/v1/namespaces/default/daemonsets/ds';
    const res = await call(server.url, 'PATCH', path, {
      body: { spec: { template: { metadata: { labels: { app: 'ds', v: '2' } } } } },
      contentType: 'application/merge-patch+json',
    });
    expect(res.body.metadata.annotations['deprecated.daemonset.template.generation']).toBe('2');
  });

  it.each(Object.keys(columns))('the Table of %s has the recorded columns', async (key) => {
    const [group, resource] = key.split('/') as [string, string];
    const path =
      group === ''
        ? `/api/v1/namespaces/default/${resource}`
        : `/apis/${group}/${group === 'autoscaling' ? 'v2' : 'v1'}/namespaces/default/${resource}`;
    const res = await call(server.url, 'GET', path, {
      headers: { Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
    });
    expect(res.status).toBe(200);
    expect(res.body.columnDefinitions).toEqual(columns[key]);
  });
});
