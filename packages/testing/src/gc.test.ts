/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call, WatchReader } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const CM = '/api/v1/namespaces/wire/configmaps';

async function pair(prefix: string): Promise<{ parent: any; child: any }> {
  const parent = (
    await call(server.url, 'POST', CM, {
      body: { metadata: { name: `${prefix}-parent`, labels: { s14: prefix } } },
    })
  ).body;
  const child = (
    await call(server.url, 'POST', CM, {
      body: {
        metadata: {
          name: `${prefix}-child`,
          labels: { s14: prefix },
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: parent.metadata.name,
              uid: parent.metadata.uid,
              controller: true,
              blockOwnerDeletion: true,
            },
          ],
        },
      },
    })
  ).body;
  return { parent, child };
}

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'wire' } } });
});
afterAll(async () => {
  await server.stop();
});

describe('garbage collection (file 14)', () => {
  it('Background: Status Success, the child is deleted', async () => {
    await pair('bg');
    const w = new WatchReader(
      server.url,
      `${CM}?watch=1&resourceVersion=${String(server.resourceVersion)}&labelSelector=s14%3Dbg`,
    );
    await w.ready;
    const d = await call(server.url, 'DELETE', `${CM}/bg-parent`, {
      body: { apiVersion: 'v1', kind: 'DeleteOptions', propagationPolicy: 'Background' },
    });
    expect(d.body.status).toBe('Success');
    await w.count(2);
    expect(w.lines.map((l) => [l.type, l.object.metadata.name])).toEqual([
      ['DELETED', 'bg-parent'],
      ['DELETED', 'bg-child'],
    ]);
    w.close();
  });

  it('Foreground: the parent waits with foregroundDeletion until the child is gone', async () => {
    await pair('fg');
    const w = new WatchReader(
      server.url,
      `${CM}?watch=1&resourceVersion=${String(server.resourceVersion)}&labelSelector=s14%3Dfg`,
    );
    await w.ready;
    const d = await call(server.url, 'DELETE', `${CM}/fg-parent`, {
      body: { propagationPolicy: 'Foreground' },
    });
    expect(d.body.kind).toBe('ConfigMap');
    expect(d.body.metadata.finalizers).toEqual(['foregroundDeletion']);
    expect(d.body.metadata.deletionTimestamp).toBeDefined();
    await w.until(() => w.lines.filter((l) => l.type === 'DELETED').length === 2, 'both DELETED');
    const types = w.lines.map((l) => [l.type, l.object.metadata.name]);
    expect(types[0]).toEqual(['MODIFIED', 'fg-parent']);
    expect(types.indexOf(types.find((t) => t[0] === 'DELETED' && t[1] === 'fg-child')!)).toBeLessThan(
      types.indexOf(types.find((t) => t[0] === 'DELETED' && t[1] === 'fg-parent')!),
    );
    w.close();
  });

  it('Orphan: the child stays without ownerReferences', async () => {
    await pair('or');
    const w = new WatchReader(
      server.url,
      `${CM}?watch=1&resourceVersion=${String(server.resourceVersion)}&labelSelector=s14%3Dor`,
    );
    await w.ready;
    const d = await call(server.url, 'DELETE', `${CM}/or-parent?propagationPolicy=Orphan`);
    expect(d.body.metadata.finalizers).toEqual(['orphan']);
    await w.until(() => w.lines.some((l) => l.type === 'DELETED'), 'parent DELETED');
    const child = await call(server.url, 'GET', `${CM}/or-child`);
    expect(child.status).toBe(200);
    expect(child.body.metadata.ownerReferences).toBeUndefined();
    w.close();
  });
});

