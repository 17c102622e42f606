/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-explicit-any, @typescript-eslint/no-unsafe-return -- response bodies are untyped JSON */
/**
 * Admission webhooks on DELETE and deletecollection, and the managedFields of writes, for a CRD
 * served in a storage version (v2) and a non-storage one (v1, converted by a webhook) — the same
 * suite on the embedded server and on kube-apiserver v1.24 (facts in README.md beside this file):
 *
 * - a DELETE in either version calls every matching webhook with the stored object converted
 *   to the version of the webhook's rule (`matchPolicy: Equivalent`), `kind` in that version and
 *   `requestKind` in the request's; a denial keeps the object;
 * - a deletecollection calls them once per item, one item after another in the list's order
 *   (kube-apiserver's one DeleteCollection worker); a denied item ends it with the denial, the
 *   items before it deleted, the rest kept;
 * - a PUT, merge patch or JSON patch in v1 records its manager's entry at `apiVersion` v1 with
 *   the v1 fields, and other managers' fields are compared in the version each wrote.
 */
import type { KubeObject } from '@rxkube/kube';
import { WebhookServer, allowed, denied, generateWebhookCertificates } from '@rxkube/kube/webhook';
import type { AdmissionRequest } from '@rxkube/kube/webhook';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { call } from '../internal/test-client.js';
import { describeEachBackend } from '../vitest/describe-each-backend.js';
import { waitFor } from '../wait-for.js';

const GROUP = 'admit.example.com';
const NS = 'delete-admission';
const CRD = `parts.${GROUP}`;
const CONFIG = 'delete-admission-parts';
const BOUND = { timeoutMs: 30_000 };
const at = (version: string, name = ''): string =>
  `/apis/${GROUP}/${version}/namespaces/${NS}/parts${name === '' ? '' : `/${name}`}`;

