/**
 * copyrator end to end over HTTP, run by a `Manager` exactly as `setup(mgr)` registers it, on both
 * test backends: the embedded API server and a real kube-apiserver with kube-controller-manager.
 * Every wait is for an outcome — the server's state read over HTTP until it holds (`waitFor`,
 * with a generous bound that names the last reconcile results when it is hit) — never a sleep.
 */
import type { KubeObject, ControllerResult, PolicyRule } from '@rxkube/kube';
import { KubeClient, Manager, createLogger, loadKubeConfigFile } from '@rxkube/kube';
import { managerRbac } from '@rxkube/kube/manager';
import type { KObj } from '@rxkube/testing';
import { waitFor } from '@rxkube/testing';
import type { BackendContext } from '@rxkube/testing/vitest';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { printSummary, runCopyratorDemo } from './demo.js';
import { setup, summarize } from './operator.js';
import {
  type CopyratorRule,
  type CopyObject,
  RULE_LABEL,
  RULE_TYPE,
  SOURCE_ANNOTATION,
} from './rule-types.js';

const PLAIN_SECRET = 'hunter2-s3cr3t-pa55word';
const B64_SECRET = Buffer.from(PLAIN_SECRET).toString('base64');
const PLAIN_UPDATED = 'rotated-0ther-s3cr3t';
const B64_UPDATED = Buffer.from(PLAIN_UPDATED).toString('base64');
const RULES = 'copyratorrules.copyrator.rxkube.io';
/** A failure bound, not a wait: generous, for a real control plane on a loaded machine. */
const BOUND_MS = 30_000;

/**
 * Resolves once `check()` holds, reading the server again until it does; when the bound is hit,
 * the error names `what` and the last reconcile results.
 */
function untilWith(results: readonly ControllerResult[]) {
  return (what: string, check: () => Promise<boolean>): Promise<unknown> =>
    waitFor(what, check, { timeoutMs: BOUND_MS }).catch((e: unknown) => {
      throw new Error(
        `copyrator: ${(e as Error).message}; last results: ${JSON.stringify(
          results.slice(-5).map((r) => [r.key, r.outcome, r.error?.message]),
        )}`,
      );
    });
}

/** Reads of the cluster's state over HTTP, as the admin. */
function reads(b: BackendContext) {
  const copiesOf = async (resource: 'configmaps' | 'secrets', rule: string): Promise<CopyObject[]> =>
    ((await b.cluster.list(resource)) as unknown as CopyObject[]).filter(
      (o) => o.metadata.labels?.[RULE_LABEL] === rule,
    );
  const ruleOf = async (name: string) =>
    (await b.cluster.get(RULES, undefined, name)) as unknown as CopyratorRule | undefined;
  return {
    activeNamespaces: async () =>
      (await b.cluster.list('namespaces'))
        .filter((n) => (n['status'] as { phase?: string } | undefined)?.phase === 'Active')
        .map((n) => n.metadata.name ?? '')
        .sort(),
    copiesOf,
    ruleOf,
    ready: async (name: string) => (await ruleOf(name))?.status?.conditions?.find((c) => c.type === 'Ready'),
    object: (resource: string, namespace: string, name: string): Promise<KObj | undefined> =>
      b.cluster.get(resource, namespace, name),
  };
}

