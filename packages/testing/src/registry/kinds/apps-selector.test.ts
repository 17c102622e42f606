/**
 * A Deployment's `spec.selector` must select its template's labels, `matchExpressions` included
 * (`ValidatePodTemplateSpecForReplicaSet`: `metav1.LabelSelectorAsSelector(spec.selector)`
 * matched against `template.metadata.labels`), on both backends.
 */
import { beforeAll, expect, it } from 'vitest';

import { AdminClient } from '../../cluster/admin-client.js';
import { describeEachBackend } from '../../vitest/describe-each-backend.js';

describeEachBackend('Deployment selector against template labels', (b) => {
  let admin: AdminClient;
  beforeAll(async () => {
    admin = new AdminClient({
      url: b.cluster.url,
      token: b.cluster.token,
      ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
    });
    expect(
      (await admin.request('POST', '/api/v1/namespaces', { metadata: { name: 'selects' } })).status,
    ).toBe(201);
    return () => admin.close();
  });

  const create = (name: string, templateLabels: Record<string, string>) =>
    admin.request('POST', '/apis/apps/v1/namespaces/selects/deployments?dryRun=All', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name },
      spec: {
        selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web', 'api'] }] },
        template: {
          metadata: { labels: templateLabels },
          spec: { containers: [{ name: 'c', image: 'nginx' }] },
        },
      },
    });

  it('accepts a template that matchExpressions select', async () => {
    expect((await create('web', { app: 'api' })).status).toBe(201);
  });

  it('refuses a template that matchExpressions do not select, with the server message', async () => {
    const r = await create('db', { app: 'db' });
    expect(r.status).toBe(422);
    expect((r.body as { message: string }).message).toBe(
      'Deployment.apps "db" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"db"}: `selector` does not match template `labels`',
    );
  });
});
