/**
 * copyrator end to end over HTTP against `@rxkube/testing`'s API server, run by a `Manager`
 * exactly as `setup(mgr)` registers it. Every wait is for an outcome: after each reconcile
 * result the server state is checked again (state only changes inside reconciles), with a
 * bounded number of results as the safety net — never a sleep.
 */
import type { KubeObject, ManagedResult } from '@rxkube/kube';
import { KubeClient, Manager, createLogger, loadKubeConfigFile, managerRbac } from '@rxkube/kube';
import { type ApiServer, rbacGrant, startApiServer } from '@rxkube/testing';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { filter, firstValueFrom, throwError, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCopyratorDemo } from './demo.js';
import { setup, summarize } from './operator.js';
import {
  type CopyratorRule,
  type CopyObject,
  RULE_LABEL,
  RULE_TYPE,
  SOURCE_ANNOTATION,
} from './reconcile.js';

const PLAIN_SECRET = 'hunter2-s3cr3t-pa55word';
const B64_SECRET = Buffer.from(PLAIN_SECRET).toString('base64');
const PLAIN_UPDATED = 'rotated-0ther-s3cr3t';
const B64_UPDATED = Buffer.from(PLAIN_UPDATED).toString('base64');
const RULES = 'copyratorrules.copyrator.rxkube.io';

