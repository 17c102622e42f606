/**
 * Replays every kube-wire transcript (recorded from a real kube-apiserver v1.24) against a fresh
 * in-memory API server per file and compares what matters: status codes, Status bodies, headers,
 * object shapes, list shapes, watch event sequences. Exchanges a fake cannot reproduce are listed
 * in {@link SKIP} with the reason; nothing is skipped silently.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startApiServer, type ApiServer } from '../server.js';
import { ADMIN_TOKEN, isWatch, LIMITED_TOKEN, Replayer, type OpenWatch } from './harness.js';
import { loadTranscript, transcriptFiles, type Exchange, type Transcript } from './transcripts.js';

/** `file#index` → why this exchange is not replayed. */
const SKIP: Readonly<Record<string, string>> = {
  '01#8': 'batch/v1beta1 CronJob (deprecated API version) is not among the emulated types',
  '04#4':
    'kube-apiserver v1.24.0 bug (kubernetes#111488): paged selector list dropped s04-p1; a fake must not copy it',
  '04#5': 'continues the buggy paged selector list of 04#4 (its token starts after s04-p3)',
  '08#1':
    'watch open across an apiserver SIGTERM: real 60 s shutdown timeout, not reproducible in a unit test',
  '08#3': 'ECONNREFUSED while the real apiserver was shutting down (no HTTP response recorded)',
  '08#4': 'ECONNREFUSED while the real apiserver was shutting down (no HTTP response recorded)',
  '12#1': 'timing: the real CRD is not yet Established ~0 ms after create; the fake may establish it at once',
  '14#9':
    'timing: the real garbage collector needed ~200 ms, so the parent still showed foregroundDeletion; the fake may finish first',
  '16#9':
    'kube-apiserver v1.24 encoding bug (quirk 5): a watch with as=PartialObjectMetadataList ends without events',
};

/** Exchanges that wait for an asynchronous controller (GC, namespace deletion, CRD establishing). */
const EVENTUALLY = new Set(['12#2', '12#3', '12#4', '14#5', '14#10', '14#14', '20#6', '20#7', '20#8']);

/** Files whose recorded requests used non-admin tokens: the server runs with authentication. */
const WITH_AUTH = new Set(['15', '22']);

/**
 * The ConfigMaps every namespace of the recording cluster had (kube-root-ca.crt, and
 * extension-apiserver-authentication in kube-system), taken from the all-namespaces list of 04
 * with their original field manager.
 */
function clusterConfigMaps(): { manager: string; body: Record<string, unknown> }[] {
  const t04 = loadTranscript('04');
  const items = [9, 10].flatMap(
    (i) => (t04.exchanges[i]?.response?.body as { items: Record<string, unknown>[] }).items,
  );
  return items.map((item) => {
    const metadata = item.metadata as {
      name: string;
      namespace: string;
      annotations?: unknown;
      managedFields?: { manager: string }[];
    };
    return {
      manager: metadata.managedFields?.[0]?.manager ?? 'wire-record',
      body: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: metadata.name,
          namespace: metadata.namespace,
          ...(metadata.annotations !== undefined ? { annotations: metadata.annotations } : {}),
        },
        data: item.data,
      },
    };
  });
}

const cm = (
  name: string,
  labels?: Record<string, string>,
  data?: Record<string, string>,
): Record<string, unknown> => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, ...(labels ? { labels } : {}) },
  ...(data ? { data } : {}),
});

/** The objects each scenario's "setup (unrecorded)" notes mention, besides namespace `wire`. */
const SETUP: Readonly<Record<string, Record<string, unknown>[]>> = {
  '04': [1, 2, 3, 4, 5].map((i) => cm(`s04-p${i}`, { set: 's04', tier: i % 2 ? 'odd' : 'even' })),
  '05': [1, 2, 3].map((i) => cm(`s05-${i}`)),
  '07': [cm('s07-a', { set: 's07' }), cm('s07-b', { set: 's07' })],
  '16': [cm('s16-a', { set: 's16' }), cm('s16-b', { set: 's16' })],
  '18': [cm('s18-target')],
  '19': [
    cm('s19-c1', { s19: 'coll' }),
    cm('s19-c2', { s19: 'coll' }),
    cm('s19-c3', { s19: 'coll' }),
    cm('s19-keep', { s19: 'keep' }),
  ],
  '21': [cm('s21-cm'), cm('s21-big', undefined, { big: 'x'.repeat(40 * 1024) })],
};

