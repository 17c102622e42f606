/**
 * Selectors against the API server, on both backends: what a selector selects and what the server
 * refuses (with which words) agree with `@rxkube/kube/selector`; a selector the server would
 * refuse fails at registration; and a 400 that parsing cannot predict (a field the resource cannot
 * select on) is reported as a configuration failure that `/readyz` names, not retried as transient.
 */
import type { TestBackend } from '@rxkube/testing';
import { parseLabelSelector as testingParseLabelSelector } from '@rxkube/testing/validation';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { NEVER } from 'rxjs';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { controller } from '../controller/controller.js';
import { KubeApiError } from '../errors.js';
import { WatchHealthChecks } from '../ops/probes.js';
import { WatchRegistry } from '../reflector/watch-registry.js';
import type { KubeObject } from '../types.js';
import type { Run } from '../watcher/watch-harness.test.helper.js';
import { CM, FAST, runWatch } from '../watcher/watch-harness.test.helper.js';
import type { WatcherHealth } from '../watcher/health.js';
import { watcher } from '../watcher/watcher.js';
import { InvalidSelectorError } from './invalid-selector-error.js';
import { formatLabelSelector, labelMatcher, parseLabelSelector } from './label-selector.js';
import type { LabelSelector } from './label-selector.js';

let cluster: TestBackend;
let client: KubeClient;
const runs: Run[] = [];
const NS = 'selectors';

const LABEL_SETS: Record<string, Record<string, string> | undefined> = {
  none: undefined,
  web: { app: 'web', tier: 'front', n: '5' },
  db: { app: 'db', tier: 'back', n: '12' },
  empty: { app: '' },
  prefixed: { 'example.com/app': 'x', in: 'in' },
};

const VALID = [
  '',
  'app',
  '!app',
  'app=web',
  'app==web',
  'app!=web',
  'app=',
  'app in (web,db)',
  'app notin (web)',
  'app in (,web)',
  'in in (in)',
  'example.com/app=x',
  'n>4',
  'n<10',
  'app,tier notin (front),!example.com/app',
];

const OBJECT_FORMS: LabelSelector[] = [
  { matchLabels: { app: 'web' } },
  { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] },
  { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['web'] }] },
  {
    matchExpressions: [
      { key: 'n', operator: 'Exists' },
      { key: 'tier', operator: 'DoesNotExist' },
    ],
  },
];

const INVALID = [
  'app in (a,b',
  'a=b=c',
  '!app in (a)',
  'app,',
  'app ~ b',
  'x=(',
  'bad key=x',
  'app=bad value!',
];

async function serverNames(labelSelector: string): Promise<string[]> {
  const list = await client.list<KubeObject>(CM, { namespace: NS, labelSelector });
  return list.items.map((o) => o.metadata.name ?? '').sort();
}

function ourNames(matches: (labels: Record<string, string> | undefined) => boolean): string[] {
  return Object.entries(LABEL_SETS)
    .filter(([, labels]) => matches(labels))
    .map(([name]) => name)
    .sort();
}

describeEachBackend('label and field selectors against the API server', (b) => {
  beforeAll(async () => {
    cluster = b.cluster;
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const [name, labels] of Object.entries(LABEL_SETS)) {
      await client.create({
        ...CM,
        metadata: { name, namespace: NS, ...(labels !== undefined ? { labels } : {}) },
      });
    }
  });
  afterEach(() => {
    for (const r of runs.splice(0)) r.stop();
  });
  afterAll(() => {
    client.close();
  });

  it('selects what the server selects, text and object forms, as the testing matcher does', async () => {
    // kube-root-ca.crt (no labels) is in every namespace on the real server: leave it out
    const drop = (names: string[]) => names.filter((n) => n !== 'kube-root-ca.crt');
    for (const text of VALID) {
      const server = drop(await serverNames(text));
      expect([text, ourNames(labelMatcher(text))]).toEqual([text, server]);
      expect([text, ourNames((l) => testingParseLabelSelector(text).matches(l))]).toEqual([text, server]);
    }
    for (const selector of OBJECT_FORMS) {
      const server = drop(await serverNames(formatLabelSelector(selector)));
      expect([selector, ourNames(labelMatcher(selector))]).toEqual([selector, server]);
    }
  });

  it('refuses what the server refuses, with its 400 message as the reason', async () => {
    for (const text of INVALID) {
      let ours: InvalidSelectorError | undefined;
      try {
        parseLabelSelector(text);
      } catch (e) {
        ours = e as InvalidSelectorError;
      }
      expect(ours, text).toBeInstanceOf(InvalidSelectorError);
      const refused = await client.list(CM, { namespace: NS, labelSelector: text }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(refused, text).toBeInstanceOf(KubeApiError);
      expect([text, (refused as KubeApiError).code]).toEqual([text, 400]);
      expect([text, (refused as KubeApiError).status.message]).toEqual([text, ours?.reason]);
    }
  });

  it('fails a bad selector at registration: watcher, WatchRegistry.watch, controller', () => {
    const bad = 'app in (a,b';
    expect(() => watcher(client, CM, { namespace: NS, labelSelector: bad })).toThrow(
      /^watcher: options\.labelSelector is not a valid label selector: at position 11/,
    );
    expect(() => watcher(client, CM, { fieldSelector: 'metadata.name' })).toThrow(InvalidSelectorError);
    const registry = new WatchRegistry(client);
    expect(() => registry.watch({ resource: CM, labelSelector: bad })).toThrow(
      /^WatchRegistry\.watch: target\.labelSelector is not a valid label selector: at position 11/,
    );
    expect(registry.size).toBe(0);
    expect(() => controller({ for: CM, client, labelSelector: bad })).toThrow(
      /options\.labelSelector is not a valid label selector: at position 11/,
    );
    expect(() => controller({ for: CM, client, owns: [{ resource: CM, labelSelector: 'a=b=c' }] })).toThrow(
      /options\.owns\[0\]\.labelSelector is not a valid label selector: at position 3/,
    );
    expect(() =>
      controller({ for: CM, client, watches: [{ resource: CM, labelSelector: ',x', map: () => [] }] }),
    ).toThrow(/options\.watches\[0\]\.labelSelector is not a valid label selector: at position 0/);
  });

  it('reports a 400 it could not predict as invalid, waits maxMs, and /readyz names it', async () => {
    const checks = new WatchHealthChecks();
    let registry: WatchRegistry | undefined;
    const refused = new Promise<WatcherHealth>((resolve) => {
      registry = new WatchRegistry(client, {
        watcher: FAST,
        health: (target, h) => {
          checks.record(target, h);
          if (h.phase === 'backoff' && h.lastError?.kind === 'invalid') resolve(h);
        },
      });
    });
    // parses, but ConfigMaps cannot be selected by spec.x: the server answers 400
    const shared = registry?.watch({ resource: CM, namespace: NS, fieldSelector: 'spec.x=1' });
    const run = runWatch(() => shared?.events$ ?? NEVER);
    runs.push(run);
    const health = await refused;
    expect(health.lastError).toMatchObject({ kind: 'invalid', code: 400 });
    expect(health.backoffMs).toBe(FAST.backoff?.maxMs); // not initialMs: retrying soon cannot help
    const [line, ...others] = checks.failures();
    expect(others).toEqual([]);
    expect(line).toMatch(/^v1\/ConfigMap in namespace selectors \(fields spec\.x=1\): 400 BadRequest/);
    expect(line).toContain('"spec.x" is not a known field selector');
    expect(checks.check.check()).toMatchObject({ ok: false });
    expect(cluster).toBeDefined();
  });
});
