import { Action } from '@rxkube/core';
import type { KubeObject } from '@rxkube/kube';
import type { ControllerReconcile, MapContext } from '@rxkube/kube/controller';
import type { RecordedEvent, ReplayController } from '@rxkube/kube/record';
import { describe, expect, it } from 'vitest';

import { checkPermutations } from './permutations.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const WIDGETS = { resource: CM, labelSelector: 'app=w' };
const CONFIG_KIND = { apiVersion: 'example.com/v1', kind: 'Config' } as const;
const CONFIG = { resource: CONFIG_KIND };
const cm = (name: string, labels: Record<string, string>, v: string, rv: string): KubeObject => ({
  ...CM,
  metadata: { name, namespace: 'ns', labels, resourceVersion: rv },
  data: { v },
});
const config = (v: string, rv: string): KubeObject => ({
  ...CONFIG_KIND,
  metadata: { name: 'config', namespace: 'ns', resourceVersion: rv },
  data: { v },
});

/** Two watches: the widgets (w1 changes once), and the shared config (changes from a to b). */
const events: RecordedEvent[] = [
  { type: 'event', t: 0, target: WIDGETS, event: { type: 'Init' } },
  {
    type: 'event',
    t: 0,
    target: WIDGETS,
    event: { type: 'InitApply', object: cm('w1', { app: 'w' }, '1', '1') },
  },
  { type: 'event', t: 0, target: WIDGETS, event: { type: 'InitDone' } },
  { type: 'event', t: 0, target: CONFIG, event: { type: 'Init' } },
  {
    type: 'event',
    t: 0,
    target: CONFIG,
    event: { type: 'InitApply', object: config('a', '2') },
  },
  { type: 'event', t: 0, target: CONFIG, event: { type: 'InitDone' } },
  {
    type: 'event',
    t: 10,
    target: WIDGETS,
    event: { type: 'Apply', object: cm('w1', { app: 'w' }, '2', '3') },
  },
  {
    type: 'event',
    t: 20,
    target: CONFIG,
    event: { type: 'Apply', object: config('b', '4') },
  },
];

/** Copies a widget with the config's current value into `<name>-copy`. */
const copyWithConfig: ControllerReconcile<KubeObject> = async (request, ctx) => {
  const shared = await ctx.client.get<KubeObject & { data: { v: string } }>({
    ...CONFIG_KIND,
    namespace: 'ns',
    name: 'config',
  });
  const own = (ctx.object as KubeObject & { data: { v: string } }).data.v;
  await ctx.apply({
    ...CM,
    metadata: { name: `${request.name}-copy`, namespace: 'ns' },
    data: { own, config: shared.data.v },
  });
  return Action.awaitChange();
};

const widgetsOf = (_config: KubeObject, { cache }: MapContext) =>
  cache.list(CM, { labelSelector: 'app=w' }).map((w) => ({ name: w.metadata.name ?? '', namespace: 'ns' }));

const controllerWith = (map: ReplayController['options']['watches']): ReplayController[] => [
  {
    name: 'copy',
    options: {
      for: CM,
      labelSelector: 'app=w',
      fieldManager: 'copy',
      ...(map !== undefined ? { watches: map } : {}),
    },
    reconcile: copyWithConfig,
  },
];

/** The invariant: the copy holds the widget's and the config's final values. */
const copyIsCurrent = ({ report }: { report: { objects: readonly KubeObject[] } }) => {
  const copy = report.objects.find((o) => o.metadata.name === 'w1-copy') as
    (KubeObject & { data: unknown }) | undefined;
  expect(copy?.data).toEqual({ own: '2', config: 'b' });
};

describe('checkPermutations', () => {
  it('holds in every order when a config change requests every widget', async () => {
    await checkPermutations({ events }, controllerWith([{ ...CONFIG, map: widgetsOf }]), copyIsCurrent, {
      numRuns: 40,
      seed: 1,
    });
  });

  it('finds the order that breaks a controller whose config watch requests nothing', async () => {
    await expect(
      checkPermutations({ events }, controllerWith([{ ...CONFIG, map: () => [] }]), copyIsCurrent, {
        numRuns: 40,
        seed: 1,
      }),
    ).rejects.toThrow(
      /property failed after \d+ tests \(seed 1,[\s\S]*config: 'a'[\s\S]*for this delivery:[\s\S]*Config Apply ns\/config \(rv 4\)/,
    );
  });
});
