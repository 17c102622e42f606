/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
import { readFileSync } from 'node:fs';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';
import type { KObj } from '../store/object.js';
import { decodeProtobufObject, encodeProtobuf } from './codec.js';
import { PROTOBUF_MEDIA_TYPE, decodeEnvelope, encodeEnvelope } from './envelope.js';

interface Recorded {
  readonly name: string;
  readonly path: string;
  readonly request: string;
  readonly kubectlJson: KObj;
}
const recorded = JSON.parse(
  readFileSync(new URL('../../fixtures/protobuf/kubectl-create.json', import.meta.url), 'utf8'),
) as Recorded[];
const KUBECTL_ACCEPT = 'application/vnd.kubernetes.protobuf,application/json';

let server: ApiServer;
beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  await fetch(`${server.url}/apis/apiextensions.k8s.io/v1/customresourcedefinitions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
        scope: 'Namespaced',
        versions: [
          {
            name: 'v1',
            served: true,
            storage: true,
            schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
          },
        ],
      },
    }),
  });
});
afterAll(async () => {
  await server.stop();
});

async function send(
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: Uint8Array,
): Promise<{ status: number; type: string; bytes: Buffer }> {
  const res = await fetch(`${server.url}${path}`, { method, headers, ...(body ? { body } : {}) });
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

const json = (b: Buffer): any => JSON.parse(b.toString('utf8'));

/** Drops what the server generates, to compare two objects created apart. */
function comparable(o: any): unknown {
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, managedFields, ...metadata } = o.metadata;
  if (!Array.isArray(managedFields)) return { ...o, metadata };
  const entries = managedFields.map(({ time: _t, ...entry }: Record<string, unknown>) => entry);
  return { ...o, metadata: { ...metadata, managedFields: entries } };
}

/** What a protobuf client sees of a JSON object: the Go struct's JSON. */
const asGo = (o: KObj): KObj => decodeProtobufObject(encodeProtobuf(o) ?? Buffer.alloc(0));

const collectionOf = (path: string): string => path.slice(0, path.lastIndexOf('/'));

describe('protobuf request bodies (kubectl create, recorded from kube-apiserver v1.24)', () => {
  const served = ['configmap', 'deployment', 'service', 'secret', 'namespace', 'serviceaccount'];
  for (const r of recorded.filter((x) => served.some((s) => x.name.startsWith(`${s} `)))) {
    it(`kubectl's ${r.name} body is created, answered in protobuf, and stored as its JSON would be`, async () => {
      const collection = `${collectionOf(r.path)}?fieldManager=kubectl-create`;
      const created = await send(
        'POST',
        collection,
        { 'Content-Type': PROTOBUF_MEDIA_TYPE, Accept: KUBECTL_ACCEPT },
        Buffer.from(r.request, 'hex'),
      );
      expect(created.status).toBe(201);
      expect(created.type).toBe(PROTOBUF_MEDIA_TYPE);
      const stored = json((await send('GET', r.path, { Accept: 'application/json' })).bytes) as KObj;
      expect(decodeProtobufObject(created.bytes)).toStrictEqual(asGo(stored));
      // the same object sent as JSON (what kubectl prints with --dry-run=client -o json), under another name
      const twin = {
        ...r.kubectlJson,
        metadata: { ...r.kubectlJson.metadata, name: `${r.kubectlJson.metadata.name ?? ''}-json` },
      };
      const viaJson = await send(
        'POST',
        collection,
        { 'Content-Type': 'application/json' },
        Buffer.from(JSON.stringify(twin)),
      );
      expect(viaJson.status).toBe(201);
      const twinText = (await send('GET', `${r.path}-json`, { Accept: 'application/json' })).bytes.toString(
        'utf8',
      );
      const name = stored.metadata.name ?? '';
      expect(comparable(stored)).toStrictEqual(
        comparable(JSON.parse(twinText.replaceAll(`"${name}-json"`, `"${name}"`))),
      );
    });
  }
});

describe('protobuf request errors, in kube-apiserver 1.24 words (create.go transformDecodeError)', () => {
  const CM = '/api/v1/namespaces/default/configmaps';
  const post = (body: Uint8Array, path = CM) =>
    send('POST', path, { 'Content-Type': PROTOBUF_MEDIA_TYPE, Accept: 'application/json' }, body);

  it('empty body, missing prefix, truncated message', async () => {
    expect(json((await post(Buffer.alloc(0))).bytes).message).toBe(
      'the object provided is unrecognized (must be of type ConfigMap): empty data (<empty>)',
    );
    const noMagic = await post(Buffer.from([0x0a, 0x00]));
    expect(noMagic.status).toBe(400);
    expect(json(noMagic.bytes).message).toBe(
      'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] (0a00)',
    );
    expect(json((await post(Buffer.from('6b387300ffff', 'hex'))).bytes).message).toBe(
      'the object provided is unrecognized (must be of type ConfigMap): unexpected EOF (6b387300ffff)',
    );
  });

  it('a kind in the envelope other than the URL’s is refused as for JSON', async () => {
    const secret = encodeProtobuf({ kind: 'Secret', apiVersion: 'v1', metadata: { name: 'cm9' } });
    const r = await post(secret ?? Buffer.alloc(0));
    expect(r.status).toBe(400);
    expect(json(r.bytes).message).toBe(
      'Secret in version "v1" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion',
    );
  });

  it('an envelope without kind takes the URL’s', async () => {
    const cm = encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'cm-anon' } });
    const r = await post(encodeEnvelope('', '', decodeEnvelope(cm ?? Buffer.alloc(0)).raw));
    expect(r.status).toBe(201);
    expect(json(r.bytes)).toMatchObject({
      kind: 'ConfigMap',
      apiVersion: 'v1',
      metadata: { name: 'cm-anon' },
    });
  });

  it('a built-in kind without a declared message (CRDs) is 415, naming it', async () => {
    const crd = encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'x' } });
    const r = await post(crd ?? Buffer.alloc(0), '/apis/apiextensions.k8s.io/v1/customresourcedefinitions');
    expect(r.status).toBe(415);
    expect(json(r.bytes).message).toContain(
      'no protobuf message for apiextensions.k8s.io/v1 CustomResourceDefinition',
    );
  });

  it("custom resources never decode protobuf: 400 Object 'Kind' is missing", async () => {
    const widget = encodeProtobuf({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'w' } });
    const r = await post(widget ?? Buffer.alloc(0), '/apis/example.com/v1/namespaces/default/widgets');
    expect(r.status).toBe(400);
    expect(json(r.bytes).message).toBe(
      "ConfigMap in version \"v1\" cannot be handled as a Widget: Object 'Kind' is missing in 'object has no kind field '",
    );
  });
});
