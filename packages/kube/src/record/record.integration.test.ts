import { Action } from '@rxkube/core';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import type { ControllerReconcile } from '../controller/options.js';
import { Manager } from '../manager/manager.js';
import type { KubeObject } from '../types.js';
import { parseRecording } from './format.js';
import type { RecordedWrite } from './format.js';
import { diffWrites, formatReplay, replay } from './replay.js';
import type { ReplayController } from './replay.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
/** What the Secret holds, and what the controller writes into one: never in a recording. */
const SECRET_TEXT = 'hunter2-do-not-record';
const SECRET_B64 = Buffer.from(SECRET_TEXT).toString('base64');

/** Copies each `app=rec` ConfigMap to `<name>-copy`, with `extra` labels (a "new version" adds one). */
const copyReconcile =
  (extra: Record<string, string> = {}): ControllerReconcile<KubeObject> =>
  async (_request, ctx) => {
    const source = ctx.object as KubeObject & { data?: Record<string, string> };
    const copy: KubeObject = {
      ...CM,
      metadata: {
        name: `${source.metadata.name ?? ''}-copy`,
        ...(source.metadata.namespace !== undefined ? { namespace: source.metadata.namespace } : {}),
        labels: { copy: 'yes', ...extra },
      },
      data: source.data ?? {},
    };
    await ctx.apply(copy);
    return Action.awaitChange();
  };

/** Stamps each `app=rec` Secret: the write's body carries Secret data. */
const stampSecret: ControllerReconcile<KubeObject> = async (request, ctx) => {
  await ctx.patch(request, { type: 'merge', body: { stringData: { stamp: SECRET_TEXT } } });
  return Action.awaitChange();
};

describeEachBackend('flight recorder and replay (over HTTP)', (b) => {
  let client: KubeClient;
  const ns = 'rec-replay';

  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  });
  afterAll(() => client.close());

  it('records events and writes without Secret data; replay is deterministic and shows exactly the changed writes', async () => {
    const lines: string[] = [];
    const mgr = new Manager({
      client,
      name: 'recorder-test',
      logLevel: 'silent',
      namespaces: [ns],
      record: { sink: (line) => lines.push(line) },
    });
    mgr.add('copy', { for: CM, labelSelector: 'app=rec', fieldManager: 'copy' }, copyReconcile());
    mgr.add('stamp', { for: SECRET, labelSelector: 'app=rec', fieldManager: 'stamp' }, stampSecret);
    await mgr.start();
    try {
      await client.create({
        ...SECRET,
        metadata: { name: 'token', namespace: ns, labels: { app: 'rec' } },
        data: { pw: SECRET_B64 },
      });
      for (const name of ['a', 'b']) {
        await client.create({
          ...CM,
          metadata: { name, namespace: ns, labels: { app: 'rec' } },
          data: { v: '1' },
        });
      }
      await waitFor('the copies', async () => {
        const copies = await client.list(CM, { namespace: ns, labelSelector: 'copy=yes' });
        return copies.items.length === 2;
      });
      await client.patch({ ...CM, namespace: ns, name: 'a' }, { type: 'merge', body: { data: { v: '2' } } });
      await waitFor('the copy of a updated', async () => {
        const copy = await client.get<{ data?: Record<string, string> }>({
          ...CM,
          namespace: ns,
          name: 'a-copy',
        });
        return copy.data?.['v'] === '2';
      });
      await waitFor('the Secret stamped', async () => {
        const s = await client.get<{ data?: Record<string, string> }>({
          ...SECRET,
          namespace: ns,
          name: 'token',
        });
        return s.data?.['stamp'] !== undefined;
      });
      await firstValueFrom(mgr.idle$.pipe(filter(Boolean)));
    } finally {
      await mgr.stop();
    }

    // The recording: a header first, events and writes with their outcomes, no Secret data.
    const text = lines.join('\n');
    expect(text).not.toContain(SECRET_TEXT);
    expect(text).not.toContain(SECRET_B64);
    expect(text).not.toContain(Buffer.from(SECRET_TEXT).toString('base64').slice(0, 12));
    const recording = parseRecording(text);
    expect(recording.header).toMatchObject({
      format: 1,
      name: 'recorder-test',
      controllers: ['copy', 'stamp'],
      namespaces: [ns],
    });
    const secretEvents = recording.events.filter(
      (e) => 'object' in e.event && e.event.object.kind === 'Secret',
    );
    expect(secretEvents.length).toBeGreaterThan(0);
    for (const e of secretEvents) expect(e.event).not.toHaveProperty('object.data');
    const applies = recording.writes.filter(
      (w: RecordedWrite) => w.controller === 'copy' && w.verb === 'apply',
    );
    expect(applies.map((w) => `${w.key} ${w.ref.name} ${w.fieldManager} ${w.outcome.ok}`)).toEqual(
      expect.arrayContaining([`${ns}/a a-copy copy true`, `${ns}/b b-copy copy true`]),
    );
    const stamp = recording.writes.find((w) => w.controller === 'stamp');
    expect(stamp).toMatchObject({
      key: `${ns}/token`,
      verb: 'patch',
      patchType: 'merge',
      body: {},
      outcome: { ok: true },
    });

    // Replay: the same recording and controllers give the same text, twice.
    const controllers: readonly ReplayController[] = mgr.registered;
    const first = formatReplay(await replay(recording, controllers));
    const second = formatReplay(await replay(recording, controllers));
    expect(second).toBe(first);
    expect(first).toContain(`copy ${ns}/a`);
    expect(first).toMatch(/reconcile \(object updated \(ConfigMap rec-replay\/a\)/);

    // A new version of the copy reconcile (one more label): exactly the copies' writes change.
    const unchanged = diffWrites(await replay(recording, controllers));
    const changedVersion = controllers.map((c) =>
      c.name === 'copy' ? { ...c, reconcile: copyReconcile({ version: 'two' }) } : c,
    );
    const changed = diffWrites(await replay(recording, changedVersion)).filter((l) => !unchanged.includes(l));
    const added = changed.filter((l) => l.startsWith('+ '));
    const removed = changed.filter((l) => l.startsWith('- '));
    expect(added.length).toBeGreaterThan(0);
    expect(added.every((l) => l.includes('"version":"two"') && l.startsWith('+ apply ConfigMap'))).toBe(true);
    expect(removed.every((l) => l.startsWith('- apply ConfigMap') && l.includes('-copy'))).toBe(true);
    expect(added.sort()).toEqual(
      removed.map((l) => `+ ${l.slice(2).replace('"copy":"yes"', '"copy":"yes","version":"two"')}`).sort(),
    );
    expect(changed.filter((l) => l.includes('Secret'))).toEqual([]);
  });
});
