import { describe, expect, it } from 'vitest';

import type { KubeClient } from '../client/kube-client.js';
import { ManagerConfigError, settingsFromArgs, settingsFromEnv, withSettings } from './config.js';

const client = { close: () => undefined } as unknown as KubeClient;

describe('manager configuration (env, flags, options)', () => {
  it('reads every setting from the environment', () => {
    expect(
      settingsFromEnv({
        RXKUBE_NAMESPACES: 'team-a, team-b',
        RXKUBE_CONCURRENCY: '4',
        RXKUBE_METRICS_PORT: '8080',
        RXKUBE_HEALTH_PORT: 'off',
        RXKUBE_LEADER_ELECT: 'true',
        RXKUBE_LEASE_NAME: 'copyrator',
        POD_NAMESPACE: 'operators',
        LOG_LEVEL: 'debug',
        RXKUBE_SHUTDOWN_TIMEOUT: '45s',
      }),
    ).toEqual({
      namespaces: ['team-a', 'team-b'],
      concurrency: 4,
      metricsPort: 8080,
      healthPort: false,
      leaderElection: true,
      leaseName: 'copyrator',
      leaseNamespace: 'operators',
      logLevel: 'debug',
      shutdownTimeoutMs: 45_000,
    });
    expect(settingsFromEnv({ WATCH_NAMESPACE: 'only' })).toEqual({ namespaces: ['only'] });
    expect(settingsFromEnv({})).toEqual({});
  });

  it('reads every setting from flags', () => {
    expect(
      settingsFromArgs([
        '-n',
        'a',
        '--namespace',
        'b,c',
        '--concurrency',
        '2',
        '--metrics-port',
        '0',
        '--health-port',
        '8081',
        '--leader-elect',
        '--lease-name',
        'x',
        '--lease-namespace',
        'ops',
        '--log-level',
        'warn',
        '--shutdown-timeout',
        '500ms',
      ]),
    ).toEqual({
      namespaces: ['a', 'b', 'c'],
      concurrency: 2,
      metricsPort: 0,
      healthPort: 8081,
      leaderElection: true,
      leaseName: 'x',
      leaseNamespace: 'ops',
      logLevel: 'warn',
      shutdownTimeoutMs: 500,
    });
    expect(settingsFromArgs(['--no-leader-elect'])).toEqual({ leaderElection: false });
  });

  it('names the flag or variable and what it accepts when a value is bad', () => {
    expect(() => settingsFromEnv({ RXKUBE_CONCURRENCY: 'many' })).toThrow(
      'invalid RXKUBE_CONCURRENCY="many": expected an integer >= 1',
    );
    expect(() => settingsFromArgs(['--health-port', '70000'])).toThrow(/--health-port.*0–65535/);
    expect(() => settingsFromArgs(['--log-level', 'loud'])).toThrow(/expected one of fatal, error/);
    expect(() => settingsFromArgs(['--shutdown-timeout', 'soon'])).toThrow(/duration like 30s/);
    expect(() => settingsFromEnv({ RXKUBE_LEADER_ELECT: 'maybe' })).toThrow(ManagerConfigError);
    expect(() => settingsFromArgs(['-n', 'Bad_NS'])).toThrow(/--namespace="Bad_NS"/);
    expect(() => settingsFromArgs(['--bogus'])).toThrow(/Unknown option '--bogus'/);
  });

  it('layers flags over env over options; election settings merge into the options', () => {
    const base = { client, name: 'op', concurrency: 1, leaderElection: { leaseNamespace: 'code' } };
    const merged = withSettings(
      base,
      settingsFromEnv({ RXKUBE_CONCURRENCY: '3', RXKUBE_LEASE_NAME: 'from-env' }),
      settingsFromArgs(['--concurrency', '5']),
    );
    expect(merged).toMatchObject({
      concurrency: 5,
      leaderElection: { leaseNamespace: 'code', leaseName: 'from-env' },
    });
    expect(withSettings(base, settingsFromArgs(['--no-leader-elect'])).leaderElection).toBe(false);
    expect(withSettings({ client, name: 'op' }, settingsFromArgs(['--leader-elect'])).leaderElection).toEqual(
      {},
    );
    expect(withSettings({ client, name: 'op' }, {}).leaderElection).toBe(false);
  });
});
