// @rxkube/kube as a user installs it: a Manager running one controller that reconciles
// ConfigMaps, over HTTP against @rxkube/testing's API server.
import assert from 'node:assert/strict';

import { Action } from '@rxkube/core';
import { KubeClient, Manager, type KubeObject } from '@rxkube/kube';
import { startApiServer, waitFor } from '@rxkube/testing';

const server = await startApiServer();
try {
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  const seen = new Set<string>();
  const mgr = new Manager({ client, name: 'consumer', logLevel: 'silent' });
  mgr.add<KubeObject>('configmaps', { for: { apiVersion: 'v1', kind: 'ConfigMap' } }, (request) => {
    seen.add(`${request.namespace ?? ''}/${request.name}`);
    return [Action.awaitChange()];
  });
  await mgr.start();
  await client.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'hello', namespace: 'default' },
  });
  await waitFor('the reconcile of default/hello', () => seen.has('default/hello'));
  const report = await mgr.stop();
  assert.equal(report.drained, true);
  console.log('kube ok');
} finally {
  await server.stop();
}
