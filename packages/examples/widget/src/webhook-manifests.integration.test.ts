/**
 * `rxkube rbac widget --webhooks` end to end: the CLI emits the Widget operator's RBAC (with the
 * self-managed certificates' grants), its webhook Service and configurations; they are applied to
 * the API server (on the real tier first with `kubectl apply --dry-run=server`, then for real),
 * the operator starts, issues its certificate into the Secret, injects the caBundle into the
 * configurations it did not write — and the API server calls its webhooks, except in the
 * namespaces the outage defaults leave out.
 *
 * No cluster network: on the embedded server the Service reference resolves to the webhook
 * server's port on 127.0.0.1; a real kube-apiserver cannot reach a Service without one, so there
 * the configurations' `service` is swapped for the `url` of the same server after the apply.
 */
import { execFileSync } from 'node:child_process';

import { main } from '@rxkube/cli';
import { KubeApiError, KubeClient, Manager } from '@rxkube/kube';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

import { fileURLToPath } from 'node:url';
import { setup } from './operator.js';
import { SIZE_CLASS } from './webhooks.js';
import type { Widget } from './widget.js';

const MODULE = fileURLToPath(new URL('./operator.ts', import.meta.url));
const OPS = 'widget-ops';
const NS = 'widget-hooked';
const BOUND = { timeoutMs: 30_000 };

const widget = (namespace: string, name: string, spec: NonNullable<Widget['spec']>): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name, namespace },
  spec,
});

type Doc = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };

/** The webhook server's port, once the manager started (the embedded server's Service resolver). */
let webhookPort = 0;

