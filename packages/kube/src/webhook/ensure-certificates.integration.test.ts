/**
 * `ensureWebhookCertificates` on both backends: the first call makes a CA and a serving
 * certificate and keeps them in a Secret; the next reuses them; close to expiry the serving
 * certificate is renewed from the same CA, and the running server swaps to it without a restart.
 * With `tls.selfManaged` the server does it on its own timer (virtual time here: the scheduler
 * is flushed to the renewal, the served certificate is read over HTTPS before and after).
 */
import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';

import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { VirtualTimeScheduler } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { ensureWebhookCertificates } from './ensure-certificates.js';
import { allowed } from './types.js';
import { WebhookServer } from './webhook-server.js';

const NS = 'cert-keeping';
const secret = { namespace: NS, name: 'webhook-certs' };
const DAY_MS = 24 * 60 * 60 * 1000;

function servedSerial(url: string, ca: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', ca, agent: false, headers: { 'content-type': 'application/json' } },
      (res) => {
        resolve((res.socket as TLSSocket).getPeerCertificate().serialNumber);
        res.resume();
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

describeEachBackend('ensureWebhookCertificates (a CA kept in a Secret)', (b) => {
  let client: KubeClient;
  let server: WebhookServer | undefined;

  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  });

  afterAll(async () => {
    await server?.stop();
    if (client === undefined) return;
    await client.delete({ apiVersion: 'v1', kind: 'Namespace', name: NS }).catch(() => undefined);
    client.close();
  });

  it('makes, keeps, reuses and renews the certificates; the server swaps without a restart', async () => {
    const first = await ensureWebhookCertificates(client, { secret, hosts: ['127.0.0.1'] });
    const stored = await client.get<{ data: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'Secret',
      ...secret,
    });
    expect(Object.keys(stored.data).sort()).toEqual(['ca.crt', 'ca.key', 'tls.crt', 'tls.key']);
    expect(new X509Certificate(first.cert).checkIssued(new X509Certificate(first.caCert))).toBe(true);

    const again = await ensureWebhookCertificates(client, { secret, hosts: ['127.0.0.1'] });
    expect(again.cert).toBe(first.cert);

    server = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      tls: { cert: first.cert, key: first.key },
    }).validate({ apiVersion: 'v1', kind: 'ConfigMap' }, () => allowed());
    await server.start();
    const url = server.url('/validate--v1-configmap');
    expect(await servedSerial(url, first.caCert)).toBe(new X509Certificate(first.cert).serialNumber);

    // 340 days on, 25 days before the serving certificate expires: renewed from the same CA
    const later = new Date(Date.now() + 340 * DAY_MS);
    const renewed = await ensureWebhookCertificates(client, { secret, hosts: ['127.0.0.1'], now: later });
    expect(renewed.caCert).toBe(first.caCert);
    expect(renewed.cert).not.toBe(first.cert);
    expect(new X509Certificate(renewed.cert).checkIssued(new X509Certificate(first.caCert))).toBe(true);
    const kept = await client.get<{ data: Record<string, string> }>({
      apiVersion: 'v1',
      kind: 'Secret',
      ...secret,
    });
    expect(Buffer.from(kept.data['tls.crt'] ?? '', 'base64').toString('utf8')).toBe(renewed.cert);

    server.setCertificate({ cert: renewed.cert, key: renewed.key });
    expect(await servedSerial(url, first.caCert)).toBe(new X509Certificate(renewed.cert).serialNumber);
    expect(() => server?.setCertificate({ cert: renewed.cert, key: first.key })).toThrow();
  });

  it('renews on its own timer while serving (tls.selfManaged): swapped over HTTPS, CA kept', async () => {
    const own = { namespace: NS, name: 'timer-certs' };
    // virtual time starts at 0 (1970): the renewal is due ~11 months of virtual time away
    const scheduler = new VirtualTimeScheduler();
    const timed = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      client,
      scheduler,
      tls: { selfManaged: { secret: own, hosts: ['127.0.0.1'] } },
    }).validate({ apiVersion: 'v1', kind: 'ConfigMap' }, () => allowed());
    await timed.start();
    try {
      const read = async () => {
        const s = await client.get<{ data: Record<string, string> }>({
          apiVersion: 'v1',
          kind: 'Secret',
          ...own,
        });
        const pem = (k: string) => Buffer.from(s.data[k] ?? '', 'base64').toString('utf8');
        return { ca: pem('ca.crt'), cert: pem('tls.crt') };
      };
      const before = await read();
      const url = timed.url('/validate--v1-configmap');
      const first = await servedSerial(url, before.ca);
      expect(first).toBe(new X509Certificate(before.cert).serialNumber);
      expect(scheduler.now()).toBe(0);

      scheduler.flush(); // runs the timer up to 30 days before notAfter: the renewal starts
      const renewedAt = scheduler.now();
      // at notAfter − renewBeforeDays (30): the issued notAfter has milliseconds, the X.509 one whole seconds
      const due = new X509Certificate(before.cert).validToDate.getTime() - 30 * DAY_MS;
      expect(renewedAt).toBeGreaterThanOrEqual(due);
      expect(renewedAt).toBeLessThan(due + 1000);
      await waitFor(
        'the renewed certificate to be served',
        async () => (await servedSerial(url, before.ca)) !== first,
        {
          timeoutMs: 30_000,
        },
      );
      const after = await read();
      expect(after.ca).toBe(before.ca);
      expect(after.cert).not.toBe(before.cert);
      expect(await servedSerial(url, before.ca)).toBe(new X509Certificate(after.cert).serialNumber);
    } finally {
      await timed.stop();
    }
  });
});
