/**
 * The Manager's `kinds` readiness check from watch health snapshots: a kind named once however
 * many of its targets wait, with the CRD to install (or, for a built-in group, no CRD advice) and
 * the controllers that wait; ready again once a list of it completes.
 */
import { describe, expect, it } from 'vitest';

import type { WatcherHealth } from '../watcher/health.js';
import { INITIAL_WATCHER_HEALTH } from '../watcher/health.js';
import { ServedKinds } from './served-kinds.js';

const health = (patch: Partial<WatcherHealth>): WatcherHealth => ({ ...INITIAL_WATCHER_HEALTH, ...patch });
const notServed = (at: number): WatcherHealth =>
  health({
    phase: 'backoff',
    lastError: {
      kind: 'not-served',
      message: 'kind "Widget" of apiVersion "example.com/v1" is not served',
      at,
    },
  });
const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' } as const;
const FLOW = { apiVersion: 'flowcontrol.apiserver.k8s.io/v1', kind: 'FlowSchema' } as const;

describe('ServedKinds', () => {
  it('names a waiting kind once, the CRD to install and the controllers that wait; ready once it lists', () => {
    const kinds = new ServedKinds((r) => (r.kind === 'Widget' ? ['widgets', 'audit'] : []));
    expect(kinds.check.check()).toEqual({ ok: true });
    kinds.record({ resource: WIDGET, namespace: 'a' }, notServed(1));
    kinds.record({ resource: WIDGET, namespace: 'b' }, notServed(2));
    expect(kinds.check.check()).toEqual({
      ok: false,
      reason:
        'example.com/v1 Widget is not served (its CRD is not installed or not Established yet): install the ' +
        'CustomResourceDefinition of kind Widget in group example.com serving v1 — controllers widgets, audit ' +
        'wait for it and start once it is Established',
    });
    // one namespace's list completed: the other still waits
    kinds.record(
      { resource: WIDGET, namespace: 'a' },
      health({ phase: 'listing', lastEventAt: 5, lastError: notServed(1).lastError }),
    );
    expect(kinds.check.check().ok).toBe(false);
    kinds.record(
      { resource: WIDGET, namespace: 'b' },
      health({ phase: 'listing', lastEventAt: 6, lastError: notServed(2).lastError }),
    );
    expect(kinds.check.check()).toEqual({ ok: true });
    // the CRD deleted: waiting again
    kinds.record({ resource: WIDGET, namespace: 'a' }, notServed(9));
    expect(kinds.check.check().ok).toBe(false);
  });

  it('gives no CRD advice for a built-in group, and says "its watches" when no controller watches it', () => {
    const kinds = new ServedKinds(() => []);
    kinds.record({ resource: FLOW }, notServed(1));
    const result = kinds.check.check();
    expect(result.ok === false ? result.reason : '').toBe(
      'flowcontrol.apiserver.k8s.io/v1 FlowSchema is not served: the API server does not serve FlowSchema in ' +
        'flowcontrol.apiserver.k8s.io/v1 (a built-in group: is it enabled in this Kubernetes version? check ' +
        '`kubectl api-resources`) — its watches wait for it and start once it is served',
    );
  });

  it('leaves other failures to the watches check', () => {
    const kinds = new ServedKinds(() => ['widgets']);
    kinds.record(
      { resource: WIDGET },
      health({ phase: 'backoff', lastError: { kind: 'watch', code: 403, message: 'forbidden', at: 1 } }),
    );
    expect(kinds.check.check()).toEqual({ ok: true });
  });
});
