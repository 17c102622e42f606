/**
 * The soak's writes: ConfigMaps spread over namespaces (some labelled `tier=gold`, which a
 * label-selected controller watches, so patches move objects into and out of its selector),
 * Secrets of the same names (a mapped watch), and parent ConfigMaps owning child Secrets (owned
 * triggers). The storm patches, deletes and re-creates the same names; failures (a restarted
 * server, a conflict, a name already gone) are counted and skipped: the final state is whatever
 * the server holds, and the checks read it from there.
 *
 * @module
 */
import type { KubeClient, KubeObject } from '@rxkube/kube';
import { isAlreadyExists, isConflict, isNotFound } from '@rxkube/kube';

import type { SoakConfig } from './config.js';
import type { Random } from './random.js';

/** Parent ConfigMaps per namespace (each owns a few child Secrets). */
export const PARENTS_PER_NAMESPACE = 4;
/** Child Secrets per parent. */
export const CHILDREN_PER_PARENT = 3;
/** Label that marks the soak's objects. */
export const SOAK_LABEL = 'rxkube.io/soak';

/** The names of the soak's objects. */
export interface Layout {
  readonly namespaces: readonly string[];
  /** `namespace/name` of every plain ConfigMap (present or not). */
  readonly configMaps: readonly { readonly namespace: string; readonly name: string }[];
  readonly parents: readonly { readonly namespace: string; readonly name: string }[];
}

/** What the writer did. */
export interface WriteCounts {
  attempted: number;
  succeeded: number;
  /** 404/409 answers: the object changed under the write (expected in a storm). */
  raced: number;
  /** Transport failures (connections dropped by a restart). */
  failed: number;
}

/** The namespaces and names of a config. */
export function layoutOf(config: SoakConfig): Layout {
  const namespaces = Array.from(
    { length: config.namespaces },
    (_, i) => `soak-${String(i).padStart(2, '0')}`,
  );
  const configMaps = Array.from({ length: config.objects }, (_, i) => ({
    namespace: namespaces[i % namespaces.length] ?? 'soak-00',
    name: `cm-${String(i).padStart(5, '0')}`,
  }));
  const parents = namespaces.flatMap((namespace) =>
    Array.from({ length: PARENTS_PER_NAMESPACE }, (_, i) => ({ namespace, name: `parent-${i}` })),
  );
  return { namespaces, configMaps, parents };
}

const cm = (
  namespace: string,
  name: string,
  random: Random,
  extra: Record<string, string> = {},
): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: {
    name,
    namespace,
    labels: { [SOAK_LABEL]: 'true', tier: random.chance(0.3) ? 'gold' : 'silver', ...extra },
  },
  data: { value: String(random.int(1_000_000)) },
});

const secret = (namespace: string, name: string, random: Random, owner?: KubeObject): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: {
    name,
    namespace,
    labels: { [SOAK_LABEL]: 'true' },
    ...(owner !== undefined
      ? {
          ownerReferences: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              name: owner.metadata.name ?? '',
              uid: owner.metadata.uid ?? '',
              controller: true,
            },
          ],
        }
      : {}),
  },
  stringData: { value: String(random.int(1_000_000)) },
});

/** Creates the namespaces, ConfigMaps, Secrets, parents and their children. */
export async function seed(
  client: KubeClient,
  layout: Layout,
  random: Random,
  concurrency: number,
): Promise<void> {
  for (const ns of layout.namespaces) {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }).catch(ignoreExists);
  }
  const jobs: (() => Promise<unknown>)[] = [];
  layout.configMaps.forEach((c, i) => {
    jobs.push(() => client.create(cm(c.namespace, c.name, random)).catch(ignoreExists));
    if (i % 5 === 0) jobs.push(() => client.create(secret(c.namespace, c.name, random)).catch(ignoreExists));
  });
  for (const p of layout.parents) {
    jobs.push(async () => {
      const parent = await client.create(cm(p.namespace, p.name, random, { role: 'parent' }));
      for (let k = 0; k < CHILDREN_PER_PARENT; k++) {
        await client.create(secret(p.namespace, `${p.name}-c${k}`, random, parent)).catch(ignoreExists);
      }
    });
  }
  await pool(jobs, concurrency);
}

/** Runs `count` random writes with `concurrency` in flight (counting `progress.done`); resolves with what happened. */
export async function storm(
  client: KubeClient,
  layout: Layout,
  random: Random,
  count: number,
  concurrency: number,
  progress: { done: number } = { done: 0 },
): Promise<WriteCounts> {
  const counts: WriteCounts = { attempted: 0, succeeded: 0, raced: 0, failed: 0 };
  const one = async (): Promise<void> => {
    counts.attempted++;
    try {
      await write(client, layout, random);
      counts.succeeded++;
    } catch (e) {
      if (isNotFound(e) || isConflict(e) || isAlreadyExists(e)) counts.raced++;
      else counts.failed++;
    } finally {
      progress.done++;
    }
  };
  await pool(
    Array.from({ length: count }, () => one),
    concurrency,
  );
  return counts;
}

async function write(client: KubeClient, layout: Layout, random: Random): Promise<void> {
  const op = random.weighted({ patch: 40, relabel: 10, delete: 12, recreate: 12, secret: 11, child: 15 });
  const target = random.pick(layout.configMaps);
  const ref = { apiVersion: 'v1', kind: 'ConfigMap', namespace: target.namespace, name: target.name };
  switch (op) {
    case 'patch':
      await client.patch(ref, { type: 'merge', body: { data: { value: String(random.int(1_000_000)) } } });
      return;
    case 'relabel':
      await client.patch(ref, {
        type: 'merge',
        body: { metadata: { labels: { tier: random.chance(0.5) ? 'gold' : 'silver' } } },
      });
      return;
    case 'delete':
      await client.delete(ref);
      return;
    case 'recreate':
      await client.create(cm(target.namespace, target.name, random));
      return;
    case 'secret': {
      const sref = { apiVersion: 'v1', kind: 'Secret', namespace: target.namespace, name: target.name };
      const r = random.int(3);
      if (r === 0) await client.delete(sref);
      else if (r === 1) await client.create(secret(target.namespace, target.name, random));
      else
        await client.patch(sref, {
          type: 'merge',
          body: { stringData: { value: String(random.int(1_000_000)) } },
        });
      return;
    }
    case 'child': {
      const parent = random.pick(layout.parents);
      const name = `${parent.name}-c${random.int(CHILDREN_PER_PARENT)}`;
      const cref = { apiVersion: 'v1', kind: 'Secret', namespace: parent.namespace, name };
      const r = random.int(3);
      if (r === 0) await client.delete(cref);
      else if (r === 1) {
        const owner = await client.get<KubeObject>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: parent.namespace,
          name: parent.name,
        });
        await client.create(secret(parent.namespace, name, random, owner));
      } else {
        await client.patch(cref, {
          type: 'merge',
          body: { stringData: { value: String(random.int(1_000_000)) } },
        });
      }
      return;
    }
  }
}

function ignoreExists(e: unknown): void {
  if (!isAlreadyExists(e)) throw e;
}

/** Runs jobs with at most `concurrency` in flight. */
export async function pool(jobs: readonly (() => Promise<unknown>)[], concurrency: number): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const job = jobs[next++];
      if (job !== undefined) await job();
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
}
