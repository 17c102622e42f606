/**
 * The hasher demo scenario, against whatever API server `client` points at: a namespace, five
 * ConfigMaps (four opted in), updates, a burst of 20 writes on one object, a delete; then it waits
 * for convergence and prints a summary table.
 *
 * @module
 */
import type { KubeClient } from '@rxkube/kube';
import { firstValueFrom, timer } from 'rxjs';
import { configMapHasher } from './operator.js';
import { type ConfigMap, HASH_ANNOTATION, HASH_LABEL, HASH_SELECTOR, dataHash } from './reconcile.js';

const NS = 'rxkube-demo';

/** Plays the scenario; resolves `true` when every opted-in ConfigMap carries the hash of its data. */
export async function runHasherDemo(
  client: KubeClient,
  log: (line: string) => void = console.log,
): Promise<boolean> {
  const started = Date.now();
  const t = () => `${String(Date.now() - started).padStart(5)} ms`;
  const { results$ } = configMapHasher(client, {
    namespace: NS,
    onWrite: (r, hash) =>
      log(`${t()}  patched   ${`${r.namespace}/${r.name}`.padEnd(28)} ${HASH_ANNOTATION}=${hash}`),
  });
  const counts = new Map<string, number>();
  const sub = results$.subscribe((r) => {
    counts.set(r.key, (counts.get(r.key) ?? 0) + 1);
    log(`${t()}  reconcile ${r.key.padEnd(28)} ${r.outcome}${r.error ? `: ${r.error.message}` : ''}`);
  });

  const cm = (name: string, data: Record<string, string>, optIn = true): ConfigMap => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: NS, labels: optIn ? { [HASH_LABEL]: 'true' } : {} },
    data,
  });
  const ref = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name });
  const step = (what: string) => log(`${t()}  ── ${what}`);

  try {
    step(`create namespace ${NS} and 5 ConfigMaps (web, api, cache, settings opted in; notes not)`);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const [name, data, optIn] of [
      ['web', { replicas: '3' }, true],
      ['api', { replicas: '2', image: 'api:1.0' }, true],
      ['cache', { size: '1Gi' }, true],
      ['settings', { mode: 'a' }, true],
      ['notes', { text: 'not managed' }, false],
    ] as const) {
      await client.create(cm(name, data, optIn));
    }
    await waitConverged(client);

    step('update api (image api:1.1) and cache (size 2Gi)');
    await client.patch(ref('api'), { type: 'merge', body: { data: { image: 'api:1.1' } } });
    await client.patch(ref('cache'), { type: 'merge', body: { data: { size: '2Gi' } } });

    step('burst: 20 writes to settings in a row (debounced per key, one reconcile in flight per key)');
    for (let i = 1; i <= 20; i++) {
      await client.patch(ref('settings'), { type: 'merge', body: { data: { mode: `m${i}` } } });
    }

    step('delete web');
    await client.delete(ref('web'));

    const ok = await waitConverged(client);
    const list = await client.list<ConfigMap>({ apiVersion: 'v1', kind: 'ConfigMap' }, { namespace: NS });
    log('');
    log(
      'configmap   opted-in  data                                hash annotation     up to date  reconciles',
    );
    for (const item of list.items) {
      const name = item.metadata.name ?? '';
      const optIn = item.metadata.labels?.[HASH_LABEL] === 'true';
      const have = item.metadata.annotations?.[HASH_ANNOTATION];
      const upToDate = optIn ? have === dataHash(item) : have === undefined;
      log(
        `${name.padEnd(12)}${(optIn ? 'yes' : 'no').padEnd(10)}${JSON.stringify(item.data ?? {}).padEnd(36)}` +
          `${(have ?? '-').padEnd(20)}${(upToDate ? 'yes' : 'NO').padEnd(12)}${counts.get(`${NS}/${name}`) ?? 0}`,
      );
    }
    log('');
    log(
      ok
        ? `converged: every opted-in ConfigMap carries the hash of its latest data (${t().trim()})`
        : `NOT converged after 15 s: see the table above`,
    );
    return ok;
  } finally {
    sub.unsubscribe();
  }
}

/** Polls the server until every opted-in ConfigMap is up to date; false after 15 s. */
async function waitConverged(client: KubeClient): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const list = await client.list<ConfigMap>(
      { apiVersion: 'v1', kind: 'ConfigMap' },
      { namespace: NS, labelSelector: HASH_SELECTOR },
    );
    if (list.items.every((i) => i.metadata.annotations?.[HASH_ANNOTATION] === dataHash(i))) return true;
    await firstValueFrom(timer(50));
  }
  return false;
}
