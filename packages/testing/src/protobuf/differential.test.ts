import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import type { TestBackend } from '../backends/backends.js';
import { selectedBackends, startTestBackend } from '../backends/backends.js';
import type { KObj } from '../store/object.js';
import { PROTOBUF_MEDIA_TYPE } from './envelope.js';

interface Recorded {
  readonly name: string;
  readonly path: string;
  readonly request: string;
}
const recorded = JSON.parse(
  readFileSync(new URL('../../fixtures/protobuf/kubectl-create.json', import.meta.url), 'utf8'),
) as Recorded[];

/**
 * What differs for reasons outside protobuf, removed from both sides before comparing (the rest
 * must be equal): defaults the real server's registry strategies and defaulters set on create that
 * the embedded server does not emulate yet, and managedFields whose field sets follow from those
 * defaults and from the built-in schemas' atomic maps and structs (`Service.spec.selector`,
 * `Deployment.spec.selector`), which the embedded field manager does not know yet.
 */
const NOT_EMULATED_YET: Readonly<Record<string, readonly string[]>> = {
  Deployment: [
    'metadata.managedFields',
    'spec.strategy',
    'spec.template.spec.containers.0.imagePullPolicy',
    'spec.template.spec.containers.0.ports.0.protocol',
    'spec.template.spec.containers.0.resources',
    'spec.template.spec.containers.0.terminationMessagePath',
    'spec.template.spec.containers.0.terminationMessagePolicy',
    'spec.template.spec.dnsPolicy',
    'spec.template.spec.restartPolicy',
    'spec.template.spec.schedulerName',
    'spec.template.spec.securityContext',
    'spec.template.spec.terminationGracePeriodSeconds',
    'status',
  ],
  Service: [
    'metadata.managedFields',
    'spec.clusterIP',
    'spec.clusterIPs',
    'spec.internalTrafficPolicy',
    'spec.ipFamilies',
    'spec.ipFamilyPolicy',
  ],
};

function drop(o: unknown, path: readonly string[]): void {
  const [head, ...rest] = path;
  if (head === undefined || typeof o !== 'object' || o === null) return;
  const rec = o as Record<string, unknown>;
  if (rest.length === 0) delete rec[head];
  else drop(rec[head], rest);
}

/** The stored object without what differs between any two servers (uids, versions, times). */
function comparable(o: KObj): KObj {
  const copy = JSON.parse(JSON.stringify(o)) as KObj;
  const m = copy.metadata;
  delete m.uid;
  delete m.resourceVersion;
  delete m.creationTimestamp;
  for (const entry of Array.isArray(m['managedFields'])
    ? (m['managedFields'] as Record<string, unknown>[])
    : [])
    delete entry['time'];
  for (const p of NOT_EMULATED_YET[String(copy['kind'])] ?? []) drop(copy, p.split('.'));
  return copy;
}

/** POSTs raw bytes as the admin, trusting the backend's own CA; resolves with status and text. */
function postBytes(
  s: TestBackend,
  path: string,
  body: Buffer,
  contentType: string,
): Promise<{ status: number; text: string }> {
  const cluster = s.kubeConfig.getCurrentCluster();
  const ca = cluster?.caData
    ? Buffer.from(cluster.caData, 'base64')
    : cluster?.caFile
      ? readFileSync(cluster.caFile)
      : undefined;
  const url = new URL(path, s.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = send(
      url,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${s.token}`,
          'Content-Type': contentType,
          'Content-Length': String(body.length),
          Accept: 'application/json',
        },
        ...(ca ? { ca } : {}),
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** `configmaps`, `deployments.apps`, … of a recorded path. */
function resourceOf(path: string): string {
  const parts = path.split('/').filter(Boolean);
  const group = parts[0] === 'api' ? '' : (parts[1] ?? '');
  const rest = parts.slice(parts[0] === 'api' ? 2 : 3);
  const plural = rest[0] === 'namespaces' && rest.length > 2 ? rest[2] : rest[0];
  return group === '' ? (plural ?? '') : `${plural ?? ''}.${group}`;
}

const real = selectedBackends().find((b) => b.name === 'real');
const SERVED = ['configmap', 'deployment', 'service', 'secret', 'namespace', 'serviceaccount'];

// the protobuf bodies kubectl's generators send, created on kube-apiserver 1.24 and on the embedded
// server: read back as JSON, both store the same object
describe.skipIf(!real?.enabled)(
  `protobuf bodies stored alike by kube-apiserver and the embedded server${real?.enabled ? '' : ` — skipped: ${real?.reason ?? ''}`}`,
  () => {
    let servers: TestBackend[] = [];
    beforeAll(async () => {
      servers = await Promise.all([startTestBackend('embedded'), startTestBackend('real')]);
    }, 120_000);
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    }, 60_000);

    for (const r of recorded.filter((x) => SERVED.some((s) => x.name.startsWith(`${s} `)))) {
      it(`kubectl create ${r.name}`, async () => {
        const collection = `${r.path.slice(0, r.path.lastIndexOf('/'))}?fieldManager=kubectl-create`;
        const stored: KObj[] = [];
        for (const s of servers) {
          const created = await postBytes(s, collection, Buffer.from(r.request, 'hex'), PROTOBUF_MEDIA_TYPE);
          expect(created.status, `${s.name}: ${created.text}`).toBe(201);
          const namespaced = /\/namespaces\/[^/]+\/[^/]+\/[^/]+$/.test(r.path);
          const name = r.path.slice(r.path.lastIndexOf('/') + 1);
          const got = await s.get(resourceOf(r.path), namespaced ? 'default' : undefined, name);
          stored.push(got ?? { metadata: {} });
        }
        const [embedded, kubeApiserver] = stored.map(comparable);
        expect(embedded).toStrictEqual(kubeApiserver);
      });
    }
  },
);