describe('finalizers and delete options (files 13, 19)', () => {
  it('DELETE with a finalizer sets deletionTimestamp; removing the finalizer deletes; new finalizers are refused', async () => {
    const c = await call(server.url, 'POST', CM, {
      body: { metadata: { name: 's13-cm', finalizers: ['example.com/cleanup'] } },
    });
    const w = new WatchReader(
      server.url,
      `${CM}?watch=1&resourceVersion=${String(c.body.metadata.resourceVersion)}&fieldSelector=metadata.name%3Ds13-cm`,
    );
    await w.ready;
    const d = await call(server.url, 'DELETE', `${CM}/s13-cm`);
    expect(d.body.kind).toBe('ConfigMap');
    expect(d.body.metadata.deletionGracePeriodSeconds).toBe(0);
    const again = await call(server.url, 'DELETE', `${CM}/s13-cm`);
    expect(again.body.metadata.resourceVersion).toBe(d.body.metadata.resourceVersion);
    const late = await call(server.url, 'PATCH', `${CM}/s13-cm`, {
      body: [{ op: 'add', path: '/metadata/finalizers/-', value: 'example.com/late' }],
      contentType: 'application/json-patch+json',
    });
    expect(late.status).toBe(422);
    expect(late.body.details.causes[0].reason).toBe('FieldValueForbidden');
    const rm = await call(server.url, 'PATCH', `${CM}/s13-cm`, {
      body: [
        { op: 'test', path: '/metadata/finalizers/0', value: 'example.com/cleanup' },
        { op: 'remove', path: '/metadata/finalizers/0' },
      ],
      contentType: 'application/json-patch+json',
    });
    expect(rm.status).toBe(200);
    expect((await call(server.url, 'GET', `${CM}/s13-cm`)).status).toBe(404);
    await w.count(2);
    expect(w.lines.map((l) => l.type)).toEqual(['MODIFIED', 'DELETED']);
    expect(w.lines[1]?.object.metadata.finalizers).toEqual(['example.com/cleanup']);
    w.close();
  });

  it('preconditions → 409 naming the Kind; dryRun deletes nothing; deletecollection returns the list', async () => {
    const c = await call(server.url, 'POST', CM, { body: { metadata: { name: 's19-a' } } });
    const uid = await call(server.url, 'DELETE', `${CM}/s19-a`, {
      body: { preconditions: { uid: '00000000-0000-0000-0000-000000000000' } },
    });
    expect(uid.status).toBe(409);
    expect(uid.body.details).toEqual({ name: 's19-a', kind: 'ConfigMap' });
    const rv = await call(server.url, 'DELETE', `${CM}/s19-a`, {
      body: { preconditions: { resourceVersion: '1' } },
    });
    expect(rv.body.message).toBe(
      `Operation cannot be fulfilled on ConfigMap "s19-a": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${String(c.body.metadata.resourceVersion)}). The object might have been modified`,
    );
    const dry = await call(server.url, 'DELETE', `${CM}/s19-a?dryRun=All`);
    expect(dry.body.status).toBe('Success');
    expect((await call(server.url, 'GET', `${CM}/s19-a`)).status).toBe(200);
    for (const n of ['c1', 'c2'])
      await call(server.url, 'POST', CM, {
        body: { metadata: { name: `s19-${n}`, labels: { s19: 'coll' } } },
      });
    const coll = await call(server.url, 'DELETE', `${CM}?labelSelector=s19%3Dcoll`);
    expect(coll.body.kind).toBe('ConfigMapList');
    expect(coll.body.items.map((i: any) => i.metadata.name)).toEqual(['s19-c1', 's19-c2']);
    const none = await call(server.url, 'DELETE', `${CM}?labelSelector=s19%3Dnone`);
    expect(none.body.items).toEqual([]);
  });
});

