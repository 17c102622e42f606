/**
 * Where the Manager's probe and metrics servers listen (controller-runtime's
 * `HealthProbeBindAddress` and `Metrics.BindAddress`): a bind address names the interface, `"0"`
 * serves nothing, and flags/environment set them as `--health-probe-bind-address`
 * (`--health-bind-address`) and `--metrics-bind-address`. 127.0.0.2 is a loopback address on
 * Linux that 127.0.0.1 does not reach: a server bound to it refuses connections to 127.0.0.1.
 */
import type { ApiServer } from '@rxkube/testing';
import { startApiServer } from '@rxkube/testing';
import { NEVER } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import { ManagerConfigError, settingsFromArgs, settingsFromEnv, withSettings } from './config.js';
import { Manager } from './manager.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

let server: ApiServer;
let client: KubeClient;
beforeAll(async () => {
  server = await startApiServer();
  client = KubeClient.fromKubeConfig(server.kubeConfig);
});
afterAll(async () => {
  client.close();
  await server.stop();
});

const status = (url: string): Promise<number | string> =>
  fetch(url).then(
    (r) => r.status,
    (e: unknown) => String((e as { cause?: { code?: string } }).cause?.code ?? e),
  );

describe('Manager bind addresses', () => {
  it('listens only on the interface a bind address names', async () => {
    const mgr = new Manager({
      client,
      name: 'bound',
      logLevel: 'silent',
      healthProbeBindAddress: '127.0.0.2:0',
      metricsBindAddress: '127.0.0.2:0',
    });
    mgr.add('cms', { for: CM, namespace: 'default' }, () => NEVER);
    await mgr.start();
    try {
      const [health, metrics] = mgr.ports;
      expect(await status(`http://127.0.0.2:${health}/healthz`)).toBe(200);
      expect(await status(`http://127.0.0.2:${metrics}/metrics`)).toBe(200);
      expect(await status(`http://127.0.0.1:${health}/healthz`)).toBe('ECONNREFUSED');
      expect(await status(`http://127.0.0.1:${metrics}/metrics`)).toBe('ECONNREFUSED');
    } finally {
      await mgr.stop();
    }
  });

  it('"0" serves no metrics at all, not even on the probe server', async () => {
    const mgr = new Manager({
      client,
      name: 'no-metrics',
      logLevel: 'silent',
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '0',
    });
    mgr.add('cms', { for: CM, namespace: 'default' }, () => NEVER);
    await mgr.start();
    try {
      expect(mgr.ports).toHaveLength(1);
      expect(await status(`http://127.0.0.1:${mgr.ports[0]}/healthz`)).toBe(200);
      expect(await status(`http://127.0.0.1:${mgr.ports[0]}/metrics`)).toBe(404);
    } finally {
      await mgr.stop();
    }
  });

  it('refuses a malformed bind address, naming the option', () => {
    for (const bad of ['8081', 'localhost', '127.0.0.1:99999', ':', 'a:b']) {
      expect(
        () => new Manager({ client, name: 'bad', logLevel: 'silent', healthProbeBindAddress: bad }),
      ).toThrow(InvalidArgumentError);
    }
    expect(() => new Manager({ client, name: 'bad', logLevel: 'silent', metricsBindAddress: 'x' })).toThrow(
      /options\.metricsBindAddress.*"host:port"/,
    );
  });
});

describe('bind addresses from flags and the environment', () => {
  it('reads controller-runtime’s flag names (and --health-bind-address) and RXKUBE_* variables', () => {
    expect(
      settingsFromArgs(['--health-probe-bind-address', ':8081', '--metrics-bind-address', '127.0.0.1:8080']),
    ).toEqual({ healthProbeBindAddress: ':8081', metricsBindAddress: '127.0.0.1:8080' });
    expect(settingsFromArgs(['--health-bind-address', '[::1]:8081'])).toEqual({
      healthProbeBindAddress: '[::1]:8081',
    });
    expect(
      settingsFromEnv({ RXKUBE_HEALTH_PROBE_BIND_ADDRESS: '0', RXKUBE_METRICS_BIND_ADDRESS: ':9090' }),
    ).toEqual({ healthProbeBindAddress: '0', metricsBindAddress: ':9090' });
    expect(() => settingsFromArgs(['--metrics-bind-address', '8080'])).toThrow(ManagerConfigError);
    expect(() => settingsFromArgs(['--metrics-bind-address', '8080'])).toThrow(
      /invalid --metrics-bind-address="8080": expected "host:port"/,
    );
  });

  it('a later port overrides an earlier bind address of the same server, and the reverse', () => {
    const base = {
      client,
      name: 'op',
      healthProbeBindAddress: ':8081',
      metricsBindAddress: '127.0.0.1:8080',
    };
    const portFlag = withSettings(base, { healthPort: 0 });
    expect(portFlag.healthPort).toBe(0);
    expect(portFlag.healthProbeBindAddress).toBeUndefined();
    expect(portFlag.metricsBindAddress).toBe('127.0.0.1:8080');
    const addressFlag = withSettings({ client, name: 'op', metricsPort: 8080 }, { metricsBindAddress: '0' });
    expect(addressFlag.metricsBindAddress).toBe('0');
  });
});
