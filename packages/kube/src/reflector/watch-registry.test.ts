import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { WatchEvent } from '../types.js';
import type { WatchTarget } from './watch-registry.js';
import { WatchRegistry, watchTargetKey } from './watch-registry.js';

const pods: WatchTarget = { resource: { apiVersion: 'v1', kind: 'Pod' }, namespace: 'ns' };
const values: Record<string, WatchEvent> = {
  I: { type: 'Init' },
  a: { type: 'InitApply', object: { metadata: { namespace: 'ns', name: 'a' } } },
  D: { type: 'InitDone' },
};

describe('WatchRegistry', () => {
  it('gives equal targets one upstream and one Store; other selectors get their own', () => {
    const ts = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
    const asked: WatchTarget[] = [];
    ts.run(({ cold, expectObservable, expectSubscriptions }) => {
      const upstreams: ReturnType<typeof cold<WatchEvent>>[] = [];
      const registry = new WatchRegistry(
        (target) => {
          asked.push(target);
          const upstream = cold<WatchEvent>('-Ia-----D', values);
          upstreams.push(upstream);
          return upstream;
        },
        {},
        ts,
      );
      const one = registry.watch(pods);
      const same = registry.watch({ ...pods, metadataOnly: false });
      const labelled = registry.watch({ ...pods, labelSelector: 'app=web' });
      expect(same).toBe(one);
      expect(labelled).not.toBe(one);
      expect(registry.size).toBe(2);
      expectObservable(one.events$, '^ 9ms !').toBe('-Ia-----D', values);
      expectObservable(same.events$, '--^ 7ms !').toBe('--(Ia)--D', values);
      expectObservable(labelled.events$, '^ 9ms !').toBe('-Ia-----D', values);
      ts.schedule(() => {
        expect(upstreams).toHaveLength(2);
        expectSubscriptions(upstreams[0]?.subscriptions ?? []).toBe('^ 9ms !');
        expect(one.store.get('ns/a')).toBeDefined();
      }, 9);
    });
    expect(asked.map((t) => t.labelSelector)).toEqual([undefined, 'app=web']);
  });

  it('keys targets on every field that changes what the server returns', () => {
    const keys = new Set(
      [
        pods,
        { ...pods, namespace: 'other' },
        { ...pods, labelSelector: 'a=b' },
        { ...pods, fieldSelector: 'metadata.name=x' },
        { ...pods, metadataOnly: true },
        { ...pods, resource: { apiVersion: 'v1', kind: 'ConfigMap' } },
        { resource: pods.resource },
      ].map(watchTargetKey),
    );
    expect(keys.size).toBe(7);
  });

  it('refuses a missing client or factory, and a target without a resource', () => {
    expect(() => new WatchRegistry(undefined as never)).toThrow(
      /WatchRegistry: source must be a KubeClient or a function/,
    );
    const registry = new WatchRegistry(() => {
      throw new Error('unused');
    });
    expect(() => registry.watch({} as never)).toThrow(/WatchRegistry\.watch: target must have resource/);
  });

  it('refuses a negative grace period when built, not at the first watch', () => {
    const factory = (): never => {
      throw new Error('unused');
    };
    for (const gracePeriodMs of [-1, Number.NaN, '5']) {
      expect(() => new WatchRegistry(factory, { gracePeriodMs } as never)).toThrow(
        /WatchRegistry: options\.gracePeriodMs must be a finite number >= 0/,
      );
    }
    expect(new WatchRegistry(factory, { gracePeriodMs: 0 }).size).toBe(0);
  });
});
