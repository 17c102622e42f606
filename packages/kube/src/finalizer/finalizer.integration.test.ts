/**
 * Issue 12 §3 over HTTP: a finalizer whose cleanup must write into a namespace that is being
 * deleted (403 NamespaceTerminating, packages/testing/fixtures/kube-wire/20-namespace-deletion.json) finishes instead of blocking the namespace's
 * deletion forever — which sent a user to fix RBAC while the namespace stayed Terminating.
 */
import { Action } from '@rxkube/core';
import type { ApiServer } from '@rxkube/testing';
import { startApiServer } from '@rxkube/testing';
import { firstValueFrom, of, timer } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { ControllerResult } from '../controller/controller.js';
import { controller } from '../controller/controller.js';
import { isNamespaceTerminating, isNotFound } from '../errors.js';

const NS = 'fin-terminating';
const FIN = 'example.com/copies';

/** Resolves once `probe()` holds, checking every 20 ms; rejects after 10 s. */
async function eventually(what: string, probe: () => Promise<boolean>): Promise<void> {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (await probe()) return;
    await firstValueFrom(timer(20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('finalizer cleanup into a terminating namespace (embedded server)', () => {
  let server: ApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });
  afterAll(async () => {
    client.close();
    await server.stop();
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
      await eventually('the finalizer on the ConfigMap', () => {
        const cm = server.object('configmaps', NS, 'guarded');
        return Promise.resolve((cm?.metadata.finalizers ?? []).includes(FIN));
      });
      await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS });
      await eventually('the namespace to be gone', async () => {
        try {
          await client.get({ apiVersion: 'v1', kind: 'Namespace', name: NS });
          return false;
        } catch (error) {
          if (isNotFound(error)) return true;
          throw error;
        }
      });
      expect(refusals.length).toBeGreaterThanOrEqual(1);
      expect(refusals.every((e) => isNamespaceTerminating(e))).toBe(true);
      expect(results.filter((r) => r.outcome === 'error')).toEqual([]);
    } finally {
      sub.unsubscribe();
    }
  });
});
