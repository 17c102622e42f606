// @rxkube/kube/watch as a user installs it: list+watch ConfigMaps into a Store, over HTTP against
// @rxkube/testing's API server.
import assert from 'node:assert/strict';

import { KubeClient, reflector, Store, watcher, type KubeObject } from '@rxkube/kube/watch';
import { startApiServer } from '@rxkube/testing';
import { filter, firstValueFrom, startWith, Subject } from 'rxjs';

const server = await startApiServer();
try {
  const client = KubeClient.fromKubeConfig(server.kubeConfig);
  await client.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'hello', namespace: 'default' },
    data: { greeting: 'hi' },
  });
  const store = new Store<KubeObject>();
  // Each event the Store took: what a wait for an object re-checks on (`ready$` emits only when
  // readiness changes, so it cannot wake a wait for a later object).
  const applied = new Subject<void>();
  const sub = watcher(client, { apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: 'default' })
    .pipe(reflector(store))
    .subscribe(() => applied.next());
  await firstValueFrom(store.ready$.pipe(filter(Boolean)));
  assert.equal(store.get({ namespace: 'default', name: 'hello' })?.metadata.name, 'hello');

  await client.create({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'later', namespace: 'default' },
  });
  // The watch event may come before or after the create's answer: check now, then per event.
  await firstValueFrom(
    applied.pipe(
      startWith(undefined),
      filter(() => store.get({ namespace: 'default', name: 'later' }) !== undefined),
    ),
  );
  sub.unsubscribe();
  console.log('kube/watch ok');
} finally {
  await server.stop();
}
