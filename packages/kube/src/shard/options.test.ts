import { KubeConfig } from '@kubernetes/client-node';
import { InvalidArgumentError } from '@rxkube/core';
import { describe, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { Manager } from '../manager/manager.js';
import { resolveShardingOptions } from './options.js';

describe('resolveShardingOptions', () => {
  it('fills in the defaults (64 buckets, uid, client-go timings, 10 s drain)', () => {
    expect(resolveShardingOptions({ ring: 'widgets', namespace: 'ops' }, 'me')).toEqual({
      ring: 'widgets',
      buckets: 64,
      key: 'uid',
      namespace: 'ops',
      identity: 'me',
      leaseDurationMs: 15_000,
      renewDeadlineMs: 10_000,
      retryPeriodMs: 2_000,
      drainTimeoutMs: 10_000,
    });
  });

  it.each([
    [{ ring: 'Widgets' }, 'options.sharding.ring', /DNS label/],
    [{ ring: 'a.b' }, 'options.sharding.ring', /DNS label/],
    [{ ring: 'x'.repeat(41) }, 'options.sharding.ring', /at most 40/],
    [{ ring: 'w', buckets: 0 }, 'options.sharding.buckets', />= 1/],
    [{ ring: 'w', buckets: 1.5 }, 'options.sharding.buckets', /integer/],
    [{ ring: 'w', buckets: 4096 }, 'options.sharding.buckets', /at most 1024/],
    [{ ring: 'w', key: 'name' }, 'options.sharding.key', /"uid" or "namespace"/],
    [
      { ring: 'w', leaseDurationMs: 11_000 },
      'options.sharding.leaseDurationMs',
      /renewDeadlineMs \+ retryPeriodMs/,
    ],
    [{ ring: 'w', renewDeadlineMs: 2_000 }, 'options.sharding.renewDeadlineMs', /1.2 × retryPeriodMs/],
    [{ ring: 'w', identity: '' }, 'options.sharding.identity', /non-empty/],
  ])('refuses %j, naming %s and the fix', (options, argument, message) => {
    let error: unknown;
    try {
      resolveShardingOptions(options as never, 'me');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect((error as InvalidArgumentError).argument).toBe(argument);
    expect((error as Error).message).toMatch(message);
  });

  it('a Manager with bad sharding settings fails when constructed, before anything starts', () => {
    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: false }],
      users: [{ name: 'u' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const client = KubeClient.fromKubeConfig(kc);
    try {
      expect(() => new Manager({ client, name: 'op', sharding: { ring: 'Not_A_Label' } })).toThrow(
        InvalidArgumentError,
      );
    } finally {
      client.close();
    }
  });
});