describeEachBackend('copyrator (HTTP, Manager)', (b) => {
  let client: KubeClient;
  let mgr: Manager;
  /** Every line the manager's logger (and so every controller logger) wrote, at trace level. */
  const logLines: string[] = [];
  const results: ControllerResult[] = [];

  beforeAll(async () => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
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
  });

  const until = untilWith(results);
  const { activeNamespaces, copiesOf, ruleOf, ready, object } = reads(b);
  const namespacesOf = (copies: readonly CopyObject[]) =>
    copies.map((c) => c.metadata.namespace ?? '').sort();

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
    const targets = (await activeNamespaces()).filter((n) => n !== 'platform' && n !== 'team-b');
    expect(targets).toContain('team-a');
    const all = targets.length + 1;
    await until(
      'copies in every Active namespace but team-b, status CopyConflict',
      async () =>
        JSON.stringify(namespacesOf(await copiesOf('configmaps', 'settings'))) === JSON.stringify(targets) &&
        (await ready('settings'))?.reason === 'CopyConflict',
    );
    for (const copy of await copiesOf('configmaps', 'settings')) {
      expect(copy.data).toEqual({ mode: 'a', level: '1' });
      expect(copy.metadata.annotations?.[SOURCE_ANNOTATION]).toBe('platform/settings');
      expect(copy.metadata.labels).toEqual({ [RULE_LABEL]: 'settings' }); // the source's labels are not copied
    }
    expect((await object('configmaps', 'team-b', 'settings'))?.['data']).toEqual({ mine: 'yes' });
    expect((await b.cluster.list('configmaps')).filter((o) => o.metadata.name === 'unrelated')).toHaveLength(
      1,
    );
    expect((await ruleOf('settings'))?.status).toMatchObject({
      observedGeneration: 1,
      sources: 1,
      copies: targets.length,
    });
    expect((await ready('settings'))?.message).toContain('ConfigMap team-b/settings (held by unmanaged)');
    expect((await ruleOf('settings'))?.metadata.finalizers).toEqual(['copyrator.rxkube.io/cleanup']);

    // The foreign object goes away → its deletion reruns the rule (same name as a source) → copy.
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-b', name: 'settings' });
    await until(
      'copy in team-b, Ready',
      async () =>
        (await copiesOf('configmaps', 'settings')).length === all &&
        (await ready('settings'))?.status === 'True',
    );
    expect((await ruleOf('settings'))?.status).toMatchObject({ copies: all, sources: 1 });
    expect(await ready('settings')).toMatchObject({
      reason: 'Synced',
      message: `${all} copies of 1 source(s) in ${all} namespace(s) (every Active namespace: spec.targetNamespaces is unset)`,
    });

    // A namespace created later gets its copy.
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-c' } });
    await until(
      'copy in team-c',
      async () => (await object('configmaps', 'team-c', 'settings')) !== undefined,
    );
    expect((await object('configmaps', 'team-c', 'settings'))?.['data']).toEqual({ mode: 'a', level: '1' });

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
    await until('copies updated', async () =>
      (await copiesOf('configmaps', 'settings')).every(
        (c) => JSON.stringify(c.data) === JSON.stringify({ mode: 'b' }),
      ),
    );
    expect(await copiesOf('configmaps', 'settings')).toHaveLength(all + 1);

    // Someone edits a copy → it is put back (the copy is the rule's).
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'settings' },
      { type: 'merge', body: { data: { mode: 'tampered' } } },
    );
    await until('tampered copy restored', async () => {
      const data = (await object('configmaps', 'team-a', 'settings'))?.['data'] as
        Record<string, string> | undefined;
      return data?.['mode'] === 'b';
    });

    // Someone deletes a copy → it comes back.
    await client.delete({ apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-c', name: 'settings' });
    await until(
      'deleted copy re-created',
      async () => (await object('configmaps', 'team-c', 'settings')) !== undefined,
    );

    // The source loses its label → every copy is removed.
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'platform', name: 'settings' },
      { type: 'merge', body: { metadata: { labels: { copy: null } } } },
    );
    await until(
      'copies removed',
      async () =>
        (await copiesOf('configmaps', 'settings')).length === 0 &&
        (await ruleOf('settings'))?.status?.copies === 0,
    );
    expect(await object('configmaps', 'platform', 'settings')).toBeDefined(); // the source itself stays
    // nothing to copy is not "Synced": the condition says what was not found
    const nothing = await ready('settings');
    expect(nothing).toMatchObject({ status: 'False', reason: 'NoSources' });
    expect(nothing?.message).toMatch(/^no ConfigMap in namespace platform matches spec\.selector /);
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
      async () =>
        (await ready('registry'))?.status === 'True' && (await copiesOf('secrets', 'registry')).length === 2,
    );
    expect(namespacesOf(await copiesOf('secrets', 'registry'))).toEqual(['team-a', 'team-b']);
    for (const copy of await copiesOf('secrets', 'registry')) {
      expect(copy.type).toBe('Opaque');
      expect(copy.data).toEqual({ password: B64_SECRET });
    }

    // A listed namespace created later gets its copy; a rotated value reaches every copy.
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'not-yet' } });
    await client.patch(
      { apiVersion: 'v1', kind: 'Secret', namespace: 'platform', name: 'registry' },
      { type: 'merge', body: { data: { password: B64_UPDATED } } },
    );
    await until('three rotated copies', async () => {
      const copies = await copiesOf('secrets', 'registry');
      return copies.length === 3 && copies.every((c) => c.data?.['password'] === B64_UPDATED);
    });

    // The logs saw the copies (so the capture works) but never a secret value, plain or base64.
    const logged = logLines.slice(logStart).join('');
    expect(logged).toContain('"rule":"registry"');
    expect(logged).toContain('copies synced');
    expect(logged).toContain('Secret team-a/registry');
    const events = JSON.stringify([
      ...(await b.cluster.list('events')),
      ...(await b.cluster.list('events.events.k8s.io')),
    ]);
    expect(events).toContain('CopiesSynced'); // the Events are there to be searched
    const rule = JSON.stringify(await ruleOf('registry'));
    for (const value of [PLAIN_SECRET, B64_SECRET, PLAIN_UPDATED, B64_UPDATED]) {
      expect(logged).not.toContain(value);
      expect(logLines.join('')).not.toContain(value);
      // nor in the Events recorded about the rule, nor in its status
      expect(events).not.toContain(value);
      expect(rule).not.toContain(value);
    }

    // The rule goes away → the finalizer deletes every copy first, then the rule is gone. (On a
    // real server the cleanup's metadata-only list of ConfigMaps labelled with this Secret rule is
    // empty, `"items": null` on the wire: it hung here until KubeClient.list read that as [].)
    await client.delete({ ...RULE_TYPE, name: 'registry' });
    await until('rule and its copies gone', async () => (await ruleOf('registry')) === undefined);
    expect(await copiesOf('secrets', 'registry')).toEqual([]);
    expect(await object('secrets', 'platform', 'registry')).toBeDefined();
  });

  it('deleting a rule with copies everywhere removes all of them; summarize reads rules and copies', async () => {
    await client.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'platform', name: 'settings' },
      { type: 'merge', body: { metadata: { labels: { copy: 'settings' } } } },
    );
    const targets = (await activeNamespaces()).filter((n) => n !== 'platform');
    await until(
      'settings copies back',
      async () => (await copiesOf('configmaps', 'settings')).length === targets.length,
    );
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
    await until('settings rule gone', async () => (await ruleOf('settings')) === undefined);
    expect(await copiesOf('configmaps', 'settings')).toEqual([]);
    expect(results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal')).toEqual([]);
  });

  it('a copy refused by a ResourceQuota says so in the status and the error, and does not blame RBAC', async () => {
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'quota-full' } });
    await client.create({
      apiVersion: 'v1',
      kind: 'ResourceQuota',
      metadata: { name: 'no-configmaps', namespace: 'quota-full' },
      spec: { hard: { configmaps: '0' } },
    });
    // admission checks the quota once kube-controller-manager has computed its usage
    await until('the quota in force', async () => {
      const status = (await object('resourcequotas', 'quota-full', 'no-configmaps'))?.['status'] as
        { used?: Record<string, string> } | undefined;
      return status?.used?.['configmaps'] !== undefined;
    });
    await client.create(configMap('limited', { copy: 'limited' }, { a: '1' }));
    await client.create({
      ...RULE_TYPE,
      metadata: { name: 'limited' },
      spec: {
        ruleType: 'configmap',
        sourceNamespace: 'platform',
        selector: { matchLabels: { copy: 'limited' } },
        targetNamespaces: ['quota-full'],
      },
    });
    await until('Ready=False CopyFailed', async () => (await ready('limited'))?.reason === 'CopyFailed');
    // kube-apiserver's quota admission (plugin/pkg/admission/resourcequota) words the refusal
    expect((await ready('limited'))?.message).toMatch(
      /^1 write\(s\) failed, retrying: apply ConfigMap quota-full\/limited: 403 Forbidden: configmaps "limited" is forbidden: exceeded quota: no-configmaps/,
    );
    const error = results.find((r) => r.key === 'limited' && r.outcome === 'error')?.error?.message ?? '';
    expect(error).toContain('exceeded quota: no-configmaps');
    expect(error).toContain('which RBAC does not change');
    expect(error).not.toContain("check the operator's RBAC");

    // nothing was copied, so the rule goes at once
    await client.delete({ ...RULE_TYPE, name: 'limited' });
    await until('rule limited gone', async () => (await ruleOf('limited')) === undefined);
  });
});

