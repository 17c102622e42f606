/**
 * The Gadget conversion webhook served by the Manager and called by a real kube-apiserver v1.24
 * (`spec.conversion.strategy: Webhook`, `clientConfig.url` on 127.0.0.1 with a `caBundle`): a
 * Gadget written in v1 is stored in v2 and read back in either version, a round trip losing
 * nothing — on both backends (the embedded server's conversion: packages/testing/src/admission/conversion.ts).
 */
import { ensureCrd, KubeClient, Manager } from '@rxkube/kube';
import { generateWebhookCertificates } from '@rxkube/kube/webhook';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type GadgetV1, type GadgetV2, gadgetConversion, gadgetCrd } from './gadget.js';

const NS = 'gadgets';

describeEachBackend(
  'gadget conversion webhook (HTTPS, called by the API server)',
  (b) => {
    let client: KubeClient;
    let mgr: Manager;

    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      const certs = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
      mgr = new Manager({ client, name: 'gadget-conversion', logLevel: 'silent', leaderElection: false });
      const server = mgr
        .webhooks({ host: '127.0.0.1', port: 0, tls: { cert: certs.cert, key: certs.key } })
        .convert({ group: 'example.com', kind: 'Gadget' }, gadgetConversion);
      await mgr.start();
      await ensureCrd(
        client,
        gadgetCrd({
          url: server.url('/convert'),
          caBundle: Buffer.from(certs.caCert).toString('base64'),
        }),
        { fieldManager: 'gadget-test' },
      );
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    }, 120_000);

    afterAll(async () => {
      if (client === undefined) return;
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
      await client
        .delete({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          name: 'gadgets.example.com',
        })
        .catch(() => undefined);
      await mgr?.stop();
      client.close();
    });

    it('stores a v1 Gadget as v2 through the webhook and reads it back in both versions', async () => {
      const v1: GadgetV1 = {
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g1', namespace: NS, annotations: { 'example.com/paint': 'teal', keep: 'me' } },
        spec: { size: 4 },
      };
      // the first request may race the CRD's conversion setup: retried until it answers
      const created = await waitFor(
        'a v1 create through the conversion webhook',
        () =>
          client.create(v1).then(
            (o) => o,
            () => undefined,
          ),
        { timeoutMs: 30_000 },
      );
      expect(created.spec).toEqual({ size: 4 });
      const asV2 = await client.get<GadgetV2>({
        apiVersion: 'example.com/v2',
        kind: 'Gadget',
        namespace: NS,
        name: 'g1',
      });
      expect(asV2.spec).toEqual({ replicas: 4, paint: 'teal' });
      expect(asV2.metadata.annotations).toEqual({ keep: 'me' });
      const asV1 = await client.get<GadgetV1>({
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        namespace: NS,
        name: 'g1',
      });
      expect(asV1.spec).toEqual({ size: 4 });
      expect(asV1.metadata.annotations).toEqual({ keep: 'me', 'example.com/paint': 'teal' });
      expect(asV1.metadata.uid).toBe(asV2.metadata.uid);
    });

    it('lists and updates in v1 through the webhook', async () => {
      const list = await client.list<GadgetV1>(
        { apiVersion: 'example.com/v1', kind: 'Gadget' },
        { namespace: NS },
      );
      expect(list.items.map((g) => [g.apiVersion, g.metadata.name, g.spec])).toEqual([
        ['example.com/v1', 'g1', { size: 4 }],
      ]);
      const current = list.items[0] as GadgetV1;
      const updated = await client.replace<GadgetV1>({ ...current, spec: { size: 7 } });
      expect(updated.spec).toEqual({ size: 7 });
      const asV2 = await client.get<GadgetV2>({
        apiVersion: 'example.com/v2',
        kind: 'Gadget',
        namespace: NS,
        name: 'g1',
      });
      expect(asV2.spec).toEqual({ replicas: 7, paint: 'teal' });
    });

    b.itOn('embedded', 'the refusal is the embedded server’s own limitation')(
      'refuses a patch in v1 with a 500 naming the limitation, never serving it unconverted',
      async () => {
        await expect(
          client.patch(
            { apiVersion: 'example.com/v1', kind: 'Gadget', namespace: NS, name: 'g1' },
            { type: 'merge', body: { spec: { size: 9 } } },
          ),
        ).rejects.toMatchObject({
          code: 500,
          message: expect.stringContaining(
            'does not patch gadgets.example.com in v1 through its conversion webhook',
          ) as unknown,
        });
      },
    );
  },
  { realTimeoutMs: 60_000 },
);