/** Every object the transcript shows (responses, list items, watch lines), by name. */
function recordedObjects(t: Transcript): Map<string, Record<string, unknown>> {
  const found = new Map<string, Record<string, unknown>>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== 'object' || value === null) return;
    const obj = value as Record<string, unknown>;
    const metadata = obj.metadata as { name?: unknown } | undefined;
    const name = metadata?.name;
    if (
      typeof name === 'string' &&
      (!found.has(name) || ('data' in obj && !('data' in (found.get(name) ?? {}))))
    ) {
      found.set(name, obj);
    }
    Object.values(obj).forEach(visit);
  };
  for (const ex of t.exchanges) {
    const body = ex.response?.body as { lines?: unknown } | undefined;
    visit(body);
    if (Array.isArray(body?.lines)) {
      for (const line of body.lines) {
        try {
          visit(JSON.parse(String(line)));
        } catch {
          // a shortened line (21): not an object we can copy
        }
      }
    }
  }
  return found;
}

/** The create body of a setup object: its labels/annotations/data as recorded, when recorded. */
function setupBody(t: Transcript, fallback: Record<string, unknown>): Record<string, unknown> {
  const name = (fallback.metadata as { name: string }).name;
  const recorded = recordedObjects(t).get(name);
  if (recorded === undefined) return fallback;
  const metadata = recorded.metadata as {
    labels?: unknown;
    annotations?: unknown;
    managedFields?: { fieldsV1?: { 'f:data'?: Record<string, unknown> } }[];
  };
  // Metadata-only recordings (16) show the data keys in managedFields only.
  const dataKeys = Object.keys(metadata.managedFields?.[0]?.fieldsV1?.['f:data'] ?? {}).filter(
    (k) => k !== '.',
  );
  const data =
    (recorded.data as Record<string, string> | undefined) ??
    (dataKeys.length > 0 ? Object.fromEntries(dataKeys.map((k) => [k.slice(2), 'x'])) : undefined);
  const truncated = data !== undefined && Object.values(data).some((v) => v.includes('…'));
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name,
      ...(metadata.labels !== undefined ? { labels: metadata.labels } : {}),
      ...(metadata.annotations !== undefined ? { annotations: metadata.annotations } : {}),
    },
    ...(data !== undefined && !truncated ? { data } : 'data' in fallback ? { data: fallback.data } : {}),
  };
}

/** Files that use the Widget CRD of file 12 without creating it. */
const NEEDS_WIDGETS = new Set(['10', '11', '13']);

/** Server-side steps the recording did between exchanges (unrecorded): before exchange N. */
const BEFORE: Readonly<Record<string, (server: ApiServer) => Promise<void> | void>> = {
  '05#3': (server) => void server.faults.compact(),
  '08#5': (server) => server.restart(),
  '08#10': (server) => void server.faults.compact(),
};

const pause = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

