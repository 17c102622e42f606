import { controller, type WatchEvent } from '@rxkube/kube';
import { ScriptedWatchRegistry, stubClient, testObject, watchEvent } from '@rxkube/testing/controller';
import { firstValueFrom, ReplaySubject, Subject, take, toArray } from 'rxjs';
import { expect, it } from 'vitest';
import { type ConfigMap, reconcile } from './operator.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

it('patches each ConfigMap once; the echo of its own patch reconciles nothing', async () => {
  const alice = testObject<ConfigMap>('default/alice', {}, CONFIGMAP);
  const bob = testObject<ConfigMap>('default/bob', {}, CONFIGMAP);
  const client = stubClient([alice, bob]); // answers and records the verbs; no HTTP
  const events = new Subject<WatchEvent<ConfigMap>>(); // the watch, scripted
  const registry = new ScriptedWatchRegistry({ ConfigMap: events });
  const results = new ReplaySubject<string>(10); // late subscribers see every result
  const sub = controller<ConfigMap>({ for: CONFIGMAP, client, registry, log: {} })
    .run(reconcile)
    .subscribe((r) => results.next(`${r.key} ${r.outcome}`));
  try {
    events.next(watchEvent.init());
    events.next(watchEvent.initApply(alice));
    events.next(watchEvent.initDone());
    expect(await firstValueFrom(results)).toBe('default/alice success');
    // The watch delivers our own patch (nothing to do), then bob (who gets greeted).
    const patched = client.objects().find((o) => o.metadata.name === 'alice') as ConfigMap;
    events.next(watchEvent.apply(patched));
    events.next(watchEvent.apply(bob));
    expect(await firstValueFrom(results.pipe(take(2), toArray()))).toEqual([
      'default/alice success',
      'default/bob success',
    ]);
    expect(client.writes.map((w) => [w.verb, w.ref.name, w.body])).toEqual([
      ['patch', 'alice', { data: { greeting: 'hello, alice' } }],
      ['patch', 'bob', { data: { greeting: 'hello, bob' } }],
    ]);
  } finally {
    sub.unsubscribe();
  }
});