describeEachBackend(
  'widget: rxkube rbac --webhooks output applied, webhooks called',
  (b) => {
    let client: KubeClient;
    let mgr: Manager | undefined;
    let docs: Doc[] = [];

    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      for (const name of [OPS, NS])
        await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }, 60_000);

    afterAll(async () => {
      if (client === undefined) return;
      await mgr?.stop();
      for (const d of docs.filter((d) => d.kind.endsWith('WebhookConfiguration'))) {
        await client
          .delete({ apiVersion: 'admissionregistration.k8s.io/v1', kind: d.kind, name: d.metadata.name })
          .catch(() => undefined);
      }
      for (const name of [NS, OPS])
        await client.delete({ apiVersion: 'v1', kind: 'Namespace', name }).catch(() => undefined);
      client.close();
    });

    it('emits the configurations, Service and certificate RBAC; the API server calls the webhooks', async () => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(
        ['rbac', MODULE, '--webhooks', '--webhook-namespace', OPS, '--operator-namespace', OPS],
        { out: (l) => out.push(l), err: (l) => err.push(l), env: {} },
      );
      expect(code, err.join('\n')).toBe(0);
      const yaml = out.join('\n');
      docs = parseAllDocuments(yaml).map((d) => d.toJS() as Doc);
      const find = (kind: string, name: string): Doc | undefined =>
        docs.find((d) => d.kind === kind && d.metadata.name === name);

      // the certificates' RBAC: the Secret by name, caBundle patches by name
      expect(find('Role', 'widget-webhook-certificates')).toMatchObject({
        metadata: { namespace: OPS },
        rules: [
          {
            apiGroups: [''],
            resources: ['secrets'],
            resourceNames: ['widget-webhook-certs'],
            verbs: ['get', 'update'],
          },
          { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
        ],
      });
      const clusterRules = (find('ClusterRole', 'widget')?.['rules'] ?? []) as unknown[];
      for (const resource of ['validatingwebhookconfigurations', 'mutatingwebhookconfigurations']) {
        expect(clusterRules).toContainEqual({
          apiGroups: ['admissionregistration.k8s.io'],
          resources: [resource],
          resourceNames: ['widget'],
          verbs: ['get', 'patch'],
        });
      }
      expect(find('Service', 'widget-webhook')).toMatchObject({
        metadata: { namespace: OPS },
        spec: { selector: { 'app.kubernetes.io/name': 'widget' }, ports: [{ port: 443, targetPort: 9443 }] },
      });
      const validating = find('ValidatingWebhookConfiguration', 'widget');
      const mutating = find('MutatingWebhookConfiguration', 'widget');
      for (const config of [validating, mutating]) {
        // self-managed certificates: no cert-manager annotation, no caBundle (the operator injects it)
        expect(config?.metadata).toEqual({ name: 'widget' });
        expect(config?.['webhooks']).toMatchObject([
          {
            clientConfig: { service: { namespace: OPS, name: 'widget-webhook', port: 443 } },
            rules: [{ apiGroups: ['example.com'], apiVersions: ['v1'], resources: ['widgets'] }],
            failurePolicy: 'Fail',
            namespaceSelector: {
              matchExpressions: [
                { key: 'kubernetes.io/metadata.name', operator: 'NotIn', values: ['kube-system', OPS] },
              ],
            },
          },
        ]);
      }

      if (b.name === 'real') {
        // the real server's own validation of every document, nothing written
        const said = execFileSync(
          'kubectl',
          ['apply', '--dry-run=server', '--kubeconfig', b.cluster.kubeconfigPath, '-f', '-'],
          { input: yaml, encoding: 'utf8' },
        );
        expect(said).toContain(
          'validatingwebhookconfiguration.admissionregistration.k8s.io/widget created (server dry run)',
        );
        expect(said).toContain('service/widget-webhook created (server dry run)');
      }
      for (const d of docs) await client.apply(d as never, { fieldManager: 'kubectl', force: true });

      mgr = new Manager({ client, name: 'widget', logLevel: 'silent', leaderElection: false });
      await setup(mgr, {
        webhooks: { host: '127.0.0.1', port: 0, hosts: ['127.0.0.1'] },
        webhookNamespace: OPS,
      });
      await mgr.start();
      const server = mgr.webhooks();
      webhookPort = server.port ?? 0;

      // the operator issued its certificate into the Secret and injected the CA
      const secret = await client.get<{ data?: Record<string, string> } & Doc>({
        apiVersion: 'v1',
        kind: 'Secret',
        namespace: OPS,
        name: 'widget-webhook-certs',
      });
      expect(Object.keys(secret.data ?? {}).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
      for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
        const config = await client.get<{ webhooks: { clientConfig: { caBundle?: string } }[] } & Doc>({
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind,
          name: 'widget',
        });
        expect(config.webhooks[0]?.clientConfig.caBundle).toBe(secret.data?.['ca.crt']);
        if (b.name === 'real') {
          // no cluster network: the same server by URL (the certificate names 127.0.0.1 too)
          const path = kind.startsWith('Validating')
            ? '/validate-example-com-v1-widget'
            : '/mutate-example-com-v1-widget';
          await client.patch(
            { apiVersion: 'admissionregistration.k8s.io/v1', kind, name: 'widget' },
            {
              type: 'json',
              body: [
                { op: 'remove', path: '/webhooks/0/clientConfig/service' },
                { op: 'add', path: '/webhooks/0/clientConfig/url', value: server.url(path) },
              ],
            },
          );
        }
      }

      // the mutating webhook is called (the API server reads configurations through an informer)
      await waitFor(
        'the generated mutating webhook to be called',
        async () => {
          const w = await client.create(widget(NS, 'probe', { size: 3 }), { dryRun: true });
          return w.metadata.labels?.[SIZE_CLASS] === 'small';
        },
        BOUND,
      );
      // the validating one too
      const refused = await client
        .create(widget(NS, 'too-red', { size: 60, color: 'red' }), { dryRun: true })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(refused).toBeInstanceOf(KubeApiError);
      expect((refused as KubeApiError).message).toContain('red widgets come in at most 50');
      // and neither in the operator's own namespace (the outage default)
      const own = await client.create(widget(OPS, 'own', { size: 60, color: 'red' }), { dryRun: true });
      expect(own.metadata.labels?.[SIZE_CLASS]).toBeUndefined();
    }, 120_000);
  },
  {
    embedded: {
      resolveService: (svc) => ({
        url: `https://127.0.0.1:${String(webhookPort)}`,
        servername: `${svc.name}.${svc.namespace}.svc`,
      }),
    },
  },
);
