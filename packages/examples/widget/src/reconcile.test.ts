import { Action } from '@rxkube/core';
import { KubeApiError, draftStatus } from '@rxkube/kube';
import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type CleanupPorts,
  type ConfigMap,
  FIELD_MANAGER,
  MANAGED_BY_LABEL,
  type WidgetEvent,
  type WidgetPorts,
  cleanupWidget,
  desiredStatus,
  inventoryConfigMap,
  reconcileWidget,
} from './reconcile.js';
import type { Widget, WidgetStatus } from './widget.js';

const widget = (
  spec: { size: number; color?: 'red' | 'green' | 'blue' },
  generation = 1,
  extra: { labels?: Record<string, string>; status?: WidgetStatus } = {},
): Widget => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', namespace: 'ns', generation, ...(extra.labels ? { labels: extra.labels } : {}) },
  spec,
  ...(extra.status ? { status: extra.status } : {}),
});

const notFound = new KubeApiError({
  httpStatus: 404,
  method: 'DELETE',
  url: 'http://127.0.0.1/api/v1/namespaces/ns/configmaps/widget-w-inventory',
  target: { verb: 'delete', resource: 'configmaps', namespace: 'ns', name: 'widget-w-inventory' },
  status: {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    code: 404,
    reason: 'NotFound',
    message: 'not found',
  },
});

describe('widget desired state', () => {
  it('the inventory ConfigMap says what the spec asks for (color defaulted), nothing volatile', () => {
    expect(inventoryConfigMap(widget({ size: 3 }, 7))).toEqual({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'widget-w-inventory',
        namespace: 'ns',
        labels: { [MANAGED_BY_LABEL]: FIELD_MANAGER },
      },
      data: { widget: 'w', size: '3', color: 'blue' },
    });
  });

  it('the status changes with the generation only: a label change drafts no patch, a spec change does', () => {
    const scheduler = new TestScheduler(() => undefined); // now() = 0: a fixed lastTransitionTime
    const first = widget({ size: 1 }, 1);
    const drafted = draftStatus(first, desiredStatus(first, scheduler));
    expect(drafted.next).toEqual({
      observedGeneration: 1,
      inventory: 'widget-w-inventory',
      conditions: [
        {
          type: 'Ready',
          status: 'True',
          reason: 'InventoryReady',
          message: 'widget-w-inventory holds 1 blue widget',
          lastTransitionTime: '1970-01-01T00:00:00Z',
          observedGeneration: 1,
        },
      ],
    });
    const status = drafted.next as WidgetStatus;

    // same generation, new labels: nothing to write
    const relabelled = widget({ size: 1 }, 1, { labels: { touched: 'yes' }, status });
    expect(draftStatus(relabelled, desiredStatus(relabelled, scheduler)).patch).toEqual([]);

    // spec change → generation 2: observedGeneration and the condition follow, the transition time stays
    const grown = widget({ size: 3, color: 'red' }, 2, { status });
    const next = draftStatus(grown, desiredStatus(grown, scheduler));
    expect(next.patch.map((op) => op.path).sort()).toEqual([
      '/status/conditions/0/message',
      '/status/conditions/0/observedGeneration',
      '/status/observedGeneration',
    ]);
    expect(next.next?.conditions?.[0]).toMatchObject({
      message: 'widget-w-inventory holds 3 red widgets',
      lastTransitionTime: '1970-01-01T00:00:00Z',
      observedGeneration: 2,
    });
  });
});

describe('reconcileWidget (marbles)', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('applies the inventory, then writes the status, then awaits the next change', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const apply = cold('--(a|)', { a: 'applied' as const });
      const status = cold('   ---(s|)', { s: { type: 'patched' } });
      const applied: ConfigMap[] = [];
      const recipes: ((d: WidgetStatus) => void)[] = [];
      const events: WidgetEvent[] = [];
      const ports: WidgetPorts = {
        applyInventory: (cm) => {
          applied.push(cm);
          return apply;
        },
        writeStatus: (recipe) => {
          recipes.push(recipe);
          return status;
        },
        record: (e) => events.push(e),
      };
      const w = widget({ size: 2 });
      //                                   apply answers at 2, the status write starts there and answers at 2+3=5
      expectObservable(reconcileWidget(w, ports, scheduler)).toBe('-----(r|)', { r: Action.awaitChange() });
      expectSubscriptions(apply.subscriptions).toBe('^-!');
      expectSubscriptions(status.subscriptions).toBe('--^--!');
      scheduler.flush();
      expect(applied).toEqual([inventoryConfigMap(w)]);
      expect(recipes).toHaveLength(1);
      expect(events).toEqual([
        {
          type: 'Normal',
          reason: 'InventoryApplied',
          action: 'Apply',
          note: 'widget-w-inventory: size 2, color blue',
        },
      ]);
    });
  });

  it('records no Event when the inventory was already up to date', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const events: WidgetEvent[] = [];
      const ports: WidgetPorts = {
        applyInventory: () => cold('-(u|)', { u: 'unchanged' as const }),
        writeStatus: () => cold('(s|)', { s: { type: 'unchanged' } }),
        record: (e) => events.push(e),
      };
      expectObservable(reconcileWidget(widget({ size: 2 }), ports, scheduler)).toBe('-(r|)', {
        r: Action.awaitChange(),
      });
      scheduler.flush();
      expect(events).toEqual([]);
    });
  });

  it('writes no status when the inventory apply fails, and forwards the error', () => {
    scheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
      const failure = new Error('apply refused');
      const status = cold('(s|)', { s: {} });
      const ports: WidgetPorts = {
        applyInventory: () => cold('--#', undefined, failure),
        writeStatus: () => status,
      };
      expectObservable(reconcileWidget(widget({ size: 2 }), ports, scheduler)).toBe(
        '--#',
        undefined,
        failure,
      );
      expectSubscriptions(status.subscriptions).toBe([]);
    });
  });
});

describe('cleanupWidget (marbles)', () => {
  let scheduler: TestScheduler;
  beforeEach(() => {
    scheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('deletes the inventory and records InventoryDeleted', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const deleted: string[] = [];
      const events: WidgetEvent[] = [];
      const ports: CleanupPorts = {
        deleteInventory: (ref) => {
          deleted.push(`${ref.namespace ?? ''}/${ref.name}`);
          return cold('--(d|)', { d: {} });
        },
        record: (e) => events.push(e),
      };
      expectObservable(cleanupWidget(widget({ size: 1 }), ports)).toBe('--(o|)', { o: 'deleted' });
      scheduler.flush();
      expect(deleted).toEqual(['ns/widget-w-inventory']);
      expect(events).toEqual([
        { type: 'Normal', reason: 'InventoryDeleted', action: 'Cleanup', note: 'deleted widget-w-inventory' },
      ]);
    });
  });

  it('is idempotent: an inventory already gone (404) is success, with no Event', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const events: WidgetEvent[] = [];
      const ports: CleanupPorts = {
        deleteInventory: () => cold('-#', undefined, notFound),
        record: (e) => events.push(e),
      };
      expectObservable(cleanupWidget(widget({ size: 1 }), ports)).toBe('-(o|)', { o: 'already-gone' });
      scheduler.flush();
      expect(events).toEqual([]);
    });
  });

  it('forwards other errors, so the finalizer keeps the Widget and retries', () => {
    scheduler.run(({ cold, expectObservable }) => {
      const failure = new Error('connection reset');
      const ports: CleanupPorts = { deleteInventory: () => cold('---#', undefined, failure) };
      expectObservable(cleanupWidget(widget({ size: 1 }), ports)).toBe('---#', undefined, failure);
    });
  });
});