describe('copyrator against the embedded API server (HTTP, Manager)', () => {
  let server: ApiServer;
  let client: KubeClient;
  let mgr: Manager;
  /** Every line the manager's logger (and so every controller logger) wrote, at trace level. */
  const logLines: string[] = [];
  const results: ManagedResult[] = [];

  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
    for (const name of ['platform', 'team-a', 'team-b']) {
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    mgr = new Manager({
      client,
      name: 'copyrator',
      log: createLogger({
        name: 'copyrator',
        level: 'trace',
        destination: { write: (line: string) => void logLines.push(line) },
      }),
    });
    await setup(mgr);
    mgr.results$.subscribe((r) => results.push(r));
    await mgr.start();
  });
  afterAll(async () => {
    await mgr.stop();
    client.close();
    await server.stop();
  });

  /**
   * Resolves once `check()` holds, re-checking after every reconcile result (state only changes
   * inside reconciles). The timeout is a failure bound, not a wait: it only fires when the
   * operator never gets there.
   */
  const until = async (what: string, check: () => boolean): Promise<void> => {
    if (check()) return;
    await firstValueFrom(
      mgr.results$.pipe(
        filter(() => check()),
        timeout({
          first: 15_000,
          with: () =>
            throwError(
              () =>
                new Error(
                  `copyrator: ${what} did not happen; last results: ${JSON.stringify(
                    results.slice(-5).map((r) => [r.key, r.outcome, r.error?.message]),
                  )}`,
                ),
            ),
        }),
      ),
    );
  };

  const activeNamespaces = () =>
    server
      .objects('namespaces')
      .filter((n) => (n['status'] as { phase?: string } | undefined)?.phase === 'Active')
      .map((n) => n.metadata.name ?? '')
      .sort();
  const copiesOf = (resource: 'configmaps' | 'secrets', rule: string): CopyObject[] =>
    (server.objects(resource) as unknown as CopyObject[]).filter(
      (o) => o.metadata.labels?.[RULE_LABEL] === rule,
    );
  const namespacesOf = (copies: readonly CopyObject[]) =>
    copies.map((c) => c.metadata.namespace ?? '').sort();
  const ruleOf = (name: string) =>
    server.object(RULES, undefined, name) as unknown as CopyratorRule | undefined;
  const ready = (name: string) => ruleOf(name)?.status?.conditions?.find((c) => c.type === 'Ready');

  const configMap = (name: string, labels: Record<string, string>, data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'platform', labels },
    data,
  });

  it('copies labelled ConfigMaps into every Active namespace, follows new namespaces and data changes, removes copies that stop matching; leaves foreign objects alone', async () => {
    await client.create(configMap('settings', { copy: 'settings' }, { mode: 'a', level: '1' }));
    await client.create(configMap('unrelated', { copy: 'no' }, { x: '1' }));
    // Someone else's ConfigMap where a copy would go: never overwritten.
    await client.create({
      ...configMap('settings', {}, { mine: 'yes' }),
      metadata: { name: 'settings', namespace: 'team-b' },
    });
    await client.create({
      ...RULE_TYPE,
      metadata: { name: 'settings' },
      spec: {
        ruleType: 'configmap',
        sourceNamespace: 'platform',
        selector: { matchLabels: { copy: 'settings' } },
      },
    });

    // every Active namespace (default, kube-system, … team-a) but the source and the blocked one
    const targets = activeNamespaces().filter((n) => n !== 'platform' && n !== 'team-b');
    expect(targets).toContain('team-a');
    const all = targets.length + 1;
    await until('copies in every Active namespace but team-b, status CopyConflict', () => {
      return (
        JSON.stringify(namespacesOf(copiesOf('configmaps', 'settings'))) === JSON.stringify(targets) &&
        ready('settings')?.reason === 'CopyConflict'
      );
    });
    for (const copy of copiesOf('configmaps', 'settings')) {
      expect(copy.data).toEqual({ mode: 'a', level: '1' });
      expect(copy.metadata.annotations?.[SOURCE_ANNOTATION]).toBe('platform/settings');
      expect(copy.metadata.labels).toEqual({ [RULE_LABEL]: 'settings' }); // the source's labels are not copied
    }
    expect(server.object('configmaps', 'team-b', 'settings')?.['data']).toEqual({ mine: 'yes' });
    expect(server.objects('configmaps').filter((o) => o.metadata.name === 'unrelated')).toHaveLength(1);
    expect(ruleOf('settings')?.status).toMatchObject({
      observedGeneration: 1,
      sources: 1,
      copies: targets.length,
    });
    expect(ready('settings')?.message).toContain('ConfigMap team-b/settings (held by unmanaged)');
    expect(ruleOf('settings')?.metadata.finalizers).toEqual(['copyrator.rxkube.io/cleanup']);

    // The foreign object goes away → its deletion reruns the rule (same name as a source) → copy.
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-b', name: 'settings' });
    await until(
      'copy in team-b, Ready',
      () => copiesOf('configmaps', 'settings').length === all && ready('settings')?.status === 'True',
    );
    expect(ruleOf('settings')?.status).toMatchObject({ copies: all, sources: 1 });
    expect(ready('settings')).toMatchObject({
      reason: 'Synced',
      message: `${all} copies of 1 source(s) in ${all} namespace(s)`,
    });

    // A namespace created later gets its copy.
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-c' } });
    await until('copy in team-c', () => server.object('configmaps', 'team-c', 'settings') !== undefined);
    expect(server.object('configmaps', 'team-c', 'settings')?.['data']).toEqual({ mode: 'a', level: '1' });

    // Source data changed (a key changed, a key removed) → every copy follows.
    await client.replace({
      ...(await client.get<KubeObject>({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'platform',
        name: 'settings',
      })),
      data: { mode: 'b' },
    });
    await until('copies updated', () =>
      copiesOf('configmaps', 'settings').every(
        (c) => JSON.stringify(c.data) === JSON.stringify({ mode: 'b' }),
      ),
    );
    expect(copiesOf('configmaps', 'settings')).toHaveLength(all + 1);

    // Someone edits a copy → it is put back (the copy is the rule's).
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'settings' },
      { type: 'merge', body: { data: { mode: 'tampered' } } },
    );
    await until('tampered copy restored', () => {
      const data = server.object('configmaps', 'team-a', 'settings')?.['data'] as
        Record<string, string> | undefined;
      return data?.['mode'] === 'b';
    });

    // Someone deletes a copy → it comes back.
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-c', name: 'settings' });
    await until(
      'deleted copy re-created',
      () => server.object('configmaps', 'team-c', 'settings') !== undefined,
    );

    // The source loses its label → every copy is removed.
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'platform', name: 'settings' },
      { type: 'merge', body: { metadata: { labels: { copy: null } } } },
    );
    await until(
      'copies removed',
      () => copiesOf('configmaps', 'settings').length === 0 && ruleOf('settings')?.status?.copies === 0,
    );
    expect(server.object('configmaps', 'platform', 'settings')).toBeDefined(); // the source itself stays
    expect(ready('settings')).toMatchObject({
      status: 'True',
      message: `0 copies of 0 source(s) in ${all + 1} namespace(s)`,
    });
  });

  it('copies a Secret into the listed namespaces without ever logging its value; deleting the rule removes its copies', async () => {
    const logStart = logLines.length;
    await client.create({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'registry', namespace: 'platform', labels: { copy: 'registry' } },
      type: 'Opaque',
      data: { password: B64_SECRET },
    });
    await client.create({
      ...RULE_TYPE,
      metadata: { name: 'registry' },
      spec: {
        ruleType: 'secret',
        sourceNamespace: 'platform',
        selector: { matchExpressions: [{ key: 'copy', operator: 'In', values: ['registry'] }] },
        targetNamespaces: ['team-a', 'team-b', 'not-yet'],
      },
    });
    await until(
      'secret copies in team-a and team-b',
      () => ready('registry')?.status === 'True' && copiesOf('secrets', 'registry').length === 2,
    );
    expect(namespacesOf(copiesOf('secrets', 'registry'))).toEqual(['team-a', 'team-b']);
    for (const copy of copiesOf('secrets', 'registry')) {
      expect(copy.type).toBe('Opaque');
      expect(copy.data).toEqual({ password: B64_SECRET });
    }

    // A listed namespace created later gets its copy; a rotated value reaches every copy.
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'not-yet' } });
    await client.patch(
      { apiVersion: 'v1', kind: 'Secret', namespace: 'platform', name: 'registry' },
      { type: 'merge', body: { data: { password: B64_UPDATED } } },
    );
    await until('three rotated copies', () => {
      const copies = copiesOf('secrets', 'registry');
      return copies.length === 3 && copies.every((c) => c.data?.['password'] === B64_UPDATED);
    });

    // The logs saw the copies (so the capture works) but never a secret value, plain or base64.
    const logged = logLines.slice(logStart).join('');
    expect(logged).toContain('"rule":"registry"');
    expect(logged).toContain('copies synced');
    expect(logged).toContain('Secret team-a/registry');
    for (const value of [PLAIN_SECRET, B64_SECRET, PLAIN_UPDATED, B64_UPDATED]) {
      expect(logged).not.toContain(value);
      expect(logLines.join('')).not.toContain(value);
      // nor in the Events recorded about the rule, nor in its status
      expect(JSON.stringify(server.objects('events'))).not.toContain(value);
      expect(JSON.stringify(ruleOf('registry'))).not.toContain(value);
    }

    // The rule goes away → the finalizer deletes every copy first, then the rule is gone.
    await client.delete({ ...RULE_TYPE, name: 'registry' });
    await until('rule and its copies gone', () => ruleOf('registry') === undefined);
    expect(copiesOf('secrets', 'registry')).toEqual([]);
    expect(server.object('secrets', 'platform', 'registry')).toBeDefined();
  });

  it('deleting a rule with copies everywhere removes all of them; summarize reads rules and copies', async () => {
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'platform', name: 'settings' },
      { type: 'merge', body: { metadata: { labels: { copy: 'settings' } } } },
    );
    const targets = activeNamespaces().filter((n) => n !== 'platform');
    await until('settings copies back', () => copiesOf('configmaps', 'settings').length === targets.length);
    const rows = await summarize(client);
    expect(rows).toEqual([
      {
        rule: 'settings',
        type: 'configmap',
        source: 'platform',
        sources: 1,
        copies: targets.length,
        ready: 'True',
        reason: 'Synced',
        namespaces: targets,
      },
    ]);
    await client.delete({ ...RULE_TYPE, name: 'settings' });
    await until('settings rule gone', () => ruleOf('settings') === undefined);
    expect(copiesOf('configmaps', 'settings')).toEqual([]);
    expect(results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal')).toEqual([]);
  });
});

