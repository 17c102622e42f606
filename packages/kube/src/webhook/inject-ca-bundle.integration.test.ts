/**
 * `injectCaBundle` on both backends: a MutatingWebhookConfiguration created without a caBundle
 * fails its writes (the API server does not trust the generated CA: failurePolicy Fail → 500);
 * once the bundle is injected the webhook runs. The CRD conversion stanza gets it too, and a
 * second injection changes nothing.
 */
import { describeEachBackend } from '@rxkube/testing/vitest';
import { waitFor } from '@rxkube/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { KubeApiError } from '../errors.js';
import type { KubeObject } from '../types.js';
import { generateWebhookCertificates, type WebhookCertificates } from './certificates.js';
import { injectCaBundle } from './inject-ca-bundle.js';
import { WebhookServer } from './webhook-server.js';

const NS = 'ca-injection';
const LABELS = { 'rxkube-test': 'ca-injection' };
const CONFIG = 'rxkube-ca-injection';
const CRD = 'injectables.example.com';

describeEachBackend('injectCaBundle (HTTPS webhook called by the API server)', (b) => {
  let client: KubeClient;
  let server: WebhookServer;
  let certs: WebhookCertificates;

  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    certs = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
    server = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      tls: { cert: certs.cert, key: certs.key },
    }).mutate<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap' }, (draft) => {
      draft.metadata.labels = { ...draft.metadata.labels, injected: 'yes' };
    });
    await server.start();
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, labels: LABELS } });
  }, 120_000);

  afterAll(async () => {
    if (client === undefined) return;
    await client
      .delete({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        name: CONFIG,
      })
      .catch(() => undefined);
    await client
      .delete({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', name: CRD })
      .catch(() => undefined);
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
    await server?.stop();
    client.close();
  });

  it('makes a webhook the API server could not trust callable, once; fills the CRD conversion stanza', async () => {
    await client.create({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: CONFIG },
      webhooks: [
        {
          name: 'label.ca-injection.example.com',
          clientConfig: { url: server.url('/mutate--v1-configmap') },
          rules: [
            { operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
          ],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Fail',
          timeoutSeconds: 5,
          namespaceSelector: { matchLabels: LABELS },
        },
      ],
    });
    const configMap: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'probe', namespace: NS },
    };
    const refused = await waitFor(
      'the configuration without a caBundle to be in force',
      () =>
        client.create(configMap, { dryRun: true }).then(
          () => undefined,
          (e: unknown) => (e instanceof KubeApiError ? e : undefined),
        ),
      { timeoutMs: 30_000 },
    );
    expect(refused.code).toBe(500);
    expect(refused.message).toContain('failed calling webhook "label.ca-injection.example.com"');

    const caBundle = Buffer.from(certs.caCert).toString('base64');
    expect(await injectCaBundle(client, caBundle, { mutating: [CONFIG] })).toBe(1);
    const labelled = await waitFor(
      'the injected caBundle to be in force',
      () =>
        client.create(configMap, { dryRun: true }).then(
          (o) => (o.metadata.labels?.['injected'] === 'yes' ? o : undefined),
          () => undefined,
        ),
      { timeoutMs: 30_000 },
    );
    expect(labelled.metadata.labels).toEqual({ injected: 'yes' });
    expect(await injectCaBundle(client, caBundle, { mutating: [CONFIG] })).toBe(0);

    await client.create({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: CRD },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: {
          plural: 'injectables',
          singular: 'injectable',
          kind: 'Injectable',
          listKind: 'InjectableList',
        },
        versions: [
          {
            name: 'v1',
            served: true,
            storage: false,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
          {
            name: 'v2',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
        conversion: {
          strategy: 'Webhook',
          webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: server.url('/convert') } },
        },
      },
    });
    expect(await injectCaBundle(client, caBundle, { crds: [CRD] })).toBe(1);
    const crd = await client.get<{
      spec: { conversion: { webhook: { clientConfig: { caBundle?: string } } } };
    }>({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      name: CRD,
    });
    expect(crd.spec.conversion.webhook.clientConfig.caBundle).toBe(caBundle);
  });

  it('refuses an empty bundle', async () => {
    await expect(injectCaBundle(client, '', { mutating: [CONFIG] })).rejects.toThrow(/base64 of a PEM CA/);
  });
});
