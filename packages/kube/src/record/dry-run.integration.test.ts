import { Writable } from 'node:stream';
import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { isNotFound } from '../errors.js';
import type { ControllerReconcile } from '../controller/options.js';
import { Manager } from '../manager/manager.js';
import type { ControllerResult } from '../controller/report.js';
import { createLogger } from '../ops/logging.js';
import type { KubeObject } from '../types.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

/** Creates a copy (apply), labels the source (patch) and deletes a victim: three kinds of write. */
const writeThreeWays: ControllerReconcile<KubeObject> = async (request, ctx) => {
  const ns = request.namespace ?? '';
  const copy: KubeObject = {
    ...CM,
    metadata: { name: `${request.name}-copy`, namespace: ns },
    data: { from: request.name },
  };
  await ctx.apply(copy);
  await ctx.patch(request, { type: 'merge', body: { metadata: { labels: { seen: 'yes' } } } });
  await ctx.delete({ ...CM, namespace: ns, name: 'victim' });
  return Action.awaitChange();
};

describeEachBackend('Manager dryRun (over HTTP)', (b) => {
  let client: KubeClient;
  const ns = 'dry-run-mgr';

  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  afterAll(() => client.close());

  it('sends every write with dryRun=All: nothing changes, the log says what would have', async () => {
    const source = await client.create<KubeObject>({
      ...CM,
      metadata: { name: 'src', namespace: ns, labels: { app: 'dry' } },
      data: { v: '1' },
    });
    const victim = await client.create<KubeObject>({ ...CM, metadata: { name: 'victim', namespace: ns } });
    const lines: string[] = [];
    const log = createLogger({
      level: 'info',
      destination: new Writable({ write: (chunk: Buffer, _e, cb) => (lines.push(chunk.toString()), cb()) }),
    });
    const mgr = new Manager({ client, name: 'dry-run-test', log, namespaces: [ns], dryRun: true });
    mgr.add('three', { for: CM, labelSelector: 'app=dry', fieldManager: 'three' }, writeThreeWays);
    const results: ControllerResult[] = [];
    mgr.results$.subscribe((r) => results.push(r));
    await mgr.start();
    try {
      await waitFor('the reconcile of src', () => results.some((r) => r.key === `${ns}/src`));
    } finally {
      await mgr.stop();
    }
    expect(results.filter((r) => r.key === `${ns}/src`).map((r) => r.outcome)).toContain('success');

    // Nothing changed: no copy, the source as it was, the victim still there.
    await expect(client.get({ ...CM, namespace: ns, name: 'src-copy' })).rejects.toSatisfy(isNotFound);
    const after = await client.get<KubeObject>({ ...CM, namespace: ns, name: 'src' });
    expect(after.metadata.resourceVersion).toBe(source.metadata.resourceVersion);
    expect(after.metadata.labels).toEqual({ app: 'dry' });
    const stillThere = await client.get<KubeObject>({ ...CM, namespace: ns, name: 'victim' });
    expect(stillThere.metadata.uid).toBe(victim.metadata.uid);

    // The log says what would have changed.
    const dry = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['dryRun'] === true);
    expect(dry.map((l) => l['msg'])).toEqual([
      `dry run: would create ConfigMap ${ns}/src-copy`,
      `dry run: would patch ConfigMap ${ns}/src (1 field)`,
      `dry run: would delete ConfigMap ${ns}/victim`,
    ]);
    expect(dry[1]).toMatchObject({ verb: 'patch', changes: { '.metadata.labels.seen': 'yes' } });
  });
});
