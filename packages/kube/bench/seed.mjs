// Server side of the watch-cache benchmark: realistic ConfigMaps written straight into
// @rxkube/testing's object engine (HTTP creates run ~3k/s; this runs ~10x faster), and a paced
// producer of modifications. Runs in the parent process, so its CPU is never the client's.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** The engine and the ConfigMap type of a running @rxkube/testing server (not public API). */
export function engineOf(server) {
  const engine = server.engine;
  const type = server.registry?.lookup?.('', 'v1', 'configmaps');
  if (typeof engine?.create !== 'function' || typeof engine?.update !== 'function' || !type) {
    throw new Error(
      'bench/seed.mjs: @rxkube/testing no longer exposes server.engine / server.registry at runtime; ' +
        'seed through HTTP instead or add a seeding helper to @rxkube/testing',
    );
  }
  return { engine, type };
}

const pad = (i) => String(i).padStart(6, '0');

/** One ConfigMap as `kubectl apply` leaves it, later touched by a controller (two field managers). */
export function configMap(namespace, i, revision) {
  const name = `app-config-${pad(i)}`;
  const labels = {
    app: `app-${i % 500}`,
    'app.kubernetes.io/part-of': `system-${i % 20}`,
    'app.kubernetes.io/managed-by': 'kubectl',
    tier: ['frontend', 'backend', 'cache', 'batch'][i % 4],
  };
  const data = {
    'application.properties': `server.port=8080\nfeature.flags=a,b,c\ncache.size=${i % 1000}\nlog.level=info\n`,
    endpoint: `https://svc-${i % 500}.${namespace}.svc.cluster.local:8443/api/v1`,
    revision: String(revision),
  };
  const applied = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels, annotations: { owner: `team-${i % 40}@example.com` } },
    data: { 'application.properties': data['application.properties'], endpoint: data.endpoint },
  };
  const annotations = {
    owner: `team-${i % 40}@example.com`,
    'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify(applied) + '\n',
  };
  const time = '2026-01-15T10:00:00Z';
  const labelFields = Object.fromEntries([['.', {}], ...Object.keys(labels).map((k) => [`f:${k}`, {}])]);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      namespace,
      labels,
      annotations,
      managedFields: [
        {
          manager: 'kubectl-client-side-apply',
          operation: 'Update',
          apiVersion: 'v1',
          time,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:data': { '.': {}, 'f:application.properties': {}, 'f:endpoint': {} },
            'f:metadata': {
              'f:annotations': {
                '.': {},
                'f:kubectl.kubernetes.io/last-applied-configuration': {},
                'f:owner': {},
              },
              'f:labels': labelFields,
            },
          },
        },
        {
          manager: 'bench-controller',
          operation: 'Update',
          apiVersion: 'v1',
          time,
          fieldsType: 'FieldsV1',
          fieldsV1: { 'f:data': { 'f:revision': {} } },
        },
      ],
    },
    data,
  };
}

/** Creates `count` ConfigMaps in `namespace` (created first when missing). */
export async function seed(server, namespace, count) {
  const { engine, type } = engineOf(server);
  const nsType = server.registry.lookup('', 'v1', 'namespaces');
  if (!engine.store.get(nsType.storageKey, namespace)) {
    engine.create(
      nsType,
      undefined,
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } },
      {
        manager: 'kubectl-create',
      },
    );
  }
  for (let i = 0; i < count; i++) {
    engine.create(
      type,
      namespace,
      configMap(namespace, i, 0),
      { manager: 'kubectl-client-side-apply' },
      true,
    );
    if (i % 5000 === 4999) await nextTurn();
  }
}

/**
 * Writes `events` modifications spread round-robin over the `count` objects: `data.revision`
 * changes and the `bench-controller` managedFields entry gets a new time, as an Update by that
 * manager would leave it. Written straight to the server's object store (the watch path — event
 * log, watch sessions, JSON encoding, sockets — is the real one; the write path's validation and
 * managedFields computation are skipped so the writer outpaces every client and the time to the
 * last event measures the client, not the writer). `batch` writes per event-loop turn, so the
 * watch sessions flush to their sockets in between. Resolves when all are written.
 */
export async function modify(server, namespace, count, events, startRevision, batch = 200) {
  const { engine, type } = engineOf(server);
  const store = engine.store;
  for (let k = 0; k < events; k++) {
    const key = `${namespace}/app-config-${pad(k % count)}`;
    const old = store.get(type.storageKey, key);
    if (!old) throw new Error(`bench/seed.mjs: ${key} is missing from the server`);
    const [applied, controller] = old.metadata.managedFields;
    store.update(type.storageKey, key, {
      ...old,
      metadata: { ...old.metadata, managedFields: [applied, { ...controller, time: engine.nowIso() }] },
      data: { ...old.data, revision: String(startRevision + k) },
    });
    if (k % batch === batch - 1) await nextTurn();
  }
}

/** Sum of the resourceVersions and the number of the ConfigMaps in `namespace` (the cache digest). */
export function digest(server, namespace) {
  let sum = 0;
  let n = 0;
  for (const o of server.objects('configmaps', namespace)) {
    sum += Number(o.metadata.resourceVersion);
    n++;
  }
  return { objects: n, rvSum: sum };
}
