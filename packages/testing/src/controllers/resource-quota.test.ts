/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-assignment -- response bodies are untyped JSON */
/**
 * ResourceQuota on both backends (issue 18): `status.hard`/`status.used` filled by the quota
 * controller, creates charged and refused by the ResourceQuota admission plugin with the real
 * texts (read from kube-apiserver v1.24 + kube-controller-manager v1.24), usage released after a
 * delete. Facts and sources: `src/controllers/resource-quota.ts`, README *Served kinds*.
 */
import { beforeAll, expect, it } from 'vitest';

import { call } from '../internal/test-client.js';
import { describeEachBackend } from '../vitest/describe-each-backend.js';
import { waitFor } from '../wait-for.js';

const NS = 'quota-test';
const QUOTAS = `/api/v1/namespaces/${NS}/resourcequotas`;

/** The hard limits: each kind of resource name the embedded server measures. */
const HARD = {
  'count/secrets': '2',
  secrets: '2',
  pods: '2',
  'requests.cpu': '1',
  'limits.memory': '1Gi',
  'count/deployments.apps': '1',
  'requests.storage': '5Gi',
  persistentvolumeclaims: '3',
  'services.nodeports': '2',
  resourcequotas: '2',
  // a kind no server serves: no usage entry, on either backend
  'count/widgets.nothing.example.com': '1',
};

