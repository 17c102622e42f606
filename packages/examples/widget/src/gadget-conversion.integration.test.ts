/**
 * The Gadget conversion webhook served by the Manager and called by a real kube-apiserver v1.24
 * (`spec.conversion.strategy: Webhook`, `clientConfig.url` on 127.0.0.1 with a `caBundle`): a
 * Gadget written in v1 is stored in v2 and read back in either version, a round trip losing
 * nothing — on both backends (the embedded server's conversion: packages/testing/src/admission/conversion.ts).
 * A patch in v1 is applied to the object converted to v1; a watch in v1 gets every event's object
 * converted; a server-side apply in v1 is merged in v1 (conflicts with managers that wrote in v2
 * found in v2); a deletecollection in v1 answers the deleted objects in v1.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

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

    it('patches in v1 through the webhook: the patch is applied to the object in v1', async () => {
      const ref = { apiVersion: 'example.com/v1', kind: 'Gadget', namespace: NS, name: 'g1' };
      const merged = await client.patch<GadgetV1>(ref, { type: 'merge', body: { spec: { size: 9 } } });
      expect(merged.apiVersion).toBe('example.com/v1');
      expect(merged.spec).toEqual({ size: 9 });
      // the paint annotation exists in v1 only: patching it there repaints the stored v2 Gadget
      const repainted = await client.patch<GadgetV1>(ref, {
        type: 'json',
        body: [
          { op: 'replace', path: '/metadata/annotations/example.com~1paint', value: 'red' },
          { op: 'replace', path: '/spec/size', value: 11 },
        ],
      });
      expect(repainted.spec).toEqual({ size: 11 });
      expect(repainted.metadata.annotations?.['example.com/paint']).toBe('red');
      const asV2 = await client.get<GadgetV2>({ ...ref, apiVersion: 'example.com/v2' });
      expect(asV2.spec).toEqual({ replicas: 11, paint: 'red' });
      expect(asV2.metadata.annotations).toEqual({ keep: 'me' });
    });

    it('watches in v1 through the webhook: every event’s object converted', async () => {
      const ref = { apiVersion: 'example.com/v2', kind: 'Gadget', namespace: NS, name: 'g1' };
      const before = await client.get<GadgetV2>(ref);
      const events = rawWatch(
        `/apis/example.com/v1/namespaces/${NS}/gadgets?watch=true&resourceVersion=${before.metadata.resourceVersion ?? ''}`,
        2,
      );
      // written in v2 (the storage version), watched in v1
      await client.patch(ref, { type: 'merge', body: { spec: { replicas: 5 } } });
      await client.create<GadgetV2>({
        apiVersion: 'example.com/v2',
        kind: 'Gadget',
        metadata: { name: 'g2', namespace: NS },
        spec: { replicas: 2, paint: 'blue' },
      });
      const seen = await events;
      expect(seen.map((e) => [e.type, e.object.apiVersion, e.object.metadata.name, e.object.spec])).toEqual([
        ['MODIFIED', 'example.com/v1', 'g1', { size: 5 }],
        ['ADDED', 'example.com/v1', 'g2', { size: 2 }],
      ]);
      expect(seen[1]?.object.metadata.annotations).toEqual({ 'example.com/paint': 'blue' });
    });

    it('applies server-side in v1 through the webhook: merged in v1, managedFields at v1', async () => {
      const v1 = (size: number): GadgetV1 => ({
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g3', namespace: NS },
        spec: { size },
      });
      const created = await client.apply<GadgetV1>(v1(3), { fieldManager: 'v1-applier' });
      expect(created.apiVersion).toBe('example.com/v1');
      expect(created.spec).toEqual({ size: 3 });
      const ref = { apiVersion: 'example.com/v2', kind: 'Gadget', namespace: NS, name: 'g3' };
      expect((await client.get<GadgetV2>(ref)).spec).toEqual({ replicas: 3 });
      // the applier's entry names the version it applied in, and the fields there
      const applierEntry = (o: GadgetV1 | GadgetV2) => managers(o).filter((e) => e.manager === 'v1-applier');
      expect(applierEntry(created)).toEqual([
        expect.objectContaining({
          operation: 'Apply',
          apiVersion: 'example.com/v1',
          fieldsV1: { 'f:spec': { 'f:size': {} } },
        }),
      ]);
      const reapplied = await client.apply<GadgetV1>(v1(6), { fieldManager: 'v1-applier' });
      expect(reapplied.spec).toEqual({ size: 6 });
      expect(applierEntry(reapplied)).toEqual([
        expect.objectContaining({ operation: 'Apply', apiVersion: 'example.com/v1' }),
      ]);
      expect((await client.get<GadgetV2>(ref)).spec).toEqual({ replicas: 6 });
    });

    it('finds conflicts of a v1 apply with a manager that wrote in v2, and forces them', async () => {
      const ref = { apiVersion: 'example.com/v2', kind: 'Gadget', namespace: NS, name: 'g3' };
      await client.patch(
        ref,
        { type: 'merge', body: { spec: { replicas: 8 } } },
        { fieldManager: 'v2-editor' },
      );
      const body: GadgetV1 = {
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'g3', namespace: NS },
        spec: { size: 10 },
      };
      // v2-editor owns .spec.replicas (in v2): the v1 apply changes it, compared in v2
      const refused: unknown = await client
        .apply<GadgetV1>(body, { fieldManager: 'v1-applier' })
        .catch((e: unknown) => e);
      expect(refused).toMatchObject({ code: 409 });
      expect((refused as { message: string }).message).toContain(
        'conflict with "v2-editor" using example.com/v2: .spec.replicas',
      );
      expect((await client.get<GadgetV2>(ref)).spec).toEqual({ replicas: 8 });
      const forced = await client.apply<GadgetV1>(body, { fieldManager: 'v1-applier', force: true });
      expect(forced.spec).toEqual({ size: 10 });
      const after = await client.get<GadgetV2>(ref);
      expect(after.spec).toEqual({ replicas: 10 });
      // the forced field left v2-editor, whose entry owned nothing else
      expect(managers(after).map((e) => e.manager)).not.toContain('v2-editor');
    });

    it('deletes a collection in v1 through the webhook: the deleted objects answered in v1', async () => {
      const answer = await raw('DELETE', `/apis/example.com/v1/namespaces/${NS}/gadgets`);
      expect(answer.status).toBe(200);
      const list = answer.body as { apiVersion: string; kind: string; items: GadgetV1[] };
      expect(list.kind).toBe('GadgetList');
      expect(list.apiVersion).toBe('example.com/v1');
      expect(
        list.items
          .map((g) => [g.apiVersion, g.metadata.name ?? '', g.spec] as const)
          .sort((a, c) => a[1].localeCompare(c[1])),
      ).toEqual([
        ['example.com/v1', 'g1', { size: 5 }],
        ['example.com/v1', 'g2', { size: 2 }],
        ['example.com/v1', 'g3', { size: 10 }],
      ]);
      const paint = list.items.find((g) => g.metadata.name === 'g2')?.metadata.annotations;
      expect(paint).toEqual({ 'example.com/paint': 'blue' });
      await waitFor(
        'the gadgets gone',
        async () =>
          (await client.list({ apiVersion: 'example.com/v2', kind: 'Gadget' }, { namespace: NS })).items
            .length === 0 || undefined,
        { timeoutMs: 30_000 },
      );
    });

    /** The managedFields entries of an object. */
    function managers(o: GadgetV1 | GadgetV2): { manager?: string }[] {
      return (o.metadata.managedFields ?? []) as { manager?: string }[];
    }

    /** One raw request at `path`: the status and the JSON body. */
    function raw(method: string, path: string): Promise<{ status: number; body: unknown }> {
      const cluster = b.cluster.kubeConfig.getCurrentCluster();
      const ca =
        cluster?.caData !== undefined ? Buffer.from(cluster.caData, 'base64').toString('utf8') : undefined;
      const url = `${b.cluster.url}${path}`;
      return new Promise((resolve, reject) => {
        const request = url.startsWith('https:') ? httpsRequest : httpRequest;
        const req = request(
          url,
          {
            method,
            headers: { authorization: `Bearer ${b.cluster.token}`, accept: 'application/json' },
            ...(ca !== undefined ? { ca } : { rejectUnauthorized: cluster?.skipTLSVerify !== true }),
            agent: false,
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (c: Buffer) => chunks.push(c));
            res.on('end', () => {
              try {
                resolve({
                  status: res.statusCode ?? 0,
                  body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
                });
              } catch (e) {
                reject(e instanceof Error ? e : new Error(String(e)));
              }
            });
          },
        );
        req.on('error', reject);
        req.end();
      });
    }

    /** The first `count` events of a raw watch at `path`. */
    function rawWatch(path: string, count: number): Promise<{ type: string; object: GadgetV1 }[]> {
      const cluster = b.cluster.kubeConfig.getCurrentCluster();
      const ca =
        cluster?.caData !== undefined ? Buffer.from(cluster.caData, 'base64').toString('utf8') : undefined;
      const url = `${b.cluster.url}${path}`;
      return new Promise((resolve, reject) => {
        const request = url.startsWith('https:') ? httpsRequest : httpRequest;
        const events: { type: string; object: GadgetV1 }[] = [];
        const req = request(
          url,
          {
            headers: { authorization: `Bearer ${b.cluster.token}`, accept: 'application/json' },
            ...(ca !== undefined ? { ca } : { rejectUnauthorized: cluster?.skipTLSVerify !== true }),
            agent: false,
          },
          (res) => {
            let rest = '';
            res.on('data', (chunk: Buffer) => {
              const lines = (rest + chunk.toString('utf8')).split('\n');
              rest = lines.pop() ?? '';
              for (const line of lines) {
                if (line.trim() === '') continue;
                const e = JSON.parse(line) as { type: string; object: GadgetV1 };
                if (e.type === 'BOOKMARK') continue;
                events.push(e);
                if (events.length === count) {
                  resolve(events);
                  req.destroy();
                }
              }
            });
            res.on('end', () => reject(new Error(`watch ended after ${String(events.length)} events`)));
          },
        );
        req.on('error', (e) => {
          if (events.length < count) reject(e);
        });
        req.end();
      });
    }
  },
  { realTimeoutMs: 60_000 },
);
