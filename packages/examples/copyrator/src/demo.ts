/**
 * The copyrator scenario, against whatever API server the manager's client points at: source
 * objects in `platform`, the two rules of `sample.yaml`, a namespace created later, a rotated
 * Secret, a rule deleted; then a summary table. Waits on reconcile results, bounded by a timeout.
 *
 * @module
 */
import type { KubeObject, Manager } from '@rxkube/kube';
import { readFileSync } from 'node:fs';
import { firstValueFrom, timeout } from 'rxjs';
import { parseAllDocuments } from 'yaml';
import { exampleFile } from '../../src/paths.js';
import { summarize } from './operator.js';
import { type CopyObject, type CopyratorRule, RULE_LABEL, RULE_TYPE } from './rule-types.js';

const SOURCE = 'platform';

/**
 * Plays the scenario with `mgr` started and copyrator set up; resolves `true` when every step
 * converged. Never prints Secret values.
 *
 * ## Example
 * ```ts
 * await setup(mgr); await mgr.start();
 * process.exitCode = (await runCopyratorDemo(mgr)) ? 0 : 1;
 * ```
 */
export async function runCopyratorDemo(
  mgr: Manager,
  log: (line: string) => void = console.log,
  options: { readonly stepTimeoutMs?: number } = {},
): Promise<boolean> {
  const client = mgr.client;
  const started = Date.now();
  const t = () => `${String(Date.now() - started).padStart(5)} ms`;
  const step = (what: string) => log(`${t()}  ── ${what}`);
  const copies = async (kind: 'ConfigMap' | 'Secret', rule: string) =>
    (await client.list<CopyObject>({ apiVersion: 'v1', kind }, { labelSelector: `${RULE_LABEL}=${rule}` }))
      .items;
  /** Reconcile results so far: a result that arrives while a check is in flight is not missed. */
  let seen = 0;
  const counter = mgr.results$.subscribe(() => seen++);
  /** Waits until `check` holds, re-checking after each reconcile result; false after the step timeout. */
  const waitFor = async (what: string, check: () => Promise<boolean>): Promise<boolean> => {
    const deadline = Date.now() + (options.stepTimeoutMs ?? 15_000);
    for (;;) {
      const before = seen;
      if (await check()) {
        log(`${t()}     ✓ ${what}`);
        return true;
      }
      if (Date.now() > deadline) {
        log(`${t()}     ✗ ${what}: not reached`);
        return false;
      }
      // The state only changes inside reconciles: check again after the next result (or the deadline).
      if (seen === before) {
        await firstValueFrom(
          mgr.results$.pipe(timeout({ first: Math.max(1, deadline - Date.now()), with: () => [null] })),
          { defaultValue: null },
        );
      }
    }
  };

  try {
    let ok = true;
    step(`create namespaces ${SOURCE}, team-a, team-b and the sources in ${SOURCE}`);
    for (const name of [SOURCE, 'team-a', 'team-b']) {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'registry', namespace: SOURCE, labels: { 'copyrator.rxkube.io/copy': 'registry' } },
      type: 'Opaque',
      stringData: { password: 'demo-only-not-a-real-secret' },
    });
    await client.create({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'settings', namespace: SOURCE, labels: { 'copyrator.rxkube.io/copy': 'settings' } },
      data: { 'log-level': 'info' },
    });

    step(
      'apply sample.yaml: registry-credentials (Secret → every namespace), shared-settings (ConfigMap → team-a, team-b)',
    );
    const text = readFileSync(exampleFile('copyrator', 'sample.yaml'), 'utf8');
    for (const doc of parseAllDocuments(text)) {
      const rule = doc.toJS() as CopyratorRule | null;
      if (rule !== null) await client.apply(rule, { fieldManager: 'copyrator-demo', force: true });
    }
    const namespaceCount = async () =>
      (await client.list<KubeObject>({ apiVersion: 'v1', kind: 'Namespace' })).items.filter(
        (n) => n.metadata.name !== SOURCE && n.metadata.deletionTimestamp === undefined,
      ).length;
    ok &&= await waitFor('registry Secret copied into every other namespace', async () => {
      return (await copies('Secret', 'registry-credentials')).length === (await namespaceCount());
    });
    ok &&= await waitFor('settings ConfigMap copied into team-a and team-b', async () => {
      const ns = (await copies('ConfigMap', 'shared-settings')).map((c) => c.metadata.namespace).sort();
      return JSON.stringify(ns) === JSON.stringify(['team-a', 'team-b']);
    });

    step('create namespace team-c (created later)');
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-c' } });
    ok &&= await waitFor('registry Secret copied into team-c', async () =>
      (await copies('Secret', 'registry-credentials')).some((c) => c.metadata.namespace === 'team-c'),
    );

    step('rotate the registry Secret and change settings');
    const rotated = Buffer.from('rotated-demo-value').toString('base64');
    await client.patch(
      { apiVersion: 'v1', kind: 'Secret', namespace: SOURCE, name: 'registry' },
      { type: 'merge', body: { data: { password: rotated } } },
    );
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: SOURCE, name: 'settings' },
      { type: 'merge', body: { data: { 'log-level': 'debug' } } },
    );
    ok &&= await waitFor('every Secret copy rotated', async () =>
      (await copies('Secret', 'registry-credentials')).every((c) => c.data?.['password'] === rotated),
    );
    ok &&= await waitFor('every settings copy updated', async () =>
      (await copies('ConfigMap', 'shared-settings')).every((c) => c.data?.['log-level'] === 'debug'),
    );

    log('');
    await printSummary(mgr, log);
    log('');

    step('delete rule shared-settings');
    await client.delete({ ...RULE_TYPE, name: 'shared-settings' });
    ok &&= await waitFor(
      'its copies are gone',
      async () => (await copies('ConfigMap', 'shared-settings')).length === 0,
    );
    log('');
    await printSummary(mgr, log);
    log('');
    log(
      ok
        ? `converged: copies follow their sources, new namespaces and rule deletion (${t().trim()})`
        : 'NOT converged: see the steps above',
    );
    return ok;
  } finally {
    counter.unsubscribe();
  }
}

/**
 * Prints one row per rule: type, source, sources, copies, Ready, namespaces holding a copy.
 *
 * ## Example
 * ```ts
 * await printSummary(mgr); // rule  type  source  sources  copies  ready  namespaces …
 * ```
 */
export async function printSummary(
  mgr: Pick<Manager, 'client'>,
  log: (line: string) => void = console.log,
): Promise<void> {
  // `ready` is True, False or Unknown: 7 characters, so the column is 9 wide
  log('rule                  type       source    sources  copies  ready    namespaces');
  for (const r of await summarize(mgr.client)) {
    log(
      `${r.rule.padEnd(22)}${r.type.padEnd(11)}${r.source.padEnd(10)}${String(r.sources).padEnd(9)}` +
        `${String(r.copies).padEnd(8)}${r.ready.padEnd(9)}${r.namespaces.join(',')}`,
    );
  }
}