describe('namespace deletion (file 20)', () => {
  it('Terminating, 403 for new content, contents removed, then DELETED and 404', async () => {
    const ns = await call(server.url, 'POST', '/api/v1/namespaces', {
      body: { metadata: { name: 'wire-ns-del' } },
    });
    expect(ns.body.metadata.labels).toEqual({ 'kubernetes.io/metadata.name': 'wire-ns-del' });
    expect(ns.body.spec).toEqual({ finalizers: ['kubernetes'] });
    expect(ns.body.status).toEqual({ phase: 'Active' });
    await call(server.url, 'POST', '/api/v1/namespaces/wire-ns-del/configmaps', {
      body: { metadata: { name: 's20-cm' } },
    });
    const w = new WatchReader(
      server.url,
      `/api/v1/namespaces?watch=1&resourceVersion=${String(server.resourceVersion)}&fieldSelector=metadata.name%3Dwire-ns-del`,
    );
    await w.ready;
    // hold the namespace controller back with a finalizer on the content
    await call(server.url, 'PATCH', '/api/v1/namespaces/wire-ns-del/configmaps/s20-cm', {
      body: { metadata: { finalizers: ['example.com/hold'] } },
      contentType: 'application/merge-patch+json',
    });
    const d = await call(server.url, 'DELETE', '/api/v1/namespaces/wire-ns-del');
    expect(d.body.status.phase).toBe('Terminating');
    expect(d.body.metadata.deletionTimestamp).toBeDefined();
    const late = await call(server.url, 'POST', '/api/v1/namespaces/wire-ns-del/configmaps', {
      body: { metadata: { name: 's20-late' } },
    });
    expect(late.status).toBe(403);
    expect(late.body.message).toBe(
      'configmaps "s20-late" is forbidden: unable to create new content in namespace wire-ns-del because it is being terminated',
    );
    expect(late.body.details.causes).toEqual([
      {
        reason: 'NamespaceTerminating',
        message: 'namespace wire-ns-del is being terminated',
        field: 'metadata.namespace',
      },
    ]);
    await call(server.url, 'PATCH', '/api/v1/namespaces/wire-ns-del/configmaps/s20-cm', {
      body: { metadata: { finalizers: null } },
      contentType: 'application/merge-patch+json',
    });
    await w.until(() => w.lines.some((l) => l.type === 'DELETED'), 'namespace DELETED');
    expect(w.lines.at(-1)?.object.spec).toEqual({ finalizers: ['kubernetes'] });
    expect((await call(server.url, 'GET', '/api/v1/namespaces/wire-ns-del')).status).toBe(404);
    expect((await call(server.url, 'GET', '/api/v1/namespaces/wire-ns-del/configmaps/s20-cm')).status).toBe(
      404,
    );
    w.close();
  });

  it('gc: false leaves dependents alone', async () => {
    const off = await startApiServer({ gc: false });
    try {
      const p = await call(off.url, 'POST', '/api/v1/namespaces/default/configmaps', {
        body: { metadata: { name: 'p' } },
      });
      await call(off.url, 'POST', '/api/v1/namespaces/default/configmaps', {
        body: {
          metadata: {
            name: 'c',
            ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'p', uid: p.body.metadata.uid }],
          },
        },
      });
      await call(off.url, 'DELETE', '/api/v1/namespaces/default/configmaps/p');
      // a later write is ordered after any controller pass the delete could have scheduled
      await new Promise((resolve) => setImmediate(resolve));
      expect(off.objects('configmaps', 'default').map((o) => o.metadata.name)).toEqual(['c']);
    } finally {
      await off.stop();
    }
  });
});

describe('namespaceDeletionDelayMs', () => {
  it('keeps a deleted namespace Terminating with its content until the controller starts', async () => {
    // a delay no test outlives: the controller never starts while we look
    const slow = await startApiServer({ namespaceDeletionDelayMs: 3_600_000 });
    try {
      await call(slow.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ns' } } });
      await call(slow.url, 'POST', '/api/v1/namespaces/ns/configmaps', { body: { metadata: { name: 'c' } } });
      await call(slow.url, 'DELETE', '/api/v1/namespaces/ns');
      const ns = await call(slow.url, 'GET', '/api/v1/namespaces/ns');
      expect(ns.status).toBe(200);
      expect(ns.body.status).toEqual({ phase: 'Terminating' });
      expect(ns.body.spec).toEqual({ finalizers: ['kubernetes'] });
      expect((await call(slow.url, 'GET', '/api/v1/namespaces/ns/configmaps/c')).status).toBe(200);
      const late = await call(slow.url, 'POST', '/api/v1/namespaces/ns/configmaps', {
        body: { metadata: { name: 'late' } },
      });
      expect(late.status).toBe(403);
      expect(late.body.details.causes[0].reason).toBe('NamespaceTerminating');
    } finally {
      await slow.stop();
    }
  });

  it('0: the namespace and its content go on the next controller pass; managedFields name kube-controller-manager', async () => {
    const fast = await startApiServer({ namespaceDeletionDelayMs: 0 });
    try {
      await call(fast.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'ns' } } });
      await call(fast.url, 'POST', '/api/v1/namespaces/ns/configmaps', { body: { metadata: { name: 'c' } } });
      const w = new WatchReader(
        fast.url,
        `/api/v1/namespaces?watch=1&resourceVersion=${String(fast.resourceVersion)}&fieldSelector=metadata.name%3Dns`,
      );
      await w.ready;
      await call(fast.url, 'DELETE', '/api/v1/namespaces/ns');
      await w.until(() => w.lines.some((l) => l.type === 'DELETED'), 'namespace DELETED');
      const last = w.lines.at(-1)?.object;
      expect(last?.metadata.managedFields).toContainEqual(
        expect.objectContaining({ manager: 'kube-controller-manager', subresource: 'status' }),
      );
      expect(fast.objects('configmaps', 'ns')).toEqual([]);
      w.close();
    } finally {
      await fast.stop();
    }
  });
});
