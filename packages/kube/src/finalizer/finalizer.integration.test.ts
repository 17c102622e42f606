/**
 * Issue 12 §3 over HTTP: a finalizer whose cleanup must write into a namespace that is being
 * deleted (403 NamespaceTerminating, packages/testing/fixtures/kube-wire/20-namespace-deletion.json) finishes instead of blocking the namespace's
 * deletion forever — which sent a user to fix RBAC while the namespace stayed Terminating.
 */
import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { of } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { ControllerResult } from '../controller/controller.js';
import { controller } from '../controller/controller.js';
import { isNamespaceTerminating, isNotFound } from '../errors.js';

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
    const sub = controller({
      for: { apiVersion: 'v1', kind: 'ConfigMap' },
      namespace: NS,
      client,
      log: {},
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
    } finally {
      sub.unsubscribe();
    }
  });
});
