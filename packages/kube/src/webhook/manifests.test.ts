import { describe, expect, it } from 'vitest';

import { lintWebhookConfigurations, webhookManifests } from './manifests.js';
import { allowed } from './types.js';
import { WebhookServer } from './webhook-server.js';

const server = new WebhookServer({ tls: { cert: 'unused', key: 'unused' } })
  .validate({ apiVersion: 'example.com/v1', kind: 'Widget' }, () => allowed())
  .mutate({ apiVersion: 'v1', kind: 'Pod' }, () => undefined, { timeoutMs: 4000 })
  .convert(
    { group: 'example.com', kind: 'Proxy' },
    { hub: 'v2', spokes: { v1: { toHub: (o) => o, fromHub: (o) => o } } },
  );

describe('webhookManifests', () => {
  it('emits the configurations, the Service and the CRD conversion stanza for what the server registered', () => {
    const m = webhookManifests(server, {
      name: 'widget-operator',
      namespace: 'widget-system',
      plurals: { Proxy: 'proxies' },
    });
    expect(m.service).toEqual({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'widget-operator-webhook', namespace: 'widget-system' },
      spec: {
        selector: { 'app.kubernetes.io/name': 'widget-operator' },
        ports: [{ name: 'webhook', port: 443, targetPort: 9443, protocol: 'TCP' }],
      },
    });
    expect(m.validating).toEqual({
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: {
        name: 'widget-operator',
        annotations: { 'cert-manager.io/inject-ca-from': 'widget-system/widget-operator-webhook' },
      },
      webhooks: [
        {
          name: 'vwidget.example.com',
          clientConfig: {
            service: {
              namespace: 'widget-system',
              name: 'widget-operator-webhook',
              path: '/validate-example-com-v1-widget',
              port: 443,
            },
          },
          rules: [
            {
              operations: ['CREATE', 'UPDATE'],
              apiGroups: ['example.com'],
              apiVersions: ['v1'],
              resources: ['widgets'],
            },
          ],
          failurePolicy: 'Fail',
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          timeoutSeconds: 10,
          namespaceSelector: {
            matchExpressions: [
              {
                key: 'kubernetes.io/metadata.name',
                operator: 'NotIn',
                values: ['kube-system', 'widget-system'],
              },
            ],
          },
        },
      ],
    });
    expect(
      (m.mutating?.['webhooks'] as { name: string; timeoutSeconds: number }[]).map((w) => [
        w.name,
        w.timeoutSeconds,
      ]),
    ).toEqual([['mpod.core', 5]]);
    expect(m.crdConversions).toEqual({
      'proxies.example.com': {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: {
            service: {
              namespace: 'widget-system',
              name: 'widget-operator-webhook',
              path: '/convert',
              port: 443,
            },
          },
        },
      },
    });
  });

  it('with self-managed certificates: no cert-manager annotation, the server port as targetPort; matchConditions on request', () => {
    const selfManaged = new WebhookServer({
      port: 8443,
      client: {} as never,
      tls: { selfManaged: { secret: { namespace: 'op-system', name: 'op-certs' }, hosts: ['op'] } },
    }).validate({ apiVersion: 'example.com/v1', kind: 'Widget' }, () => allowed());
    const m = webhookManifests(selfManaged.describe(), {
      name: 'op',
      namespace: 'op-system',
      matchConditions: true,
    });
    expect(m.validating?.['metadata']).toEqual({ name: 'op' });
    expect(m.service).toMatchObject({ spec: { ports: [{ port: 443, targetPort: 8443 }] } });
    expect(m.validating?.['webhooks']).toMatchObject([
      {
        matchConditions: [
          {
            name: 'not-kube-system-service-accounts',
            expression: "!request.userInfo.username.startsWith('system:serviceaccount:kube-system:')",
          },
          { name: 'not-nodes', expression: "!('system:nodes' in request.userInfo.groups)" },
        ],
      },
    ]);
    // off by default: Kubernetes 1.24 does not know the field
    expect(
      webhookManifests(selfManaged.describe(), { name: 'op', namespace: 'op-system' }).validating?.[
        'webhooks'
      ],
    ).not.toMatchObject([{ matchConditions: expect.anything() as unknown }]);
  });

  it('passes its own output through the outage lint', () => {
    const m = webhookManifests(server, { name: 'op', namespace: 'op-system', caBundle: 'Q0E=' });
    expect(lintWebhookConfigurations([m.validating, m.mutating], { namespace: 'op-system' })).toEqual([]);
  });
});

describe('lintWebhookConfigurations', () => {
  const config = (hook: Record<string, unknown>): Record<string, unknown> => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'MutatingWebhookConfiguration',
    metadata: { name: 'inject' },
    webhooks: [
      {
        name: 'inject.example.com',
        rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
        ...hook,
      },
    ],
  });

  it('refuses a Fail webhook on pods that reaches the operator’s namespace and kube-system', () => {
    const findings = lintWebhookConfigurations([config({})], { namespace: 'op-system' });
    expect(findings.map((f) => f.message)).toEqual([
      "MutatingWebhookConfiguration inject, webhook inject.example.com: failurePolicy Fail and its rules match pods in the operator's namespace op-system — when the operator is down nothing there can be created; add a namespaceSelector leaving it out (key kubernetes.io/metadata.name, NotIn) or use failurePolicy Ignore",
      'MutatingWebhookConfiguration inject, webhook inject.example.com: failurePolicy Fail and its rules match objects in kube-system — when the operator is down nothing there can be created; add a namespaceSelector leaving it out (key kubernetes.io/metadata.name, NotIn) or use failurePolicy Ignore',
    ]);
  });

  it('accepts Ignore, and Fail with a namespaceSelector leaving both namespaces out', () => {
    expect(
      lintWebhookConfigurations([config({ failurePolicy: 'Ignore' })], { namespace: 'op-system' }),
    ).toEqual([]);
    const leftOut = {
      namespaceSelector: {
        matchExpressions: [
          { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system', 'op-system'] },
        ],
      },
    };
    expect(lintWebhookConfigurations([config(leftOut)], { namespace: 'op-system' })).toEqual([]);
    // only kube-system left out: the operator's own pods are still matched
    const half = {
      namespaceSelector: {
        matchExpressions: [
          { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system'] },
        ],
      },
    };
    expect(lintWebhookConfigurations([config(half)], { namespace: 'op-system' })).toHaveLength(1);
  });
});
