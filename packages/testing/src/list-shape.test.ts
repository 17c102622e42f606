/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
/**
 * The JSON envelope of a list, the same on both backends: the embedded server must answer what
 * kube-apiserver v1.24 answers — full lists, metadata-only lists (PartialObjectMetadataList) and
 * Tables, empty and not, built-in and custom resources. The shapes below were read from the real
 * server; `"items": null` for an empty metadata-only list is apimachinery's nil slice
 * (metav1.PartialObjectMetadataList.Items has no omitempty), which clients must read as empty.
 */
import { beforeAll, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import { describeEachBackend } from './vitest/describe-each-backend.js';
import { waitFor } from './wait-for.js';

const META = 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1';
const TABLE = 'application/json;as=Table;g=meta.k8s.io;v=v1';
const NS = 'list-shapes';
const SECRETS = `/api/v1/namespaces/${NS}/secrets`;
const WIDGETS = `/apis/example.com/v1/namespaces/${NS}/widgets`;

/** What identifies a list's envelope, without values that differ by run (resourceVersion, tokens). */
function shape(body: any): Record<string, unknown> {
  const items = body.items;
  return {
    kind: body.kind,
    apiVersion: body.apiVersion,
    metadata: Object.keys(body.metadata ?? {}).sort(),
    ...(typeof body.metadata?.continue === 'string'
      ? { continue: body.metadata.continue === '' ? '' : 'token' }
      : {}),
    ...('items' in body ? { items: Array.isArray(items) ? items.length : items } : {}),
    ...(Array.isArray(items) && items.length > 0
      ? { itemKind: items[0].kind ?? null, itemApiVersion: items[0].apiVersion ?? null }
      : {}),
    ...('rows' in body ? { rows: Array.isArray(body.rows) ? body.rows.length : body.rows } : {}),
  };
}

describeEachBackend(
  'list envelopes (as kube-apiserver v1.24 sends them)',
  (b) => {
    const auth = () => ({
      headers: { Authorization: `Bearer ${b.cluster.token}` },
      ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
    });
    const get = async (path: string, accept = 'application/json'): Promise<Record<string, unknown>> => {
      const r = await call(b.cluster.url, 'GET', path, {
        accept,
        ...auth(),
      });
      expect(r.status, `GET ${path}: ${r.text}`).toBe(200);
      return shape(r.body);
    };
    const post = async (path: string, body: unknown): Promise<void> => {
      const r = await call(b.cluster.url, 'POST', path, {
        body,
        ...auth(),
      });
      expect(r.status, `POST ${path}: ${r.text}`).toBe(201);
    };

    beforeAll(async () => {
      await post('/api/v1/namespaces', { metadata: { name: NS } });
      await post('/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
        metadata: { name: 'widgets.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
            },
          ],
        },
      });
      // served once Established (a real server needs a moment)
      await waitFor(
        'widgets.example.com served',
        async () => (await call(b.cluster.url, 'GET', WIDGETS, auth())).status === 200,
      );
    });

    it('empty lists: items [] in full lists, null in metadata-only ones, rows [] in Tables', async () => {
      expect(await get(SECRETS)).toEqual({
        kind: 'SecretList',
        apiVersion: 'v1',
        metadata: ['resourceVersion'],
        items: 0,
      });
      expect(await get(SECRETS, META)).toEqual({
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata: ['resourceVersion'],
        items: null,
      });
      expect(await get(`${SECRETS}?limit=1&labelSelector=none%3Dhere`, META)).toMatchObject({ items: null });
      expect(await get(SECRETS, TABLE)).toMatchObject({
        kind: 'Table',
        apiVersion: 'meta.k8s.io/v1',
        metadata: ['resourceVersion'],
        rows: 0,
      });
      expect(await get(WIDGETS)).toEqual({
        kind: 'WidgetList',
        apiVersion: 'example.com/v1',
        metadata: ['continue', 'resourceVersion'],
        continue: '',
        items: 0,
      });
      expect(await get(WIDGETS, META)).toEqual({
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata: ['resourceVersion'],
        items: null,
      });
      expect(await get(WIDGETS, TABLE)).toMatchObject({ kind: 'Table', rows: 0 });
    });

    it('lists with items: built-in items without TypeMeta, custom resources and metadata-only with it', async () => {
      for (const name of ['s1', 's2', 's3']) {
        await post(SECRETS, { metadata: { name }, stringData: { k: 'v' } });
        await post(WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name } });
      }
      expect(await get(SECRETS)).toEqual({
        kind: 'SecretList',
        apiVersion: 'v1',
        metadata: ['resourceVersion'],
        items: 3,
        itemKind: null,
        itemApiVersion: null,
      });
      expect(await get(SECRETS, META)).toEqual({
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata: ['resourceVersion'],
        items: 3,
        itemKind: 'PartialObjectMetadata',
        itemApiVersion: 'meta.k8s.io/v1',
      });
      expect(await get(`${SECRETS}?limit=2`, META)).toEqual({
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata: ['continue', 'remainingItemCount', 'resourceVersion'],
        continue: 'token',
        items: 2,
        itemKind: 'PartialObjectMetadata',
        itemApiVersion: 'meta.k8s.io/v1',
      });
      expect(await get(SECRETS, TABLE)).toMatchObject({ kind: 'Table', rows: 3 });
      expect(await get(WIDGETS)).toEqual({
        kind: 'WidgetList',
        apiVersion: 'example.com/v1',
        metadata: ['continue', 'resourceVersion'],
        continue: '',
        items: 3,
        itemKind: 'Widget',
        itemApiVersion: 'example.com/v1',
      });
      expect(await get(`${WIDGETS}?limit=2`)).toEqual({
        kind: 'WidgetList',
        apiVersion: 'example.com/v1',
        metadata: ['continue', 'remainingItemCount', 'resourceVersion'],
        continue: 'token',
        items: 2,
        itemKind: 'Widget',
        itemApiVersion: 'example.com/v1',
      });
      expect(await get(WIDGETS, TABLE)).toMatchObject({ kind: 'Table', rows: 3 });
    });
  },
  { controllerManager: false },
);
