/**
 * The recording proxy's request attributes (like kube-apiserver's RequestInfo), and the proxy
 * itself over HTTP in front of the embedded API server: forwards, records statuses, streams watches.
 */
import { KubeClient, loadKubeConfigFile } from '@rxkube/kube';
import { startApiServer } from '@rxkube/testing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseKubeRequest, startRecordingProxy } from './recording-proxy.js';

describe('parseKubeRequest', () => {
  it.each([
    ['GET', '/api/v1/namespaces', 'list', { group: '', version: 'v1', resource: 'namespaces' }],
    ['GET', '/api/v1/namespaces/a', 'get', { group: '', version: 'v1', resource: 'namespaces', name: 'a' }],
    [
      'GET',
      '/api/v1/namespaces/a/configmaps?watch=true&resourceVersion=5',
      'watch',
      { group: '', version: 'v1', resource: 'configmaps', namespace: 'a' },
    ],
    ['GET', '/api/v1/watch/secrets', 'watch', { group: '', version: 'v1', resource: 'secrets' }],
    [
      'PATCH',
      '/apis/example.com/v1/namespaces/a/widgets/w/status',
      'patch',
      {
        group: 'example.com',
        version: 'v1',
        resource: 'widgets',
        namespace: 'a',
        name: 'w',
        subresource: 'status',
      },
    ],
    [
      'PUT',
      '/api/v1/namespaces/a/finalize',
      'update',
      { group: '', version: 'v1', resource: 'namespaces', name: 'a', subresource: 'finalize' },
    ],
    [
      'POST',
      '/apis/coordination.k8s.io/v1/namespaces/rxkube-system/leases',
      'create',
      { group: 'coordination.k8s.io', version: 'v1', resource: 'leases', namespace: 'rxkube-system' },
    ],
    [
      'DELETE',
      '/api/v1/namespaces/a/configmaps/c',
      'delete',
      { group: '', version: 'v1', resource: 'configmaps', namespace: 'a', name: 'c' },
    ],
    [
      'DELETE',
      '/api/v1/namespaces/a/configmaps',
      'deletecollection',
      { group: '', version: 'v1', resource: 'configmaps', namespace: 'a' },
    ],
  ])('%s %s → %s', (method, url, verb, resource) => {
    expect(parseKubeRequest(method, url)).toEqual({ verb, resource });
  });

  it.each([['/api'], ['/apis'], ['/api/v1'], ['/apis/apps/v1'], ['/version'], ['/openapi/v3']])(
    'GET %s is a non-resource request',
    (url) => {
      expect(parseKubeRequest('GET', url)).toEqual({ verb: 'get' });
    },
  );
});

describe('startRecordingProxy', () => {
  it('forwards requests and records each answer status, 403s included (watches: the restricted runs)', async () => {
    const server = await startApiServer({
      auth: { tokens: { admin: { name: 'admin', groups: ['system:masters'] }, nobody: 'nobody' } },
    });
    const proxy = await startRecordingProxy(server.url);
    const dir = mkdtempSync(join(tmpdir(), 'proxy-test-'));
    const path = join(dir, 'kubeconfig');
    const clients: KubeClient[] = [];
    const through = (token: string): KubeClient => {
      writeFileSync(
        path,
        readFileSync(server.kubeconfigPath, 'utf8')
          .replace(server.url, proxy.url)
          .replace(server.token, token),
      );
      const c = KubeClient.fromKubeConfig(loadKubeConfigFile(path));
      clients.push(c);
      return c;
    };
    try {
      const admin = through(server.token);
      await admin.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'c', namespace: 'default' },
      });
      await expect(
        through('nobody').get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'default', name: 'c' }),
      ).rejects.toMatchObject({ code: 403 });
      const resourceRequests = proxy.requests.filter((r) => r.resource !== undefined);
      expect(resourceRequests.map((r) => [r.verb, r.resource?.resource, r.status])).toEqual([
        ['create', 'configmaps', 201],
        ['get', 'configmaps', 403],
      ]);
    } finally {
      for (const c of clients) c.close();
      rmSync(dir, { recursive: true, force: true });
      await proxy.close();
      await server.stop();
    }
  });
});
