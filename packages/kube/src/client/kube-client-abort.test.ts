/**
 * Issue 19 §1: `options.signal` of every verb cancels its HTTP request. Observed from the server:
 * a request the embedded server holds (`faults.stall`) is released — its connection closed — when
 * the caller aborts; the call rejects with a `KubeTransportError` of failure `aborted` whose cause
 * is the signal's reason.
 */
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeTransportError } from '../errors.js';
import type { KubeObject } from '../types.js';
import { KubeClient } from './kube-client.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

const configMap = (name: string): KubeObject & { data: Record<string, string> } => ({
  ...CM,
  metadata: { name, namespace: 'default' },
  data: { k: 'v' },
});

/** The rejection of `call`, which must reject. */
async function rejection(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => {
      throw new Error('the call resolved; it should have been aborted');
    },
    (e: unknown) => e,
  );
}

function expectAborted(error: unknown, reason: Error, method: string): void {
  expect(error).toBeInstanceOf(KubeTransportError);
  const e = error as KubeTransportError;
  expect(e.failure).toBe('aborted');
  expect(e.cause).toBe(reason);
  expect(e.method).toBe(method);
  expect(e.message).toContain('cancelled by its AbortSignal');
  expect(e.message).toContain(reason.message);
}

describeEachBackend('KubeClient: options.signal cancels the request (over HTTP)', (b) => {
  let client: KubeClient;

  beforeAll(() => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
  });
  afterAll(() => {
    client.close();
  });

  it('an already aborted signal rejects at once and sends nothing', async () => {
    const reason = new Error('given up before sending');
    const signal = AbortSignal.abort(reason);
    expectAborted(await rejection(client.create(configMap('never-sent'), { signal })), reason, 'POST');
    expectAborted(
      await rejection(client.delete({ ...CM, namespace: 'default', name: 'never-sent' }, { signal })),
      reason,
      'DELETE',
    );
    expect(await b.cluster.get('configmaps', 'default', 'never-sent')).toBeUndefined();
  });

  b.itOn('embedded', 'needs fault injection: a stalled response')(
    'a GET aborted mid-flight is released by the server, rejects naming the cause, and the client stays usable',
    async () => {
      await client.create(configMap('stalled-get'));
      b.apiServer.faults.stall({ method: 'GET', path: /\/configmaps\/stalled-get$/, count: 1 });
      const abort = new AbortController();
      const call = rejection(
        client.get({ ...CM, namespace: 'default', name: 'stalled-get' }, { signal: abort.signal }),
      );
      await waitFor('the server to hold the GET', () => b.apiServer.faults.stalledRequests().length === 1);
      expect(b.apiServer.faults.stalledRequests()).toEqual([
        { method: 'GET', path: '/api/v1/namespaces/default/configmaps/stalled-get' },
      ]);
      const reason = new Error('the reconcile deadline passed');
      abort.abort(reason);
      expectAborted(await call, reason, 'GET');
      // the server saw the connection close: nothing is left in flight
      await waitFor('the server to release the GET', () => b.apiServer.faults.stalledRequests().length === 0);
      expect(b.apiServer.faults.counts.requestsStalled).toBe(1);
      const again = await client.get<KubeObject>({ ...CM, namespace: 'default', name: 'stalled-get' });
      expect(again.metadata.name).toBe('stalled-get');
    },
  );

  b.itOn('embedded', 'needs fault injection: a stalled response')(
    'every verb forwards its signal: list (a later page), create, replace, patch, apply, delete',
    async () => {
      for (const name of ['page-a', 'page-b', 'target']) await client.create(configMap(name));
      const target = await client.get<KubeObject>({ ...CM, namespace: 'default', name: 'target' });
      const ref = { ...CM, namespace: 'default', name: 'target' };
      const calls: [string, RegExp, (signal: AbortSignal) => Promise<unknown>][] = [
        [
          'GET',
          /\/configmaps\?.*continue=/,
          (signal) => client.list(CM, { namespace: 'default', limit: 1, signal }),
        ],
        ['POST', /\/configmaps(\?|$)/, (signal) => client.create(configMap('created'), { signal })],
        ['PUT', /\/configmaps\/target/, (signal) => client.replace(target, { signal })],
        [
          'PATCH',
          /\/configmaps\/target/,
          (signal) => client.patch(ref, { type: 'merge', body: { data: { k: 'x' } } }, { signal }),
        ],
        [
          'PATCH',
          /\/configmaps\/target\?.*fieldManager=abort-test/,
          (signal) => client.apply(configMap('target'), { fieldManager: 'abort-test', signal }),
        ],
        ['DELETE', /\/configmaps\/target/, (signal) => client.delete(ref, { signal })],
      ];
      for (const [method, path, call] of calls) {
        b.apiServer.faults.stall({ method, path, count: 1 });
        const abort = new AbortController();
        const rejected = rejection(call(abort.signal));
        await waitFor(`the server to hold the ${method} ${String(path)}`, () =>
          b.apiServer.faults.stalledRequests().some((r) => r.method === method),
        );
        const reason = new Error(`cancel the ${method}`);
        abort.abort(reason);
        expectAborted(await rejected, reason, method);
        await waitFor(`the server to release the ${method}`, () =>
          b.apiServer.faults.stalledRequests().every((r) => r.method !== method),
        );
      }
      expect(b.apiServer.faults.pending()).toEqual([]);
      // nothing was written: the server never answered the held writes
      expect(await b.cluster.get('configmaps', 'default', 'created')).toBeUndefined();
      expect(await b.cluster.get('configmaps', 'default', 'target')).toMatchObject({ data: { k: 'v' } });
    },
  );
});
