/**
 * Issue 12 §3 over HTTP: a finalizer whose cleanup must write into a namespace that is being
 * deleted (403 NamespaceTerminating, packages/testing/fixtures/kube-wire/20-namespace-deletion.json) finishes instead of blocking the namespace's
 * deletion forever — which sent a user to fix RBAC while the namespace stayed Terminating. Issue 18
 * §5: and it leaves a trace — a warn line always, and a Warning Event where one can be stored (on
 * a cluster-scoped owner, in `default`; none in the terminating namespace itself).
 */
import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { of } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { ControllerResult } from '../controller/controller.js';
import { controller } from '../controller/controller.js';
import type { ControllerLogger } from '../controller/options.js';
import { isNamespaceTerminating, isNotFound } from '../errors.js';
import { EventRecorder } from '../events/event-recorder.js';

/** The warn lines a controller logs. */
function warnings(): {
  log: ControllerLogger;
  lines: { message: string; fields: Record<string, unknown> }[];
} {
  const lines: { message: string; fields: Record<string, unknown> }[] = [];
  return { lines, log: { warn: (message, fields) => lines.push({ message, fields: { ...fields } }) } };
}

const NS = 'fin-terminating';
const FIN = 'example.com/copies';

describeEachBackend('finalizer cleanup into a terminating namespace', (b) => {
  let client: KubeClient;
  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterAll(() => {
    client.close();
  });

  it('finishes the cleanup, removes the finalizer and lets the namespace go', async () => {
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'guarded', namespace: NS },
    });
    const refusals: unknown[] = [];
    const results: ControllerResult[] = [];
    const { log, lines } = warnings();
    const recorder = new EventRecorder(client, {
      reportingController: 'example.com/fin',
      reportingInstance: 'fin-0',
    });
    const sub = controller({
      for: { apiVersion: 'v1', kind: 'ConfigMap' },
      namespace: NS,
      client,
      log,
      recorder,
      finalizer: {
        name: FIN,
        // Writes a record of the cleanup next to the object: refused once the namespace terminates.
        cleanup: (object, ctx) =>
          ctx
            .create({
              apiVersion: 'v1',
              kind: 'Secret',
              metadata: { name: `${object.metadata.name ?? ''}-cleaned`, namespace: NS },
            })
            .catch((error: unknown) => {
              refusals.push(error);
              throw error;
            }),
      },
    })
      .run(() => of(Action.awaitChange()))
      .subscribe((r) => results.push(r));
    try {
      await waitFor('the finalizer on the ConfigMap', async () => {
        const cm = await b.cluster.get('configmaps', NS, 'guarded');
        return (cm?.metadata.finalizers ?? []).includes(FIN);
      });
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS });
      // a real namespace controller takes seconds (it lists every resource type first)
      await waitFor(
        'the namespace to be gone',
        async () => {
          try {
            await client.get({ apiVersion: 'v1', kind: 'Namespace', name: NS });
            return false;
          } catch (error) {
            if (isNotFound(error)) return true;
            throw error;
          }
        },
        { timeoutMs: 45_000 },
      );
      expect(refusals.length).toBeGreaterThanOrEqual(1);
      expect(refusals.every((e) => isNamespaceTerminating(e))).toBe(true);
      expect(results.filter((r) => r.outcome === 'error')).toEqual([]);
      // said, not silent: the object is in the terminating namespace, so no Event can be stored
      expect(lines.filter((l) => l.message.includes('which is being deleted'))[0]?.fields).toMatchObject({
        key: `${NS}/guarded`,
        finalizer: FIN,
        namespace: NS,
        event: 'not recorded: the object is in the terminating namespace, where no Event can be stored',
      });
    } finally {
      sub.unsubscribe();
    }
  });

  it('a cluster-scoped owner: logs the cut-short cleanup and records its Warning Event in default', async () => {
    const target = 'fin-target';
    const hold = 'example.com/hold';
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: target } });
    // keeps the namespace Terminating (not gone) while the owner's cleanup runs
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'held', namespace: target, finalizers: [hold] },
    });
    const { log, lines } = warnings();
    const recorder = new EventRecorder(client, {
      reportingController: 'example.com/fin',
      reportingInstance: 'fin-0',
    });
    const OWNER = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' } as const;
    const sub = controller({
      for: OWNER,
      labelSelector: 'fin-owner=yes',
      client,
      log,
      recorder,
      finalizer: {
        name: FIN,
        cleanup: (object, ctx) =>
          ctx.create({
            apiVersion: 'v1',
            kind: 'Secret',
            metadata: { name: `${object.metadata.name ?? ''}-cleaned`, namespace: target },
          }),
      },
    })
      .run(() => of(Action.awaitChange()))
      .subscribe();
    try {
      await client.create({
        ...OWNER,
        metadata: { name: 'fin-owner', labels: { 'fin-owner': 'yes' } },
        rules: [],
      });
      await waitFor('the finalizer on the owner', async () => {
        const owner = await b.cluster.get('clusterroles.rbac.authorization.k8s.io', undefined, 'fin-owner');
        return (owner?.metadata.finalizers ?? []).includes(FIN);
      });
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: target });
      await waitFor('the target namespace Terminating', async () => {
        const ns = (await b.cluster.get('namespaces', undefined, target)) as
          { status?: { phase?: string } } | undefined;
        return ns?.status?.phase === 'Terminating';
      });
      await client.delete({ ...OWNER, name: 'fin-owner' });
      await waitFor(
        'the owner gone (finalizer removed)',
        async () =>
          (await b.cluster.get('clusterroles.rbac.authorization.k8s.io', undefined, 'fin-owner')) ===
          undefined,
      );
      expect(lines.filter((l) => l.message.includes('which is being deleted'))[0]?.fields).toMatchObject({
        key: 'fin-owner',
        namespace: target,
        event: 'Warning CleanupIncomplete recorded on the object (in namespace default)',
      });
      await waitFor('the Warning Event in default', async () => {
        const events = (await b.cluster.list('events.events.k8s.io', 'default')) as unknown as {
          reason?: string;
          regarding?: { kind?: string; name?: string };
        }[];
        return events.some(
          (e) =>
            e.reason === 'CleanupIncomplete' &&
            e.regarding?.kind === 'ClusterRole' &&
            e.regarding.name === 'fin-owner',
        );
      });
    } finally {
      sub.unsubscribe();
      recorder.complete();
      await client
        .patch(
          { apiVersion: 'v1', kind: 'ConfigMap', namespace: target, name: 'held' },
          { type: 'merge', body: { metadata: { finalizers: null } } },
        )
        .catch(() => undefined);
    }
  });
});
