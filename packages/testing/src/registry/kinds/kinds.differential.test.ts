/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
/**
 * Differential tests of the kinds operators own: the same requests to the embedded server and to a
 * real kube-apiserver v1.24 (`startControlPlane()`, no controller manager: defaults, strategies,
 * discovery and printers are the API server's own), the answers compared after normalising uids,
 * timestamps and resourceVersions. Skipped, with the reason in its name and printed, without
 * `KUBEBUILDER_ASSETS`.
 */
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { REAL_TIER_HOW } from '../../backends/backends.js';
import { AdminClient } from '../../cluster/admin-client.js';
import { controlPlaneAssetsAvailable } from '../../control-plane/assets.js';
import type { ControlPlane } from '../../control-plane/control-plane.js';
import { startControlPlane } from '../../control-plane/control-plane.js';
import type { ApiServer } from '../../server.js';
import { startApiServer } from '../../server.js';

const created: { request: any }[] = JSON.parse(
  readFileSync(new URL('../../../fixtures/kube-v1.24/created-objects.json', import.meta.url), 'utf8'),
);

/** Added by admission plugins and the Service IP allocator of a real server; not emulated (README). */
const NOT_EMULATED: Record<string, string[]> = {
  Pod: ['spec.tolerations', 'spec.priority', 'spec.preemptionPolicy'],
  Service: ['spec.clusterIP', 'spec.clusterIPs', 'spec.ipFamilies', 'spec.ipFamilyPolicy'],
};

const assets = controlPlaneAssetsAvailable(['etcd', 'kube-apiserver']);
const skipReason = assets.available ? '' : `skipped: no real control plane (${REAL_TIER_HOW})`;
if (skipReason) console.warn(`[kinds.differential] ${skipReason}`);

function base(kind: string, apiVersion: string): string {
  const plural: Record<string, string> = {
    Endpoints: 'endpoints',
    NetworkPolicy: 'networkpolicies',
    Ingress: 'ingresses',
    PodDisruptionBudget: 'poddisruptionbudgets',
    HorizontalPodAutoscaler: 'horizontalpodautoscalers',
  };
  const resource = plural[kind] ?? `${kind.toLowerCase()}s`;
  return `${apiVersion === 'v1' ? '/api/v1' : `/apis/${apiVersion}`}/namespaces/diff/${resource}`;
}