describeEachBackend('copyrator demo scenario (README)', (b) => {
  it('converges and never prints a Secret value', async () => {
    const client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    const mgr = new Manager({ client, name: 'copyrator', logLevel: 'silent' });
    try {
      await setup(mgr);
      await mgr.start();
      const lines: string[] = [];
      const ok = await runCopyratorDemo(mgr, (l) => lines.push(l), { stepTimeoutMs: BOUND_MS });
      expect(ok, lines.join('\n')).toBe(true);
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
    }
  });

  it('prints a rule no operator has reconciled yet as Unknown, its columns apart', async () => {
    const client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
    const idle = new Manager({ client, name: 'copyrator', logLevel: 'silent' });
    try {
      await setup(idle); // installs the CRD; never started, so nothing reconciles
      await client.create({
        ...RULE_TYPE,
        metadata: { name: 'not-yet' },
        spec: {
          ruleType: 'configmap',
          sourceNamespace: 'nowhere',
          selector: { matchLabels: { a: 'b' } },
          targetNamespaces: ['team-x'],
        },
      });
      const lines: string[] = [];
      await printSummary(idle, (l) => lines.push(l));
      const row = lines.find((l) => l.startsWith('not-yet '));
      expect(row?.trim().split(/\s+/)).toEqual(['not-yet', 'configmap', 'nowhere', '0', '0', 'Unknown']);
      // the namespaces column starts where its header does
      const header = lines[0] ?? '';
      expect(row?.indexOf('Unknown')).toBe(header.indexOf('ready'));
      expect(header.indexOf('namespaces')).toBeGreaterThan(header.indexOf('ready') + 'Unknown'.length);
      await client.delete({ ...RULE_TYPE, name: 'not-yet' });
    } finally {
      await idle.stop();
      client.close();
    }
  });
});