async function send(
  server: ApiServer,
  method: string,
  path: string,
  body?: unknown,
  manager = 'wire-record',
): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${ADMIN_TOKEN}`,
      'Content-Type': 'application/json',
      Accept: 'application/json',
      'User-Agent': `${manager}/1.0`,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
}

async function create(
  server: ApiServer,
  path: string,
  body: Record<string, unknown>,
  manager?: string,
): Promise<void> {
  const res = await send(server, 'POST', path, body, manager);
  const text = await res.text();
  if (res.status !== 201 && res.status !== 409)
    throw new Error(`setup POST ${path} answered ${res.status}: ${text}`);
}

/** Namespaces and the ConfigMaps every real v1.24 cluster of the recording had. */
async function clusterSetup(server: ApiServer): Promise<void> {
  for (const ns of ['kube-node-lease', 'wire']) {
    await create(server, '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns },
    });
  }
  for (const { manager, body } of clusterConfigMaps()) {
    const namespace = (body.metadata as { namespace: string }).namespace;
    await create(server, `/api/v1/namespaces/${namespace}/configmaps`, body, manager);
  }
}

async function installWidgets(server: ApiServer): Promise<void> {
  const crd = loadTranscript('12').exchanges[0]?.request.body as Record<string, unknown>;
  await create(server, '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  for (let i = 0; i < 100; i++) {
    const res = await send(server, 'GET', '/apis/example.com/v1/namespaces/wire/widgets');
    await res.text();
    if (res.status === 200) return;
    await pause();
  }
  throw new Error('setup: the Widget CRD never became served');
}

async function waitFor(watch: OpenWatch, ms: number): Promise<'ended' | 'complete' | 'aborted' | 'timeout'> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), ms)));
  const outcome = await Promise.race([watch.done, timeout]);
  clearTimeout(timer);
  if (outcome === 'timeout') watch.abort();
  return outcome;
}

for (const file of transcriptFiles()) {
  const number = file.slice(0, 2);
  const transcript = loadTranscript(file);

  describe(`${file}: ${transcript.description.slice(0, 80)}`, () => {
    let server: ApiServer;
    let replayer: Replayer;
    const watches: { index: number; label: string; watch: OpenWatch }[] = [];

    beforeAll(async () => {
      server = await startApiServer(
        WITH_AUTH.has(number)
          ? {
              auth: {
                tokens: {
                  [ADMIN_TOKEN]: { name: 'admin', groups: ['system:masters'] },
                  [LIMITED_TOKEN]: 'realk8s:limited',
                },
              },
            }
          : {},
      );
      replayer = new Replayer(server);
      if (WITH_AUTH.has(number)) {
        // The server's own admin token is the one configured above.
        expect(server.token).toBe(ADMIN_TOKEN);
      }
      await clusterSetup(server);
      if (NEEDS_WIDGETS.has(number)) await installWidgets(server);
      for (const obj of SETUP[number] ?? []) {
        await create(server, '/api/v1/namespaces/wire/configmaps', setupBody(transcript, obj));
      }
    });

    afterAll(async () => {
      for (const w of watches) w.watch.abort();
      await server.stop();
    });

    transcript.exchanges.forEach((ex: Exchange, index) => {
      const id = `${number}#${index}`;
      const name = `#${index} ${ex.request.method} ${ex.label}`;
      const reason = SKIP[id];
      if (reason !== undefined) {
        it.skip(`${name} — skipped: ${reason}`, () => undefined);
        return;
      }
      it(name, async () => {
        await BEFORE[id]?.(server);
        if (isWatch(ex) && ex.response !== null && ex.response.status === 200) {
          const { diffs, watch } = await replayer.startWatch(ex, index);
          if (watch !== undefined) watches.push({ index, label: ex.label, watch });
          expect(diffs, `\n${diffs.join('\n')}\n`).toEqual([]);
          return;
        }
        const diffs = EVENTUALLY.has(id)
          ? await replayer.eventually(ex, 100, pause)
          : await replayer.exchange(ex);
        expect(diffs, `\n${diffs.join('\n')}\n`).toEqual([]);
      });
    });

    const watchIndexes = transcript.exchanges.flatMap((ex, i) =>
      isWatch(ex) && SKIP[`${number}#${i}`] === undefined && ex.response?.status === 200 ? [i] : [],
    );
    for (const index of watchIndexes) {
      it(`#${index} watch events (types in order, objects, clean end of idle watches)`, async () => {
        const entry = watches.find((w) => w.index === index);
        expect(entry, 'the watch was not started').toBeDefined();
        if (entry === undefined) return;
        const outcome = await waitFor(entry.watch, 8000);
        const diffs = Replayer.watchDiffs(entry.watch, outcome);
        expect(diffs, `\n${diffs.join('\n')}\n`).toEqual([]);
      });
    }
  });
}