/** A Table GET (`kubectl get`'s Accept). */
function getTable(url: string, token: string, path: string, ca?: string): Promise<{ body: any }> {
  const target = new URL(path, url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      target,
      {
        headers: { Authorization: `Bearer ${token}`, Accept: 'application/json;as=Table;g=meta.k8s.io;v=v1' },
        ...(ca ? { ca } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function drop(o: any, path: string): void {
  const parts = path.split('.');
  const last = parts.pop() ?? '';
  let cur = o;
  for (const p of parts) cur = cur?.[p];
  if (cur) delete cur[last];
}

/** uids → `<uid>`; times, resourceVersions and managedFields dropped. */
function normalise(o: any, kind: string): any {
  const text = JSON.stringify(o);
  const uid: unknown = o?.metadata?.uid;
  const c = JSON.parse(typeof uid === 'string' ? text.replaceAll(uid, '<uid>') : text);
  for (const k of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields']) delete c.metadata?.[k];
  for (const p of NOT_EMULATED[kind] ?? []) drop(c, p);
  return c;
}

describe.skipIf(!assets.available)(
  `kinds: embedded vs real kube-apiserver v1.24${skipReason ? ` (${skipReason})` : ''}`,
  () => {
    let embedded: ApiServer;
    let real: ControlPlane;
    let admin: AdminClient;
    const both = async (
      method: string,
      path: string,
      body?: unknown,
      contentType?: string,
    ): Promise<[any, any]> => {
      const [e, r] = await Promise.all([
        new AdminClient({ url: embedded.url, token: embedded.token }).request(
          method,
          path,
          body,
          contentType,
        ),
        admin.request(method, path, body, contentType),
      ]);
      expect(e.status, `${method} ${path} status`).toBe(r.status);
      return [e.body, r.body];
    };

    beforeAll(async () => {
      [embedded, real] = await Promise.all([
        startApiServer({ logger: { error: () => undefined } }),
        startControlPlane(),
      ]);
      admin = new AdminClient({ url: real.url, token: real.token, ca: real.ca });
      await both('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'diff' },
      });
    }, 120_000);
    afterAll(async () => {
      await Promise.all([embedded?.stop(), real?.stop()]);
    });

    it.each([
      'api/v1',
      'apis/apps/v1',
      'apis/batch/v1',
      'apis/networking.k8s.io/v1',
      'apis/policy/v1',
      'apis/autoscaling/v2',
    ])('discovery of %s: every resource the embedded server lists is listed the same way', async (gv) => {
      const [e, r] = await both('GET', `/${gv}`);
      const realByName = new Map((r.resources as any[]).map((x) => [x.name, x]));
      for (const entry of e.resources as any[]) expect(entry, entry.name).toEqual(realByName.get(entry.name));
    });

    it.each(created.map((c) => [c.request.kind, c.request] as const))(
      'POST %s answers the same object',
      async (kind, request) => {
        const [e, r] = await both('POST', base(kind, request.apiVersion), request);
        expect(normalise(e, kind)).toEqual(normalise(r, kind));
      },
    );

    it.each([
      ['Job', { spec: { activeDeadlineSeconds: 100 } }],
      ['CronJob', { spec: { suspend: true } }],
      ['StatefulSet', { spec: { replicas: 2 } }],
      ['DaemonSet', { spec: { template: { metadata: { labels: { app: 'ds', v: '2' } } } } }],
      ['ReplicaSet', { spec: { replicas: 2 } }],
      ['Ingress', { spec: { ingressClassName: 'x' } }],
      ['NetworkPolicy', { spec: { policyTypes: ['Ingress', 'Egress'] } }],
      ['PodDisruptionBudget', { spec: { minAvailable: 2 } }],
      ['HorizontalPodAutoscaler', { spec: { maxReplicas: 4 } }],
      ['PersistentVolumeClaim', { metadata: { labels: { a: 'b' } } }],
      ['Deployment', { spec: { replicas: 3 } }],
    ] as const)(
      '%s: annotation, label and spec patches leave the same generation and object',
      async (kind, patch) => {
        const request = created.find((c) => c.request.kind === kind)?.request;
        const path = `${base(kind, request.apiVersion)}/${String(request.metadata.name)}`;
        const merge = 'application/merge-patch+json';
        for (const body of [
          { metadata: { annotations: { x: '1' } } },
          { metadata: { labels: { y: '1' } } },
          patch,
        ]) {
          const [e, r] = await both('PATCH', path, body, merge);
          expect(e.metadata.generation, JSON.stringify(body)).toBe(r.metadata.generation);
          expect(normalise(e, kind)).toEqual(normalise(r, kind));
        }
      },
    );

    it.each(created.map((c) => [c.request.kind, c.request] as const))(
      'the Table of %s has the same columns and cells',
      async (kind, request) => {
        const path = `${base(kind, request.apiVersion)}?includeObject=None`;
        const [e, r] = await Promise.all([
          getTable(embedded.url, embedded.token, path),
          getTable(real.url, real.token, path, real.ca),
        ]);
        expect(e.body.columnDefinitions).toEqual(r.body.columnDefinitions);
        // times differ per run; a Service's ClusterIP comes from the real allocator (not emulated)
        const ages = new Set(['Age', 'Duration', 'Last Seen', 'First Seen', 'Last Schedule', 'Cluster-IP']);
        const cells = (t: any): unknown[][] =>
          t.rows.map((row: any) =>
            row.cells.map((c: unknown, i: number) => (ages.has(t.columnDefinitions[i].name) ? '<age>' : c)),
          );
        expect(
          JSON.parse(
            JSON.stringify(cells(e.body)).replaceAll(
              /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
              '<uid>',
            ),
          ),
        ).toEqual(
          JSON.parse(
            JSON.stringify(cells(r.body)).replaceAll(
              /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g,
              '<uid>',
            ),
          ),
        );
      },
    );
  },
);