describe('copyrator demo scenario (README) against the embedded API server', () => {
  it('converges and never prints a Secret value', async () => {
    const server = await startApiServer();
    const client = KubeClient.fromKubeConfig(server.kubeConfig);
    const mgr = new Manager({ client, name: 'copyrator', logLevel: 'silent' });
    try {
      await setup(mgr);
      await mgr.start();
      const lines: string[] = [];
      expect(await runCopyratorDemo(mgr, (l) => lines.push(l))).toBe(true);
      const out = lines.join('\n');
      expect(out).toContain('converged');
      expect(out).toMatch(/registry-credentials\s+secret\s+platform\s+1\s+\d+\s+True/);
      for (const value of ['demo-only-not-a-real-secret', 'rotated-demo-value']) {
        expect(out).not.toContain(value);
        expect(out).not.toContain(Buffer.from(value).toString('base64'));
      }
    } finally {
      await mgr.stop();
      client.close();
      await server.stop();
    }
  });
});

describe('copyrator with exactly the RBAC its Manager declares (HTTP, authorizing API server)', () => {
  it('copies, updates, deletes and cleans up with only managerRbac(mgr) granted — COPY_PERMISSIONS included', async () => {
    const server = await startApiServer({
      auth: { tokens: { admin: { name: 'admin', groups: ['system:masters'] }, operator: 'copyrator' } },
    });
    const admin = KubeClient.fromKubeConfig(server.kubeConfig);
    // Install the CRD as admin through a Manager's setup: it remembers the CRD, so its RBAC asks
    // get/patch on that CRD by name.
    const probe = new Manager({ client: admin, name: 'copyrator', logLevel: 'silent' });
    await setup(probe);
    const rbac = await managerRbac(probe);
    expect(rbac.rules).toContainEqual({
      apiGroups: [''],
      resources: ['secrets'],
      verbs: ['list', 'watch', 'create', 'patch', 'delete'],
    });
    expect(rbac.rules).toContainEqual({
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: [RULES],
      verbs: ['get', 'patch'],
    });
    // The operator below leaves the CRD alone (`installCrd: false`): the same rules without that one.
    const operatorRules = rbac.rules.filter((r) => !r.resources.includes('customresourcedefinitions'));
    expect(operatorRules).toHaveLength(rbac.rules.length - 1);
    // granted as a cluster admin would: a ClusterRole and its binding, created through the API
    for (const o of rbacGrant('copyrator', operatorRules)) await admin.create(o as KubeObject);
    const dir = mkdtempSync(join(tmpdir(), 'copyrator-rbac-'));
    const kubeconfig = join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, readFileSync(server.kubeconfigPath, 'utf8').replace(server.token, 'operator'));
    const client = KubeClient.fromKubeConfig(loadKubeConfigFile(kubeconfig));
    const lines: string[] = [];
    const mgr = new Manager({
      client,
      name: 'copyrator',
      log: createLogger({ level: 'debug', destination: { write: (l: string) => void lines.push(l) } }),
    });
    const results: ManagedResult[] = [];
    try {
      await setup(mgr, { installCrd: false });
      // skipping the install skips remembering it: exactly the rules granted above
      expect(mgr.installedCrds).toEqual([]);
      expect((await managerRbac(mgr)).rules).toEqual(operatorRules);
      mgr.results$.subscribe((r) => results.push(r));
      await mgr.start();
      const until = (what: string, check: () => boolean) =>
        check()
          ? Promise.resolve()
          : firstValueFrom(
              mgr.results$.pipe(
                filter(() => check()),
                timeout({
                  first: 15_000,
                  with: () => throwError(() => new Error(`${what}: ${lines.slice(-3).join('')}`)),
                }),
              ),
            );
      const copies = () =>
        (server.objects('secrets') as unknown as CopyObject[]).filter(
          (o) => o.metadata.labels?.[RULE_LABEL] === 'pull',
        );
      for (const name of ['src', 'team-a']) {
        await admin.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      }
      await admin.create({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'pull', namespace: 'src', labels: { copy: 'pull' } },
        data: { token: B64_SECRET },
      });
      await admin.create({
        ...RULE_TYPE,
        metadata: { name: 'pull' },
        spec: {
          ruleType: 'secret',
          sourceNamespace: 'src',
          selector: { matchLabels: { copy: 'pull' } },
          targetNamespaces: ['team-a'],
        },
      });
      await until('copy created', () => copies().length === 1 && ready(server, 'pull') === 'True');
      await admin.patch(
        { apiVersion: 'v1', kind: 'Secret', namespace: 'src', name: 'pull' },
        { type: 'merge', body: { data: { token: B64_UPDATED } } },
      );
      await until('copy updated', () => copies()[0]?.data?.['token'] === B64_UPDATED);
      await admin.patch(
        { ...RULE_TYPE, name: 'pull' },
        { type: 'merge', body: { spec: { targetNamespaces: ['default'] } } },
      );
      await until(
        'copy moved',
        () =>
          copies()
            .map((c) => c.metadata.namespace)
            .join() === 'default',
      );
      await admin.delete({ ...RULE_TYPE, name: 'pull' });
      await until('rule and copies gone', () => server.object(RULES, undefined, 'pull') === undefined);
      expect(copies()).toEqual([]);
      expect(results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal')).toEqual([]);
      expect(lines.join('')).not.toMatch(/forbidden/i);
    } finally {
      await mgr.stop();
      await probe.stop();
      client.close();
      admin.close();
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function ready(server: ApiServer, rule: string): string | undefined {
  const r = server.object(RULES, undefined, rule) as unknown as CopyratorRule | undefined;
  return r?.status?.conditions?.find((c) => c.type === 'Ready')?.status;
}
