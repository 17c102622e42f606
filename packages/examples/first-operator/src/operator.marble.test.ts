import { Action } from '@rxkube/core';
import { controller } from '@rxkube/kube';
import { ScriptedWatchRegistry, stubClient, testObject, watchEvent } from '@rxkube/testing/controller';
import { testScheduler } from '@rxkube/testing/vitest';
import { map } from 'rxjs';
import { expect, it } from 'vitest';
import type { ConfigMap } from './operator.js';

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

it('coalesces a burst of one key into one reconcile after the debounce (virtual time)', () => {
  const a1 = testObject<ConfigMap>('default/a', { resourceVersion: '1' }, CONFIGMAP);
  const a2 = testObject<ConfigMap>('default/a', { resourceVersion: '2' }, CONFIGMAP);
  const seen: (string | undefined)[] = [];
  testScheduler().run(({ hot, cold, expectObservable }) => {
    const registry = new ScriptedWatchRegistry({
      ConfigMap: hot('(IaD) 5ms b', {
        I: watchEvent.init(),
        a: watchEvent.initApply(a1),
        D: watchEvent.initDone(),
        b: watchEvent.apply(a2),
      }),
    });
    // Inside run(), rxjs's async scheduler is virtual: every timer of the controller is too.
    const results$ = controller<ConfigMap>({
      for: CONFIGMAP,
      client: stubClient(),
      registry,
      debounce: { ms: 10 },
      log: {},
    })
      .run((_request, ctx) => {
        seen.push(ctx.object.metadata.resourceVersion);
        return cold('--a|', { a: Action.awaitChange() }); // the reconcile takes 2 ms
      })
      .pipe(map((r) => `${r.key} ${r.outcome}`));
    // the list at 0 ms, b at 10 ms (a group takes the frames of its characters: 5), quiet for
    // 10 ms after b → one reconcile at 20 ms, of the latest object, done at 22 ms
    expectObservable(results$, '^ 100ms !').toBe('22ms r', { r: 'default/a success' });
  });
  expect(seen).toEqual(['2']);
});
