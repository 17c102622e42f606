import { afterEach, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@rxkube/core';

import { KubeApiError, ResourceNotFoundError } from '../errors.js';
import { INITIAL_WATCHER_HEALTH } from '../watcher/health.js';
import type { WatcherHealth } from '../watcher/health.js';
import { ControllerMetrics } from './metrics.js';
import type { ProbeServer, ProbeServerOptions } from './probes.js';
import { startProbeServer, storeSyncedCheck, WatchHealthChecks } from './probes.js';

const servers: ProbeServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(options: Omit<ProbeServerOptions, 'port' | 'host'>): Promise<ProbeServer> {
  const server = await startProbeServer({ port: 0, host: '127.0.0.1', ...options });
  servers.push(server);
  return server;
}

async function get(
  server: ProbeServer,
  path: string,
): Promise<{ status: number; body: string; type: string }> {
  const res = await fetch(`http://127.0.0.1:${server.port}${path}`);
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') ?? '' };
}

const health = (patch: Partial<WatcherHealth>): WatcherHealth => ({ ...INITIAL_WATCHER_HEALTH, ...patch });
const secrets = { resource: { apiVersion: 'v1', kind: 'Secret' }, namespace: 'default' };
const widgets = { resource: { apiVersion: 'example.com/v1', kind: 'Widget' } };
const SECRETS_REFUSED =
  'secrets is forbidden: User "system:serviceaccount:ops:op" cannot list resource "secrets" in API group "" in the namespace "default"';
const forbidden = health({
  phase: 'backoff',
  lastError: {
    kind: 'list',
    code: 403,
    reason: 'Forbidden',
    at: 1_000,
    message: SECRETS_REFUSED,
    // what the watcher carries: the client's error, with the request it refused
    cause: new KubeApiError({
      httpStatus: 403,
      method: 'GET',
      url: 'https://h/api/v1/namespaces/default/secrets',
      target: { verb: 'list', group: '', resource: 'secrets', namespace: 'default' },
      status: {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: SECRETS_REFUSED,
        reason: 'Forbidden',
        code: 403,
      },
    }),
  },
});

describe('/healthz', () => {
  it('answers ok while the event loop lag is under the limit, with a verbose list on ?verbose', async () => {
    const server = await start({ eventLoop: { lagMs: () => 12 } });
    expect(await get(server, '/healthz')).toEqual({
      status: 200,
      body: 'ok',
      type: 'text/plain; charset=utf-8',
    });
    expect((await get(server, '/healthz?verbose')).body).toBe('[+]event-loop ok\nhealthz check passed\n');
    expect((await get(server, '/livez')).status).toBe(200);
  });

  it('answers 500 with the reason when the event loop was blocked longer than maxLagMs', async () => {
    const lags = [40, 7_000, 40];
    const server = await start({ eventLoop: { maxLagMs: 5_000, lagMs: () => lags.shift() ?? 0 } });
    expect((await get(server, '/healthz')).status).toBe(200);
    const blocked = await get(server, '/healthz');
    expect(blocked.status).toBe(500);
    expect(blocked.body).toBe(
      '[-]event-loop failed: the event loop was blocked for 7000 ms (limit 5000 ms): a synchronous task is starving timers and I/O\nhealthz check failed\n',
    );
    expect((await get(server, '/healthz')).status).toBe(200);
  });

  it('measures the real event loop by default', async () => {
    const server = await start({ liveness: [{ name: 'self', check: () => ({ ok: true }) }] });
    const res = await get(server, '/healthz?verbose');
    expect(res).toMatchObject({ status: 200, body: '[+]event-loop ok\n[+]self ok\nhealthz check passed\n' });
  });
});

describe('/readyz', () => {
  it('is unready naming the resource refused with 403 and the unsynced cache, then ready once both recover', async () => {
    const store = { ready: false };
    const watches = new WatchHealthChecks();
    const server = await start({ checks: [storeSyncedCheck('secrets-cache', store), watches.check] });
    watches.record(secrets, forbidden);

    const unready = await get(server, '/readyz');
    expect(unready.status).toBe(500);
    expect(unready.body).toBe(
      '[-]secrets-cache failed: cache secrets-cache is not synced yet: its first list has not completed\n' +
        // the verbs the log line names too: a watch needs list and watch, whichever was refused
        '[-]watches failed: v1/Secret in namespace default: 403 Forbidden — grant "list" and "watch" on secrets in namespace default ' +
        '(the server refused "list"): a Role rule { apiGroups: [""], resources: ["secrets"], verbs: ["list", "watch"] } ' +
        `bound to the operator's identity (server: ${SECRETS_REFUSED})\n` +
        'readyz check failed\n',
    );
    // the same snapshot repeated (backoff ticking, retries) keeps it unready
    watches.record(secrets, { ...forbidden, phase: 'listing' });
    watches.record(secrets, { ...forbidden, errors: 3, lastError: { ...forbidden.lastError!, at: 2_000 } });
    expect((await get(server, '/readyz')).status).toBe(500);

    // RBAC granted: the list completes (listing → watching) and a watch opens; the cache syncs
    watches.record(secrets, { ...forbidden, phase: 'listing' });
    watches.record(secrets, { ...forbidden, phase: 'watching', connected: true, synced: true });
    store.ready = true;
    expect(await get(server, '/readyz')).toMatchObject({ status: 200, body: 'ok' });
    expect((await get(server, '/readyz?verbose')).body).toBe(
      '[+]secrets-cache ok\n[+]watches ok\nreadyz check passed\n',
    );
  });

  it('stays unready while a refused watch request is open, until it shows progress (no flapping)', async () => {
    // A list was allowed, the watch is refused (403): each retry opens a request — phase watching,
    // connected — for the few milliseconds until its 403 arrives. That open request is no recovery.
    const watches = new WatchHealthChecks();
    const server = await start({ checks: [watches.check] });
    const refused = (at: number): WatcherHealth['lastError'] => ({
      kind: 'watch',
      code: 403,
      reason: 'Forbidden',
      at,
      message: 'configmaps is forbidden: User "op" cannot watch resource "configmaps"',
    });
    const synced = { synced: true, resourceVersion: '7' } as const;
    watches.record(secrets, health({ ...synced, phase: 'listing' }));
    watches.record(secrets, health({ ...synced, phase: 'watching', connected: true }));
    watches.record(secrets, health({ ...synced, phase: 'backoff', reconnects: 1, lastError: refused(100) }));
    expect((await get(server, '/readyz')).status).toBe(500);
    for (const at of [900, 2_500, 5_700]) {
      // the retry's request is open, still showing the previous refusal …
      watches.record(
        secrets,
        health({
          ...synced,
          phase: 'watching',
          connected: true,
          reconnects: 2,
          lastError: refused(at - 800),
        }),
      );
      expect((await get(server, '/readyz')).status).toBe(500);
      // … then it is refused again
      watches.record(secrets, health({ ...synced, phase: 'backoff', reconnects: 2, lastError: refused(at) }));
      expect((await get(server, '/readyz')).status).toBe(500);
    }
    // granted: the open request receives a line (lastEventAt after the last refusal)
    watches.record(
      secrets,
      health({ ...synced, phase: 'watching', connected: true, reconnects: 3, lastError: refused(5_700) }),
    );
    expect((await get(server, '/readyz')).status).toBe(500);
    watches.record(
      secrets,
      health({
        ...synced,
        phase: 'watching',
        connected: true,
        reconnects: 3,
        lastError: refused(5_700),
        lastEventAt: 6_000,
      }),
    );
    expect(await get(server, '/readyz')).toMatchObject({ status: 200, body: 'ok' });
  });

  it('names a kind the server does not serve (CRD missing) and a 404', async () => {
    const watches = new WatchHealthChecks();
    const server = await start({ checks: [watches.check] });
    const cause = new ResourceNotFoundError('example.com/v1', 'Widget', 'group example.com not found');
    watches.record(
      widgets,
      health({ phase: 'backoff', lastError: { kind: 'list', at: 5, message: cause.message, cause } }),
    );
    const res = await get(server, '/readyz');
    expect(res.status).toBe(500);
    expect(res.body).toContain(
      'example.com/v1/Widget in all namespaces: 404 Not Found — is the CRD installed?',
    );
    expect(res.body).toContain('kind "Widget" of apiVersion "example.com/v1" is not served');
    // a later line means it is served now
    watches.record(
      widgets,
      health({
        phase: 'watching',
        lastEventAt: 9,
        lastError: { kind: 'list', at: 5, message: cause.message, cause },
      }),
    );
    expect((await get(server, '/readyz')).status).toBe(200);
  });

  it('stays ready through transient failures (5xx, 429, 410, stalls)', async () => {
    const watches = new WatchHealthChecks();
    const server = await start({ checks: [watches.check] });
    watches.record(
      secrets,
      health({ phase: 'backoff', lastError: { kind: 'watch', code: 503, at: 1, message: 'unavailable' } }),
    );
    watches.record(
      widgets,
      health({ phase: 'backoff', lastError: { kind: 'stall', at: 2, message: 'no line for 70 s' } }),
    );
    expect(await get(server, '/readyz')).toMatchObject({ status: 200, body: 'ok' });
    watches.forget(secrets);
    expect(watches.failures()).toEqual([]);
  });

  it('reports a check that throws as failed, not as a crash', async () => {
    const server = await start({
      checks: [
        {
          name: 'boom',
          check: () => {
            throw new Error('kaput');
          },
        },
      ],
    });
    expect(await get(server, '/readyz')).toMatchObject({
      status: 500,
      body: '[-]boom failed: the check threw: kaput\nreadyz check failed\n',
    });
  });
});

describe('startProbeServer', () => {
  it('serves /metrics from the registry and 404 elsewhere', async () => {
    const metrics = new ControllerMetrics();
    metrics.setLeader('op', true);
    const server = await start({ registry: metrics.registry, eventLoop: false });
    const res = await get(server, '/metrics');
    expect(res.status).toBe(200);
    expect(res.type).toBe(metrics.registry.contentType);
    expect(res.body).toContain('leader_election_master_status{name="op"} 1');
    expect((await get(server, '/nope')).status).toBe(404);
    expect(await get(server, '/healthz?verbose')).toMatchObject({
      status: 200,
      body: 'healthz check passed\n',
    });
  });

  it('rejects bad options with a typed error', async () => {
    await expect(startProbeServer({ port: -1 })).rejects.toThrow(InvalidArgumentError);
    await expect(
      startProbeServer({ port: 0, checks: [{ name: 'a b', check: () => ({ ok: true }) }] }),
    ).rejects.toThrow(/options.checks\[0\]/);
    await expect(
      startProbeServer({
        port: 0,
        checks: [storeSyncedCheck('x', { ready: true }), storeSyncedCheck('x', { ready: true })],
      }),
    ).rejects.toThrow(/must be unique/);
    await expect(startProbeServer({ port: 0, eventLoop: { maxLagMs: 0 } })).rejects.toThrow(/maxLagMs/);
  });
});
