import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { ManagerConfigError, settingsFromArgs, settingsFromEnv, withSettings } from '../manager/config.js';

const kc = new KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: false }],
  users: [{ name: 'u', token: 't' }],
  contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
  currentContext: 'ctx',
});

describe('--shard-ring / RXKUBE_SHARD_RING', () => {
  it('sets sharding.ring, flags over environment, keeping the code’s other sharding settings', () => {
    const client = KubeClient.fromKubeConfig(kc);
    try {
      expect(settingsFromEnv({ RXKUBE_SHARD_RING: 'widgets' })).toEqual({ shardRing: 'widgets' });
      expect(settingsFromArgs(['--shard-ring', 'gadgets'])).toEqual({ shardRing: 'gadgets' });
      const merged = withSettings(
        { client, name: 'op', sharding: { ring: 'code', buckets: 128 } },
        settingsFromEnv({ RXKUBE_SHARD_RING: 'widgets' }),
        settingsFromArgs(['--shard-ring', 'gadgets']),
      );
      expect(merged.sharding).toEqual({ ring: 'gadgets', buckets: 128 });
      expect(withSettings({ client, name: 'op' }, {}).sharding).toBeUndefined();
    } finally {
      client.close();
    }
  });

  it('refuses a ring that is not a DNS label, naming the flag or variable', () => {
    expect(() => settingsFromArgs(['--shard-ring', 'a.b'])).toThrow(ManagerConfigError);
    expect(() => settingsFromEnv({ RXKUBE_SHARD_RING: 'Widgets' })).toThrow(
      /RXKUBE_SHARD_RING="Widgets".*DNS label/,
    );
  });
});
