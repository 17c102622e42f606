/**
 * The namespace watcher through the Manager, over HTTP, on both test backends (the embedded API
 * server and a real kube-apiserver, whose kube-controller-manager deletes namespaces):
 * namespaces created → welcome ConfigMaps appear; a label change → the ConfigMap is updated; an
 * opt-out label → it is removed; a deleted ConfigMap comes back; a deleted namespace is skipped
 * (Terminating, then gone) and nothing fails. Waits are for outcomes — the server's state read
 * over HTTP, the manager's results, the operator's log lines — bounded, never a sleep.
 */
import { KubeClient, Manager, type ControllerResult } from '@rxkube/kube';
import { waitFor } from '@rxkube/testing';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type LineFields, name, setup, summarise } from './operator.js';
import { type ConfigMap, WELCOME_CONFIGMAP } from './reconcile.js';

/** A failure bound, not a wait: a real namespace deletion alone takes ~5 s. */
const BOUND = { timeoutMs: 30_000 };

describeEachBackend('namespace-watcher (HTTP, through the Manager)', (b) => {
  let client: KubeClient;
  beforeAll(() => {
    client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
  });
  afterAll(() => {
    client.close();
  });

  it('refuses a Manager restricted to namespaces (Namespaces are cluster-scoped)', async () => {
    const mgr = new Manager({ client, name, logLevel: 'silent', namespaces: ['default'] });
    await expect(setup(mgr)).rejects.toThrow(/mgr\.namespaces must be unset: Namespaces are cluster-scoped/);
    expect(mgr.registered).toEqual([]);
    await mgr.stop();
  });

  it('welcomes namespaces, follows label changes and opt-outs, heals, and skips deleted namespaces', async () => {
    const mgr = new Manager({ client, name, logLevel: 'silent' });
    const lines: { line: string; fields: LineFields }[] = [];
    const results: ControllerResult[] = [];
    await setup(mgr, { log: (line, fields) => lines.push({ line, fields }) });
    const sub = mgr.results$.subscribe((r) => results.push(r));
    /** Resolves once `probe()` holds, reading again until it does (bounded); names failed reconciles. */
    const until = (what: string, probe: () => Promise<boolean>): Promise<unknown> =>
      waitFor(what, probe, BOUND).catch((e: unknown) => {
        const failed = results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal');
        throw new Error(
          `${(e as Error).message}; last failed reconciles: ${JSON.stringify(
            failed.slice(-3).map((r) => [r.key, r.error?.message]),
          )}`,
        );
      });
    const welcome = async (ns: string) =>
      (await b.cluster.get('configmaps', ns, WELCOME_CONFIGMAP)) as ConfigMap | undefined;
    const nsRef = (ns: string) => ({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    const linesOf = (ns: string) => lines.filter((l) => l.fields.namespace === ns).map((l) => l.line);

    try {
      await mgr.start();
      // existing namespaces: default is welcomed, the kube-* ones are excluded
      await until('default welcomed', async () => (await welcome('default')) !== undefined);
      expect(await welcome('kube-system')).toBeUndefined();

      // create namespaces → ConfigMaps appear, created by server-side apply as namespace-watcher
      await client.create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'team-a', labels: { team: 'a' } },
      });
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } });
      await until(
        'team-a and team-b welcomed',
        async () => (await welcome('team-a')) !== undefined && (await welcome('team-b')) !== undefined,
      );
      const a1 = await welcome('team-a');
      expect(a1?.data).toEqual({
        namespace: 'team-a',
        phase: 'Active',
        labels: 'kubernetes.io/metadata.name=team-a,team=a',
        summary: 'Welcome to team-a (Active), labels: kubernetes.io/metadata.name=team-a,team=a',
      });
      expect(a1?.metadata.managedFields).toContainEqual(
        expect.objectContaining({ manager: 'namespace-watcher', operation: 'Apply' }),
      );
      expect(linesOf('team-a')).toContain(
        'ADDED    namespace team-a: phase Active, labels kubernetes.io/metadata.name=team-a,team=a',
      );
      expect(linesOf('team-a')).toContain(`created  team-a/${WELCOME_CONFIGMAP}`);

      // label change → ConfigMap updated
      await client.patch(nsRef('team-a'), {
        type: 'merge',
        body: { metadata: { labels: { team: 'alpha' } } },
      });
      await until(
        'team-a updated',
        async () => (await welcome('team-a'))?.data?.['labels']?.includes('team=alpha') === true,
      );
      expect((await welcome('team-a'))?.data?.['summary']).toBe(
        'Welcome to team-a (Active), labels: kubernetes.io/metadata.name=team-a,team=alpha',
      );
      expect(linesOf('team-a')).toContain(
        'MODIFIED namespace team-a: labels kubernetes.io/metadata.name=team-a,team=a → kubernetes.io/metadata.name=team-a,team=alpha',
      );
      expect(linesOf('team-a')).toContain(`updated  team-a/${WELCOME_CONFIGMAP}`);

      // opting out removes the ConfigMap
      await client.patch(nsRef('team-b'), {
        type: 'merge',
        body: { metadata: { labels: { 'rxkube.io/welcome': 'false' } } },
      });
      await until('team-b opted out', async () => (await welcome('team-b')) === undefined);
      // the operator logs the deletion once its DELETE answered: the ConfigMap may be gone first
      await until('the opt-out logged', () =>
        Promise.resolve(
          linesOf('team-b').includes(`deleted  team-b/${WELCOME_CONFIGMAP} (namespace opted out)`),
        ),
      );

      // a deleted welcome ConfigMap comes back (the mapped ConfigMap watch re-reconciles its namespace)
      const before = (await welcome('team-a'))?.metadata.uid;
      await client.delete({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'team-a',
        name: WELCOME_CONFIGMAP,
      });
      await until('team-a healed', async () => {
        const healed = await welcome('team-a');
        return healed !== undefined && healed.metadata.uid !== before;
      });

      // delete a namespace → Terminating (skipped), then gone: the controller reports it skipped
      const since = results.length;
      await client.delete(nsRef('team-a'));
      await until(
        'team-a gone and skipped',
        async () =>
          results
            .slice(since)
            .some((r) => r.controller === name && r.key === 'team-a' && r.outcome === 'skipped') &&
          linesOf('team-a').includes('DELETED  namespace team-a') &&
          (await b.cluster.get('namespaces', undefined, 'team-a')) === undefined,
      );
      expect(linesOf('team-a')).toContain('MODIFIED namespace team-a: phase Active → Terminating');

      // nothing crashed: a namespace created afterwards is welcomed, and no reconcile failed
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-c' } });
      await until('team-c welcomed', async () => (await welcome('team-c')) !== undefined);
      expect(results.filter((r) => r.outcome === 'error' || r.outcome === 'terminal')).toEqual([]);

      // the summary agrees: every namespace is as the operator wants it
      const rows = await summarise(client);
      expect(rows.map((r) => [r.namespace, r.welcome])).toEqual([
        ['default', 'ok'],
        ['kube-node-lease', 'skipped (excluded)'],
        ['kube-public', 'skipped (excluded)'],
        ['kube-system', 'skipped (excluded)'],
        ['team-b', 'skipped (excluded)'],
        ['team-c', 'ok'],
      ]);
      expect(rows.every((r) => r.converged)).toBe(true);
    } finally {
      const report = await mgr.stop();
      sub.unsubscribe();
      expect(report.drained).toBe(true);
    }
  });

  b.itOn(
    'embedded',
    "needs the embedded server's count of open watches to know the manager's watches are closed; a real server gives no such barrier",
  )('the journal stops with the manager: nothing is logged once its watches are closed', async () => {
    const mgr = new Manager({ client, name, logLevel: 'silent' });
    const lines: string[] = [];
    await setup(mgr, { log: (line) => lines.push(line) });
    await mgr.start();
    await waitFor('the default namespace journaled', () =>
      lines.some((l) => l.startsWith('ADDED    namespace default')),
    );
    expect((await mgr.stop()).drained).toBe(true);
    const count = lines.length;
    await waitFor('every watch closed after stop()', () => b.apiServer.openWatches === 0);
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'after-stop' } });
    expect(lines.length).toBe(count);
  });
});
