import { describe, expect, it } from 'vitest';

import { KubeApiError } from '../errors.js';
import type { WatcherFailure, WatcherHealth } from '../watcher/health.js';
import { INITIAL_WATCHER_HEALTH } from '../watcher/health.js';
import { WatchFailureLog } from './watch-failure-log.js';

const target = { resource: { apiVersion: 'v1', kind: 'ConfigMap' }, namespace: 'shop' } as const;

function recorder(): {
  log: WatchFailureLog;
  lines: { level: 'warn' | 'info'; fields: Record<string, unknown>; msg: string }[];
} {
  const lines: { level: 'warn' | 'info'; fields: Record<string, unknown>; msg: string }[] = [];
  const log = new WatchFailureLog({
    warn: ((fields: Record<string, unknown>, msg: string) =>
      lines.push({ level: 'warn', fields, msg })) as never,
    info: ((fields: Record<string, unknown>, msg: string) =>
      lines.push({ level: 'info', fields, msg })) as never,
  });
  return { log, lines };
}

const snapshot = (h: Partial<WatcherHealth>): WatcherHealth => ({ ...INITIAL_WATCHER_HEALTH, ...h });
const failure = (at: number, code: number, kind: WatcherFailure['kind'] = 'watch'): WatcherFailure => ({
  kind,
  code,
  at,
  message: `failed with ${code}`,
  ...(code === 403
    ? {
        cause: new KubeApiError({
          httpStatus: 403,
          status: {
            apiVersion: 'v1',
            kind: 'Status',
            metadata: {},
            status: 'Failure',
            reason: 'Forbidden',
            code: 403,
            message: 'no',
          },
          method: 'GET',
          url: 'https://k/api/v1/namespaces/shop/configmaps?watch=true',
          target: { verb: 'watch', group: '', resource: 'configmaps', namespace: 'shop' },
        }),
      }
    : {}),
});

/**
 * The snapshots of one refused/failing watch request at `at`: open (still showing the previous
 * failure, `at - 10`), then the failure and its backoff.
 */
function attempt(log: WatchFailureLog, at: number, code: number): void {
  const previous = at > 10 ? failure(at - 10, code) : undefined;
  log.record(target, snapshot({ phase: 'watching', connected: true, lastError: previous }));
  log.record(target, snapshot({ phase: 'backoff', connected: false, lastError: failure(at, code) }));
}

describe('WatchFailureLog', () => {
  it('logs a refused watch once per streak, naming what to grant, and once when a line arrives', () => {
    const { log, lines } = recorder();
    log.record(target, snapshot({ phase: 'listing' }));
    for (let at = 10; at <= 50; at += 10) attempt(log, at, 403);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      fields: { watch: 'v1/ConfigMap in namespace shop', code: 403, verb: 'watch', resource: 'configmaps' },
    });
    expect(lines[0]?.msg).toContain(
      'refused: grant "list" and "watch" on configmaps in namespace shop (the server refused "watch"): ' +
        'a Role rule { apiGroups: [""], resources: ["configmaps"], verbs: ["list", "watch"] }',
    );
    // granted: the next request opens (not yet progress), then its first line arrives
    log.record(target, snapshot({ phase: 'watching', connected: true, lastError: failure(50, 403) }));
    expect(lines).toHaveLength(1);
    log.record(
      target,
      snapshot({ phase: 'watching', connected: true, lastError: failure(50, 403), lastEventAt: 61 }),
    );
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      ['warn', expect.stringContaining('refused')],
      ['info', 'watch of v1/ConfigMap in namespace shop recovered after 5 failure(s)'],
    ]);
    // a new refusal later is a new streak, logged again
    attempt(log, 100, 403);
    expect(lines).toHaveLength(3);
  });

  it('logs other failures only once they repeat (3 in a row), and a watch that ended cleanly is progress', () => {
    const { log, lines } = recorder();
    log.record(target, snapshot({ phase: 'listing' }));
    attempt(log, 10, 500);
    attempt(log, 20, 500);
    expect(lines).toEqual([]);
    attempt(log, 30, 503);
    expect(lines).toHaveLength(1);
    expect(lines[0]?.msg).toBe(
      'watch of v1/ConfigMap in namespace shop failed 3 times in a row; retrying with backoff: failed with 503',
    );
    attempt(log, 40, 500);
    expect(lines).toHaveLength(1);
    // a request that opens, ends without a failure (its timeout) and is followed by the next one
    log.record(
      target,
      snapshot({ phase: 'watching', connected: true, reconnects: 4, lastError: failure(40, 500) }),
    );
    expect(lines).toHaveLength(1);
    log.record(
      target,
      snapshot({ phase: 'watching', connected: true, reconnects: 5, lastError: failure(40, 500) }),
    );
    expect(lines.at(-1)?.level).toBe('info');
    expect(lines.at(-1)?.msg).toContain('recovered after 4');
    // 410s, stalls and bad lines are handled by the watcher: never logged here
    log.record(target, snapshot({ phase: 'backoff', lastError: failure(50, 410, 'gone') }));
    log.record(target, snapshot({ phase: 'backoff', lastError: failure(60, 0, 'stall') }));
    log.record(target, snapshot({ phase: 'backoff', lastError: failure(70, 0, 'malformed') }));
    expect(lines).toHaveLength(2);
  });

  it('a failing list recovers when the list completes (listing → watching)', () => {
    const { log, lines } = recorder();
    for (const at of [10, 20, 30]) {
      log.record(
        target,
        snapshot({ phase: 'listing', lastError: at > 10 ? failure(at - 10, 500, 'list') : undefined }),
      );
      log.record(target, snapshot({ phase: 'backoff', lastError: failure(at, 500, 'list') }));
    }
    log.record(target, snapshot({ phase: 'listing', lastError: failure(30, 500, 'list') }));
    log.record(target, snapshot({ phase: 'watching', connected: true, lastError: failure(30, 500, 'list') }));
    expect(lines.map((l) => l.level)).toEqual(['warn', 'info']);
  });

  it('logs a 400 once per streak as a bad request to fix, not as a refusal to grant', () => {
    const { log, lines } = recorder();
    const bad = { ...target, fieldSelector: 'spec.x=1' };
    log.record(bad, snapshot({ phase: 'listing' }));
    for (const at of [10, 30_010, 60_010]) {
      log.record(bad, snapshot({ phase: 'backoff', lastError: failure(at, 400, 'invalid') }));
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      level: 'warn',
      fields: { watch: 'v1/ConfigMap in namespace shop (fields spec.x=1)', code: 400 },
    });
    expect(lines[0]?.msg).toContain(
      "the server refuses the request as invalid (400: failed with 400); fix the watch's selectors",
    );
    expect(lines[0]?.msg).toContain('retried only every backoff.maxMs');
    expect(lines[0]?.msg).not.toContain('until it is allowed');
  });
});