/** The operator's bearer token: user `copyrator`, no groups, on both backends. */
const OPERATOR_TOKEN = 'copyrator-operator-token';

describeEachBackend(
  'copyrator with exactly the RBAC its Manager declares (HTTP, authorizing API server)',
  (b) => {
    /**
     * Grants `rules` to user `copyrator` as a cluster admin would, a ClusterRole and
     * ClusterRoleBinding (both backends authorize with RBAC), then waits until the authorizer
     * answers with them (the real RBAC authorizer reads bindings from its cache).
     */
    const grant = async (admin: KubeClient, operator: KubeClient, rules: readonly PolicyRule[]) => {
      await admin.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: 'copyrator' },
        rules: rules.map((r) => ({ ...r })),
      });
      await admin.create({
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'copyrator' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'copyrator' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'copyrator' }],
      });
      await waitFor(
        'the grant in effect',
        () =>
          operator.list(RULE_TYPE).then(
            () => true,
            () => false,
          ),
        { timeoutMs: BOUND_MS },
      );
    };

    it('copies, updates, deletes and cleans up with only managerRbac(mgr) granted — COPY_PERMISSIONS included', async () => {
      const admin = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
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
      const dir = mkdtempSync(join(tmpdir(), 'copyrator-rbac-'));
      const kubeconfig = join(dir, 'kubeconfig');
      writeFileSync(
        kubeconfig,
        readFileSync(b.cluster.kubeconfigPath, 'utf8').replace(b.cluster.token, OPERATOR_TOKEN),
      );
      const client = KubeClient.fromKubeConfig(loadKubeConfigFile(kubeconfig));
      await grant(admin, client, operatorRules);
      const lines: string[] = [];
      const mgr = new Manager({
        client,
        name: 'copyrator',
        log: createLogger({ level: 'debug', destination: { write: (l: string) => void lines.push(l) } }),
      });
      const results: ControllerResult[] = [];
      try {
        await setup(mgr, { installCrd: false });
        // skipping the install skips remembering it: exactly the rules granted above
        expect(mgr.installedCrds).toEqual([]);
        expect((await managerRbac(mgr)).rules).toEqual(operatorRules);
        mgr.results$.subscribe((r) => results.push(r));
        await mgr.start();
        const until = (what: string, check: () => Promise<boolean>) =>
          waitFor(what, check, { timeoutMs: BOUND_MS }).catch((e: unknown) => {
            throw new Error(`${(e as Error).message}: ${lines.slice(-3).join('')}`);
          });
        const { copiesOf, ready } = reads(b);
        const copies = () => copiesOf('secrets', 'pull');
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
        await until(
          'copy created',
          async () => (await copies()).length === 1 && (await ready('pull'))?.status === 'True',
        );
        await admin.patch(
          { apiVersion: 'v1', kind: 'Secret', namespace: 'src', name: 'pull' },
          { type: 'merge', body: { data: { token: B64_UPDATED } } },
        );
        await until('copy updated', async () => (await copies())[0]?.data?.['token'] === B64_UPDATED);
        await admin.patch(
          { ...RULE_TYPE, name: 'pull' },
          { type: 'merge', body: { spec: { targetNamespaces: ['default'] } } },
        );
        await until(
          'copy moved',
          async () => (await copies()).map((c) => c.metadata.namespace).join() === 'default',
        );
        await admin.delete({ ...RULE_TYPE, name: 'pull' });
        await until(
          'rule and copies gone',
          async () => (await b.cluster.get(RULES, undefined, 'pull')) === undefined,
        );
        expect(await copies()).toEqual([]);
        expect(results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal')).toEqual([]);
        expect(lines.join('')).not.toMatch(/forbidden/i);
      } finally {
        await mgr.stop();
        await probe.stop();
        client.close();
        admin.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  },
  {
    embedded: {
      auth: {
        tokens: { admin: { name: 'admin', groups: ['system:masters'] }, [OPERATOR_TOKEN]: 'copyrator' },
      },
    },
    real: { users: { [OPERATOR_TOKEN]: { name: 'copyrator' } } },
  },
);
