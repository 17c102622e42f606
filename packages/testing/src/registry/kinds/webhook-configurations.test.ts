/**
 * Server-side apply of ValidatingWebhookConfiguration and MutatingWebhookConfiguration reads their
 * recorded v1.24 schemas (`fixtures/kube-v1.24/openapi-v3-schemas.json`): `webhooks` is merged by
 * its `name` (`x-kubernetes-patch-merge-key`), so two field managers each own their own webhook.
 * Deduced types would make the list atomic, and the second manager's apply a conflict.
 */
import { afterAll, expect, it } from 'vitest';

import { call } from '../../internal/test-client.js';
import { describeEachBackend } from '../../vitest/describe-each-backend.js';

const APPLY = 'application/apply-patch+yaml';

const webhook = (name: string) => ({
  name,
  clientConfig: { url: `https://${name}/check` },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  failurePolicy: 'Ignore',
});

describeEachBackend('webhook configurations by server-side apply', (b) => {
  const send = (method: string, path: string, body?: unknown, contentType?: string) =>
    call(b.cluster.url, method, path, {
      ...(body !== undefined ? { body } : {}),
      ...(contentType ? { contentType } : {}),
      headers: { Authorization: `Bearer ${b.cluster.token}` },
      ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
    });
  const collection = (kind: string) => `/apis/admissionregistration.k8s.io/v1/${kind.toLowerCase()}s`;
  const name = 'smd-webhooks';

  afterAll(async () => {
    await send('DELETE', `${collection('ValidatingWebhookConfiguration')}/${name}`);
    await send('DELETE', `${collection('MutatingWebhookConfiguration')}/${name}`);
  });

  it.each([['ValidatingWebhookConfiguration'], ['MutatingWebhookConfiguration']])(
    '%s: two field managers each own a webhook by name; dropping one removes only it',
    async (kind) => {
      const apply = (manager: string, webhooks: unknown[]) =>
        send(
          'PATCH',
          `${collection(kind)}/${name}?fieldManager=${manager}`,
          { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: { name }, webhooks },
          APPLY,
        );
      const names = (body: unknown) =>
        ((body as { webhooks?: { name: string }[] }).webhooks ?? []).map((w) => w.name);

      const first = await apply('a', [webhook('a.example.com')]);
      expect(first.status, first.text).toBe(201);
      const second = await apply('b', [webhook('b.example.com')]);
      expect(second.status, second.text).toBe(200);
      expect(names(second.body)).toEqual(['a.example.com', 'b.example.com']);
      const dropped = await apply('a', []);
      expect(dropped.status, dropped.text).toBe(200);
      expect(names(dropped.body)).toEqual(['b.example.com']);
    },
  );
});