describeEachBackend('ResourceQuota status and admission', (b) => {
  const send = (method: string, path: string, body?: unknown, contentType?: string) =>
    call(b.cluster.url, method, path, {
      ...(body !== undefined ? { body } : {}),
      ...(contentType ? { contentType } : {}),
      headers: { Authorization: `Bearer ${b.cluster.token}` },
      ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
    });
  const quota = async (name = 'q') => (await send('GET', `${QUOTAS}/${name}`)).body;
  const used = async (resource: string) => (await quota()).status?.used?.[resource] as string | undefined;
  const secret = (name: string) =>
    send('POST', `/api/v1/namespaces/${NS}/secrets`, { metadata: { name }, stringData: { a: 'b' } });
  const pod = (name: string, containers: unknown[]) =>
    send('POST', `/api/v1/namespaces/${NS}/pods`, { metadata: { name }, spec: { containers } });
  const forbidden = (status: number, body: { message?: string; reason?: string }) => [
    status,
    body.reason,
    body.message,
  ];

  beforeAll(async () => {
    expect((await send('POST', '/api/v1/namespaces', { metadata: { name: NS } })).status).toBe(201);
  });

  it('a new quota has an empty status and limits nothing until the controller fills status.hard and status.used', async () => {
    const created = await send('POST', QUOTAS, { metadata: { name: 'q' }, spec: { hard: HARD } });
    expect(created.status, created.text).toBe(201);
    expect(created.body.status).toEqual({});
    const status = await waitFor('status.used', async () => (await quota()).status?.used, {
      timeoutMs: 30_000,
    });
    expect((await quota()).status.hard).toEqual(HARD);
    expect(status).toEqual({
      'count/secrets': '0',
      secrets: '0',
      pods: '0',
      'requests.cpu': '0',
      'limits.memory': '0',
      'count/deployments.apps': '0',
      'requests.storage': '0',
      persistentvolumeclaims: '0',
      'services.nodeports': '0',
      resourcequotas: '1', // itself
    });
  });

  it('charges each create at once and refuses the one that exceeds the quota (403, the real text)', async () => {
    expect((await secret('s0')).status).toBe(201);
    expect(await used('count/secrets')).toBe('1');
    expect((await secret('s1')).status).toBe(201);
    expect([await used('count/secrets'), await used('secrets')]).toEqual(['2', '2']);
    const refused = await secret('s2');
    expect(forbidden(refused.status, refused.body)).toEqual([
      403,
      'Forbidden',
      'secrets "s2" is forbidden: exceeded quota: q, requested: count/secrets=1,secrets=1, used: count/secrets=2,secrets=2, limited: count/secrets=2,secrets=2',
    ]);
    expect(refused.body.details).toEqual({ name: 's2', kind: 'secrets' });
    // another group: count/<resource>.<group>
    const deployment = (name: string) =>
      send('POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
        metadata: { name },
        spec: {
          selector: { matchLabels: { app: name } },
          template: {
            metadata: { labels: { app: name } },
            spec: { containers: [{ name: 'a', image: 'example.com/a:1' }] },
          },
        },
      });
    expect((await deployment('d1')).status).toBe(201);
    const second = await deployment('d2');
    expect(forbidden(second.status, second.body)).toEqual([
      403,
      'Forbidden',
      'deployments.apps "d2" is forbidden: exceeded quota: q, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1',
    ]);
    expect(second.body.details).toEqual({ name: 'd2', group: 'apps', kind: 'deployments' });
  });

  it('Pods: must state what the quota tracks; requests and limits summed in canonical quantities', async () => {
    const bare = await pod('bare', [
      { name: 'a', image: 'example.com/a:1' },
      { name: 'b', image: 'example.com/b:1' },
    ]);
    expect(forbidden(bare.status, bare.body)).toEqual([
      403,
      'Forbidden',
      'pods "bare" is forbidden: failed quota: q: must specify limits.memory for: a,b; requests.cpu for: a,b',
    ]);
    const first = await pod('p1', [
      {
        name: 'a',
        image: 'example.com/a:1',
        resources: { requests: { cpu: '0.6' }, limits: { memory: '512Mi' } },
      },
    ]);
    expect(first.status, first.text).toBe(201);
    expect([await used('pods'), await used('requests.cpu'), await used('limits.memory')]).toEqual([
      '1',
      '600m',
      '512Mi',
    ]);
    const big = await pod('p2', [
      {
        name: 'a',
        image: 'example.com/a:1',
        resources: { requests: { cpu: '200m' }, limits: { memory: '200Mi' } },
      },
      {
        name: 'b',
        image: 'example.com/b:1',
        resources: { requests: { cpu: '0.1' }, limits: { memory: '0.5Gi' } },
      },
    ]);
    expect(forbidden(big.status, big.body)).toEqual([
      403,
      'Forbidden',
      'pods "p2" is forbidden: exceeded quota: q, requested: limits.memory=712Mi, used: limits.memory=512Mi, limited: limits.memory=1Gi',
    ]);
    const claim = await send('POST', `/api/v1/namespaces/${NS}/persistentvolumeclaims`, {
      metadata: { name: 'c' },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '6Gi' } } },
    });
    expect(forbidden(claim.status, claim.body)).toEqual([
      403,
      'Forbidden',
      'persistentvolumeclaims "c" is forbidden: exceeded quota: q, requested: requests.storage=6Gi, used: requests.storage=0, limited: requests.storage=5Gi',
    ]);
  });

  it('Services: a NodePort Service charges its ports to services.nodeports', async () => {
    const service = await send('POST', `/api/v1/namespaces/${NS}/services`, {
      metadata: { name: 'np' },
      spec: { type: 'NodePort', ports: [{ port: 80 }], selector: { app: 'x' } },
    });
    expect(service.status, service.text).toBe(201);
    expect(await used('services.nodeports')).toBe('1');
  });

  it('a dry run is checked but not charged; a delete releases its usage (eventually, as the controller)', async () => {
    const dry = await send('POST', `/api/v1/namespaces/${NS}/secrets?dryRun=All`, {
      metadata: { name: 'dry' },
    });
    expect(forbidden(dry.status, dry.body)[0]).toBe(403);
    expect((await send('DELETE', `/api/v1/namespaces/${NS}/secrets/s0`)).status).toBe(200);
    await waitFor(
      'the usage released',
      async () => ((await used('count/secrets')) === '1' ? true : undefined),
      {
        timeoutMs: 30_000,
      },
    );
    const ok = await send('POST', `/api/v1/namespaces/${NS}/secrets?dryRun=All`, {
      metadata: { name: 'dry' },
    });
    expect(ok.status, ok.text).toBe(201);
    expect(await used('count/secrets')).toBe('1');
    expect((await secret('s3')).status).toBe(201);
    expect(await used('count/secrets')).toBe('2');
  });

  it('a changed spec.hard moves status.hard (canonical quantities)', async () => {
    const patched = await send(
      'PATCH',
      `${QUOTAS}/q`,
      { spec: { hard: { 'requests.cpu': '1.5' } } },
      'application/merge-patch+json',
    );
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body.spec.hard['requests.cpu']).toBe('1500m');
    await waitFor('status.hard', async () =>
      (await quota()).status?.hard?.['requests.cpu'] === '1500m' ? true : undefined,
    );
  });
});
