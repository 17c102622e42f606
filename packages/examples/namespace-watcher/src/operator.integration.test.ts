/**
 * The namespace watcher through the Manager, over HTTP against `@rxkube/testing`'s API server:
 * namespaces created → welcome ConfigMaps appear; a label change → the ConfigMap is updated; an
 * opt-out label → it is removed; a deleted ConfigMap comes back; a deleted namespace is skipped
 * (Terminating, then gone) and nothing fails. Waits are deterministic: on the manager's results
 * and the operator's log lines (firstValueFrom + filter + timeout), never on time.
 */
import { KubeClient, Manager, type ManagedResult } from '@rxkube/kube';
import { type ApiServer, startApiServer } from '@rxkube/testing';
import { Subject, filter, firstValueFrom, timeout } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LineFields, name, setup, summarise } from './operator.js';
import { type ConfigMap, WELCOME_CONFIGMAP } from './reconcile.js';

describe('namespace-watcher against the embedded API server (HTTP, through the Manager)', () => {
  let server: ApiServer;
  let client: KubeClient;
  beforeAll(async () => {
    server = await startApiServer();
    client = KubeClient.fromKubeConfig(server.kubeConfig);
  });
  afterAll(async () => {
    client.close();
    await server.stop();
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
    const results: ManagedResult[] = [];
    const changed = new Subject<void>();
    await setup(mgr, {
      log: (line, fields) => {
        lines.push({ line, fields });
        changed.next();
      },
    });
    const sub = mgr.results$.subscribe((r) => {
      results.push(r);
      changed.next();
    });
    /** Resolves once `probe()` holds, re-checking after each result or log line; rejects after 10 s. */
    const waitFor = async (what: string, probe: () => boolean): Promise<void> => {
      if (probe()) return;
      await firstValueFrom(
        changed.pipe(
          filter(() => probe()),
          timeout({ first: 10_000, with: () => Promise.reject(new Error(`timed out waiting for ${what}`)) }),
        ),
      );
    };
    const welcome = (ns: string) =>
      server.object('configmaps', ns, WELCOME_CONFIGMAP) as ConfigMap | undefined;
    const nsRef = (ns: string) => ({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    const linesOf = (ns: string) => lines.filter((l) => l.fields.namespace === ns).map((l) => l.line);

    try {
      await mgr.start();
      // existing namespaces: default is welcomed, the kube-* ones are excluded
      await waitFor('default welcomed', () => welcome('default') !== undefined);
      expect(welcome('kube-system')).toBeUndefined();

      // create namespaces → ConfigMaps appear, created by server-side apply as namespace-watcher
      await client.create({
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: 'team-a', labels: { team: 'a' } },
      });
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-b' } });
      await waitFor(
        'team-a and team-b welcomed',
        () => welcome('team-a') !== undefined && welcome('team-b') !== undefined,
      );
      const a1 = welcome('team-a');
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
      await waitFor(
        'team-a updated',
        () => welcome('team-a')?.data?.['labels']?.includes('team=alpha') === true,
      );
      expect(welcome('team-a')?.data?.['summary']).toBe(
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
      await waitFor('team-b opted out', () => welcome('team-b') === undefined);
      expect(linesOf('team-b')).toContain(`deleted  team-b/${WELCOME_CONFIGMAP} (namespace opted out)`);

      // a deleted welcome ConfigMap comes back (the mapped ConfigMap watch re-reconciles its namespace)
      const before = welcome('team-a')?.metadata.uid;
      await client.delete({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        namespace: 'team-a',
        name: WELCOME_CONFIGMAP,
      });
      await waitFor(
        'team-a healed',
        () => welcome('team-a') !== undefined && welcome('team-a')?.metadata.uid !== before,
      );

      // delete a namespace → Terminating (skipped), then gone: the controller reports it skipped
      const since = results.length;
      await client.delete(nsRef('team-a'));
      await waitFor(
        'team-a gone and skipped',
        () =>
          results
            .slice(since)
            .some((r) => r.controller === name && r.key === 'team-a' && r.outcome === 'skipped') &&
          server.object('namespaces', undefined, 'team-a') === undefined &&
          linesOf('team-a').includes('DELETED  namespace team-a'),
      );
      expect(linesOf('team-a')).toContain('MODIFIED namespace team-a: phase Active → Terminating');

      // nothing crashed: a namespace created afterwards is welcomed, and no reconcile failed
      await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team-c' } });
      await waitFor('team-c welcomed', () => welcome('team-c') !== undefined);
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
    // the journal stops with the manager: once the watches are closed, nothing is logged any more
    const count = lines.length;
    for (let i = 0; server.openWatches > 0; i++) {
      if (i > 10_000) throw new Error(`${server.openWatches} watches still open after stop()`);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    await client.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'after-stop' } });
    expect(lines.length).toBe(count);
  });
});