describeEachBackend(
  'admission webhooks on DELETE and deletecollection, in storage and non-storage versions',
  (b) => {
    let hooks: WebhookServer;
    const seen: AdmissionRequest[] = [];
    const opts = (extra: { body?: unknown; contentType?: string } = {}) => ({
      headers: { Authorization: `Bearer ${b.cluster.token}` },
      ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
      ...extra,
    });
    const req = (method: string, path: string, extra: { body?: unknown; contentType?: string } = {}) =>
      call(b.cluster.url, method, path, opts(extra));
    const part = (name: string, count: number, labels: Record<string, string> = {}) => ({
      apiVersion: `${GROUP}/v2`,
      kind: 'Part',
      metadata: { name, namespace: NS, labels: { batch: 'none', ...labels } },
      spec: { count },
    });
    const create = async (name: string, count: number, labels: Record<string, string> = {}) => {
      const r = await req('POST', at('v2'), { body: part(name, count, labels) });
      expect(r.status, r.text).toBe(201);
      return r.body;
    };
    const exists = async (name: string): Promise<boolean> => {
      const r = await req('GET', at('v2', name));
      return r.status === 200;
    };
    /** What the webhooks were asked about `name`, by webhook version, in arrival order. */
    const asked = (name: string) =>
      seen
        .filter((r) => (r.oldObject?.metadata.name ?? r.object?.metadata.name) === name)
        .map((r) => ({
          hook: r.kind.version,
          kind: r.kind,
          resource: r.resource,
          requestKind: r.requestKind,
          requestResource: r.requestResource,
          name: r.name,
          namespace: r.namespace,
          operation: r.operation,
          object: r.object ?? null,
          old: { apiVersion: r.oldObject?.apiVersion, spec: r.oldObject?.spec },
          options: r.options,
        }))
        .sort((x, y) => x.hook.localeCompare(y.hook));
    const forget = (): void => {
      seen.length = 0;
    };

    beforeAll(async () => {
      const certs = await generateWebhookCertificates({ hosts: ['127.0.0.1'] });
      const record = (r: AdmissionRequest<KubeObject>) => {
        seen.push(r);
        // only the v2 webhook denies, so which parallel denial comes first never matters
        return r.kind.version === 'v2' && r.oldObject?.metadata.labels?.['keep'] === 'true'
          ? denied(`${r.oldObject.metadata.name ?? ''} is kept`)
          : allowed();
      };
      hooks = new WebhookServer({ host: '127.0.0.1', port: 0, tls: { cert: certs.cert, key: certs.key } })
        .convert(
          { group: GROUP, kind: 'Part' },
          {
            hub: 'v2',
            spokes: {
              v1: {
                toHub: (o) => ({ ...o, spec: { count: (o.spec as { n: number }).n } }),
                fromHub: (o) => ({ ...o, spec: { n: (o.spec as { count: number }).count } }),
              },
            },
          },
        )
        .validate({ apiVersion: `${GROUP}/v1`, kind: 'Part' }, record, { path: '/v1' })
        .validate({ apiVersion: `${GROUP}/v2`, kind: 'Part' }, record, { path: '/v2' })
        // a v2 webhook growing a labelled Part by 100, in v2's terms, whatever version is written
        .mutate(
          { apiVersion: `${GROUP}/v2`, kind: 'Part' },
          (draft) => {
            const spec = draft.spec as { count: number };
            if (draft.metadata.labels?.['grow'] === 'true') spec.count += 100;
          },
          { path: '/grow' },
        );
      await hooks.start();
      const caBundle = Buffer.from(certs.caCert).toString('base64');
      const version = (name: string, storage: boolean, spec: Record<string, unknown>) => ({
        name,
        served: true,
        storage,
        schema: {
          openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } },
        },
      });
      const crd = await req('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        body: {
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'CustomResourceDefinition',
          metadata: { name: CRD },
          spec: {
            group: GROUP,
            scope: 'Namespaced',
            names: { plural: 'parts', singular: 'part', kind: 'Part', listKind: 'PartList' },
            versions: [
              version('v1', false, { n: { type: 'integer' } }),
              version('v2', true, { count: { type: 'integer' } }),
            ],
            conversion: {
              strategy: 'Webhook',
              webhook: {
                conversionReviewVersions: ['v1'],
                clientConfig: { url: hooks.url('/convert'), caBundle },
              },
            },
          },
        },
      });
      expect(crd.status, crd.text).toBe(201);
      const ns = await req('POST', '/api/v1/namespaces', {
        body: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS, labels: { suite: NS } } },
      });
      expect(ns.status, ns.text).toBe(201);
      const webhook = (version: string) => ({
        name: `${version}.${CRD}`,
        rules: [
          {
            apiGroups: [GROUP],
            apiVersions: [version],
            operations: ['CREATE', 'UPDATE', 'DELETE'],
            resources: ['parts'],
            scope: 'Namespaced',
          },
        ],
        clientConfig: { url: hooks.url(`/${version}`), caBundle },
        namespaceSelector: { matchLabels: { suite: NS } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        failurePolicy: 'Fail',
        timeoutSeconds: 10,
      });
      const config = await req(
        'POST',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        {
          body: {
            apiVersion: 'admissionregistration.k8s.io/v1',
            kind: 'ValidatingWebhookConfiguration',
            metadata: { name: CONFIG },
            webhooks: [webhook('v1'), webhook('v2')],
          },
        },
      );
      expect(config.status, config.text).toBe(201);
      const grow = await req('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
        body: {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'MutatingWebhookConfiguration',
          metadata: { name: CONFIG },
          webhooks: [
            {
              ...webhook('v2'),
              name: `grow.${CRD}`,
              rules: [{ ...webhook('v2').rules[0], operations: ['CREATE'] }],
              clientConfig: { url: hooks.url('/grow'), caBundle },
              objectSelector: { matchLabels: { grow: 'true' } },
            },
          ],
        },
      });
      expect(grow.status, grow.text).toBe(201);
      // the CRD's versions and the configuration are served once a kept probe's dry-run delete is denied
      await waitFor(
        'the parts served',
        async () =>
          (await req('POST', at('v2'), { body: part('probe', 0, { keep: 'true' }) })).status === 201 ||
          undefined,
        BOUND,
      );
      await waitFor(
        'the mutating webhook active',
        async () => {
          const probe = { ...part('grown', 1, { grow: 'true' }), apiVersion: `${GROUP}/v2` };
          const r = await req('POST', `${at('v2')}?dryRun=All`, { body: probe });
          return r.body?.spec?.count === 101 || undefined;
        },
        BOUND,
      );
      await waitFor(
        'the webhooks active',
        async () => (await req('DELETE', `${at('v1', 'probe')}?dryRun=All`)).status === 403 || undefined,
        BOUND,
      );
    }, 120_000);

    afterAll(async () => {
      if (hooks === undefined) return;
      await req('DELETE', `/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/${CONFIG}`);
      await req('DELETE', `/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations/${CONFIG}`);
      await req('DELETE', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${CRD}`);
      await req('DELETE', `/api/v1/namespaces/${NS}`);
      await hooks.stop();
    });

    it('a DELETE in the non-storage version calls each webhook with the object in its version', async () => {
      await create('p1', 3);
      forget();
      const r = await req('DELETE', at('v1', 'p1'));
      expect(r.status, r.text).toBe(200);
      const common = {
        requestKind: { group: GROUP, version: 'v1', kind: 'Part' },
        requestResource: { group: GROUP, version: 'v1', resource: 'parts' },
        name: 'p1',
        namespace: NS,
        operation: 'DELETE',
        object: null,
        options: { kind: 'DeleteOptions', apiVersion: 'meta.k8s.io/v1' },
      };
      expect(asked('p1')).toEqual([
        {
          hook: 'v1',
          kind: { group: GROUP, version: 'v1', kind: 'Part' },
          resource: { group: GROUP, version: 'v1', resource: 'parts' },
          old: { apiVersion: `${GROUP}/v1`, spec: { n: 3 } },
          ...common,
        },
        {
          hook: 'v2',
          kind: { group: GROUP, version: 'v2', kind: 'Part' },
          resource: { group: GROUP, version: 'v2', resource: 'parts' },
          old: { apiVersion: `${GROUP}/v2`, spec: { count: 3 } },
          ...common,
        },
      ]);
      expect(await exists('p1')).toBe(false);
    });

    it('a denied DELETE in either version keeps the object and answers the denial', async () => {
      await create('kept', 1, { keep: 'true' });
      for (const v of ['v1', 'v2']) {
        const r = await req('DELETE', at(v, 'kept'));
        expect(r.status, r.text).toBe(403);
        expect(r.body.message).toBe(`admission webhook "v2.${CRD}" denied the request: kept is kept`);
      }
      expect(await exists('kept')).toBe(true);
    });

    it('checks a DELETE’s preconditions before the webhooks: 409, not their denial', async () => {
      await create('kept-too', 1, { keep: 'true' });
      forget();
      const r = await req('DELETE', at('v1', 'kept-too'), {
        body: {
          apiVersion: 'v1',
          kind: 'DeleteOptions',
          preconditions: { uid: '00000000-0000-0000-0000-000000000000' },
        },
      });
      expect(r.status, r.text).toBe(409);
      expect(asked('kept-too')).toEqual([]);
    });

    it('a DELETE of an object that does not exist is a 404 without calling the webhooks', async () => {
      forget();
      const r = await req('DELETE', at('v1', 'absent'));
      expect(r.status, r.text).toBe(404);
      expect(seen).toEqual([]);
    });

    for (const version of ['v1', 'v2']) {
      it(`a deletecollection in ${version} calls the webhooks once per item, with each item`, async () => {
        const batch = `all-${version}`;
        await create(`${batch}-a`, 1, { batch });
        await create(`${batch}-b`, 2, { batch });
        forget();
        const r = await req('DELETE', `${at(version)}?labelSelector=batch%3D${batch}`);
        expect(r.status, r.text).toBe(200);
        for (const [name, count] of [
          [`${batch}-a`, 1],
          [`${batch}-b`, 2],
        ] as const) {
          expect(
            asked(name).map((a) => [a.hook, a.requestKind?.version, a.name, a.operation, a.old]),
          ).toEqual([
            // no name: the items are admitted with the collection's attributes (name omitted)
            ['v1', version, undefined, 'DELETE', { apiVersion: `${GROUP}/v1`, spec: { n: count } }],
            ['v2', version, undefined, 'DELETE', { apiVersion: `${GROUP}/v2`, spec: { count } }],
          ]);
          expect(await exists(name)).toBe(false);
        }
      });

      it(`a deletecollection in ${version} stops at a denied item: those before it deleted`, async () => {
        const batch = `deny-${version}`;
        await create(`${batch}-a`, 1, { batch });
        await create(`${batch}-b`, 2, { batch, keep: 'true' });
        await create(`${batch}-c`, 3, { batch });
        const r = await req('DELETE', `${at(version)}?labelSelector=batch%3D${batch}`);
        expect(r.status, r.text).toBe(403);
        expect(r.body.message).toBe(`admission webhook "v2.${CRD}" denied the request: ${batch}-b is kept`);
        expect([await exists(`${batch}-a`), await exists(`${batch}-b`), await exists(`${batch}-c`)]).toEqual([
          false,
          true,
          true,
        ]);
      });
    }

    it('a create, PUT and merge patch in the non-storage version are admitted in its version', async () => {
      const v1 = `${GROUP}/v1`;
      const v2 = `${GROUP}/v2`;
      const view = (name: string) =>
        seen
          .filter((q) => q.object?.metadata.name === name)
          .map((q) => [
            q.operation,
            q.kind.version,
            q.requestKind?.version,
            q.object?.apiVersion,
            q.object?.spec,
            q.oldObject?.apiVersion ?? null,
            q.oldObject?.spec ?? null,
          ])
          .sort((x, y) => String(x[1]).localeCompare(String(y[1])));
      forget();
      const created = await req('POST', at('v1'), {
        body: { apiVersion: v1, kind: 'Part', metadata: { name: 'w1', namespace: NS }, spec: { n: 5 } },
      });
      expect(created.status, created.text).toBe(201);
      expect(view('w1')).toEqual([
        ['CREATE', 'v1', 'v1', v1, { n: 5 }, null, null],
        ['CREATE', 'v2', 'v1', v2, { count: 5 }, null, null],
      ]);
      forget();
      const put = await req('PUT', at('v1', 'w1'), { body: { ...created.body, spec: { n: 6 } } });
      expect(put.status, put.text).toBe(200);
      expect(view('w1')).toEqual([
        ['UPDATE', 'v1', 'v1', v1, { n: 6 }, v1, { n: 5 }],
        ['UPDATE', 'v2', 'v1', v2, { count: 6 }, v2, { count: 5 }],
      ]);
      forget();
      const merge = await req('PATCH', at('v1', 'w1'), {
        body: { spec: { n: 7 } },
        contentType: 'application/merge-patch+json',
      });
      expect(merge.status, merge.text).toBe(200);
      expect(view('w1')).toEqual([
        ['UPDATE', 'v1', 'v1', v1, { n: 7 }, v1, { n: 6 }],
        ['UPDATE', 'v2', 'v1', v2, { count: 7 }, v2, { count: 6 }],
      ]);
    });

    it('a create with generateName is validated with the generated name, which it keeps', async () => {
      forget();
      const created = await req('POST', at('v1'), {
        body: {
          apiVersion: `${GROUP}/v1`,
          kind: 'Part',
          metadata: { generateName: 'gen-', namespace: NS },
          spec: { n: 1 },
        },
      });
      expect(created.status, created.text).toBe(201);
      const asks = seen.filter((q) => q.object?.metadata.generateName === 'gen-');
      // the registry generates the name before validating admission (rest.AdmissionToValidateObjectFunc)
      const name: string = created.body.metadata.name;
      expect(name).toMatch(/^gen-[a-z0-9]{5}$/);
      expect(
        asks
          .map((q) => [q.kind.version, q.operation, q.name, q.object?.metadata.name])
          .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      ).toEqual([
        ['v1', 'CREATE', name, name],
        ['v2', 'CREATE', name, name],
      ]);
    });

    it('a create in the non-storage version is mutated by a webhook of the storage version, in its terms', async () => {
      const created = await req('POST', at('v1'), {
        body: {
          apiVersion: `${GROUP}/v1`,
          kind: 'Part',
          metadata: { name: 'grown', namespace: NS, labels: { grow: 'true' } },
          spec: { n: 1 },
        },
      });
      expect(created.status, created.text).toBe(201);
      expect([created.body.apiVersion, created.body.spec]).toEqual([`${GROUP}/v1`, { n: 101 }]);
      expect((await req('GET', at('v2', 'grown'))).body.spec).toEqual({ count: 101 });
    });

    it('a create, PUT and patches in v1 record their managers at v1, with the v1 fields', async () => {
      // The server orders entries by operation, then by the second of their time, then by manager:
      // writes that straddle a second boundary change the order, so compare in manager order.
      const entries = (o: any) =>
        (o.metadata.managedFields as any[])
          .map((e) => [e.manager, e.operation, e.apiVersion, e.fieldsV1])
          .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      const v1 = `${GROUP}/v1`;
      const v2 = `${GROUP}/v2`;
      const created = await req('POST', `${at('v1')}?fieldManager=v1-create`, {
        body: { apiVersion: v1, kind: 'Part', metadata: { name: 'mf1', namespace: NS }, spec: { n: 1 } },
      });
      expect(created.status, created.text).toBe(201);
      expect(entries(created.body)).toEqual([
        ['v1-create', 'Update', v1, { 'f:spec': { '.': {}, 'f:n': {} } }],
      ]);

      await create('mf', 1);
      const creator = [
        'rxkube-test',
        'Update',
        v2,
        { 'f:metadata': { 'f:labels': { '.': {}, 'f:batch': {} } }, 'f:spec': { '.': {}, 'f:count': {} } },
      ];
      // the creator's spec.count, changed in v2 terms by a v1 write, leaves its entry (an empty f:spec stays)
      const creatorAfter = [
        'rxkube-test',
        'Update',
        v2,
        { 'f:metadata': { 'f:labels': { '.': {}, 'f:batch': {} } }, 'f:spec': {} },
      ];
      expect(entries((await req('GET', at('v2', 'mf'))).body)).toEqual([creator]);
      const current = (await req('GET', at('v1', 'mf'))).body;
      const put = await req('PUT', `${at('v1', 'mf')}?fieldManager=v1-put`, {
        body: { ...current, spec: { n: 2 } },
      });
      expect(put.status, put.text).toBe(200);
      expect(entries(put.body)).toEqual([
        creatorAfter,
        ['v1-put', 'Update', v1, { 'f:spec': { 'f:n': {} } }],
      ]);
      const merge = await req('PATCH', `${at('v1', 'mf')}?fieldManager=v1-merge`, {
        body: { metadata: { labels: { merged: 'yes' } }, spec: { n: 3 } },
        contentType: 'application/merge-patch+json',
      });
      expect(merge.status, merge.text).toBe(200);
      const merger = [
        'v1-merge',
        'Update',
        v1,
        { 'f:metadata': { 'f:labels': { 'f:merged': {} } }, 'f:spec': { 'f:n': {} } },
      ];
      // v1-put's only field moved to v1-merge: its entry is gone
      expect(entries(merge.body)).toEqual([creatorAfter, merger]);
      const json = await req('PATCH', `${at('v1', 'mf')}?fieldManager=v1-json`, {
        body: [{ op: 'add', path: '/metadata/annotations', value: { patched: 'json' } }],
        contentType: 'application/json-patch+json',
      });
      expect(json.status, json.text).toBe(200);
      const patcher = [
        'v1-json',
        'Update',
        v1,
        { 'f:metadata': { 'f:annotations': { '.': {}, 'f:patched': {} } } },
      ];
      expect(entries(json.body)).toEqual([creatorAfter, patcher, merger]);
      // the same entries read in the storage version; an unchanged PUT in v1 is no write
      const stored = (await req('GET', at('v2', 'mf'))).body;
      expect(entries(stored)).toEqual([creatorAfter, patcher, merger]);
      const again = await req('PUT', `${at('v1', 'mf')}?fieldManager=v1-json`, { body: json.body });
      expect(again.status, again.text).toBe(200);
      expect(again.body.metadata.resourceVersion).toBe(stored.metadata.resourceVersion);
    });
  },
  { realTimeoutMs: 60_000 },
);
