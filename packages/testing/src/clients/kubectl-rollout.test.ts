/**
 * `kubectl scale`, `rollout status|history|undo|restart`, `wait` and `delete --cascade=background|
 * foreground|orphan`, on each test backend with Deployments rolled out (the embedded server's
 * `simulateDeployments`; on a real control plane kube-controller-manager with a stand-in kubelet);
 * outputs recorded with `same()` are compared between the backends at the end.
 */
import { expect } from 'vitest';

import type { KObj } from '../store/object.js';
import type { Kubectl, KubectlResult } from './kubectl.js';
import { normalizeOutput } from './normalize.js';
import { kubectlSuite } from './suite.js';

const NS = 'rollout';

/** `rollout status` prints progress lines ("Waiting for …") while a controller works, then the outcome. */
function finalLine(r: KubectlResult): string {
  const lines = r.stdout.split('\n').filter((l) => l !== '');
  for (const l of lines.slice(0, -1)) expect(l).toMatch(/^Waiting for /);
  return lines.at(-1) ?? '';
}

const replicaSets = async (kubectl: Kubectl, app: string): Promise<KObj[]> =>
  (await kubectl.json<{ items: KObj[] }>(['get', 'replicasets', '-n', NS, '-l', `app=${app}`])).items;

const image = async (kubectl: Kubectl, name: string): Promise<string> =>
  (
    await kubectl.run([
      'get',
      'deployment',
      name,
      '-n',
      NS,
      '-o',
      'jsonpath={.spec.template.spec.containers[0].image} {.metadata.annotations.deployment\\.kubernetes\\.io/revision}',
    ])
  ).stdout;

kubectlSuite('kubectl scale, rollout, wait, delete --cascade', { simulateDeployments: true }, (it) => {
  it('rollout status waits for the rollout and says it finished', async ({ kubectl, same }) => {
    expect((await kubectl.run(['create', 'namespace', NS])).code).toBe(0);
    const created = await kubectl.run([
      'create',
      'deployment',
      'ro',
      '-n',
      NS,
      '--image=nginx:1.25',
      '--replicas=2',
    ]);
    expect([created.code, created.stdout]).toEqual([0, 'deployment.apps/ro created\n']);
    const r = await kubectl.run(['rollout', 'status', 'deployment/ro', '-n', NS, '--timeout=60s']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(finalLine(r)).toBe('deployment "ro" successfully rolled out');
    const available = await kubectl.run([
      'wait',
      '--for=condition=Available',
      'deployment/ro',
      '-n',
      NS,
      '--timeout=60s',
    ]);
    expect([available.code, available.stdout, available.stderr]).toEqual([
      0,
      'deployment.apps/ro condition met\n',
      '',
    ]);
    same('status', finalLine(r) + available.stdout);
  });

  it('scale sets spec.replicas through the scale subresource; --current-replicas is a precondition', async ({
    kubectl,
    cluster,
    same,
  }) => {
    const r = await kubectl.run(['scale', 'deployment', 'ro', '-n', NS, '--replicas=3']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'deployment.apps/ro scaled\n', '']);
    expect(await cluster.get('deployments.apps', NS, 'ro')).toMatchObject({ spec: { replicas: 3 } });
    const ready = await kubectl.run([
      'wait',
      '--for=jsonpath={.status.readyReplicas}=3',
      'deployment/ro',
      '-n',
      NS,
      '--timeout=60s',
    ]);
    expect([ready.code, ready.stdout, ready.stderr]).toEqual([0, 'deployment.apps/ro condition met\n', '']);
    const stale = await kubectl.run([
      'scale',
      'deployment',
      'ro',
      '-n',
      NS,
      '--current-replicas=2',
      '--replicas=4',
    ]);
    expect([stale.code, stale.stdout, stale.stderr]).toEqual([
      1,
      '',
      'error: Expected replicas to be 2, was 3\n',
    ]);
    // a ConfigMap has no scale subresource
    expect((await kubectl.run(['create', 'configmap', 'c', '-n', NS])).code).toBe(0);
    const noScale = await kubectl.run(['scale', 'configmap', 'c', '-n', NS, '--replicas=2']);
    expect([noScale.code, noScale.stdout, noScale.stderr]).toEqual([
      1,
      '',
      'Error from server (NotFound): the server could not find the requested resource\n',
    ]);
    expect(await cluster.get('deployments.apps', NS, 'ro')).toMatchObject({ spec: { replicas: 3 } });
    same('scale', r.stdout + ready.stdout + stale.stderr + noScale.stderr);
  });

  it('a new template is a new revision: rollout history lists both, --revision shows the template', async ({
    kubectl,
    same,
  }) => {
    const set = await kubectl.run(['set', 'image', 'deployment/ro', '-n', NS, 'nginx=nginx:1.26']);
    expect([set.code, set.stdout, set.stderr]).toEqual([0, 'deployment.apps/ro image updated\n', '']);
    const status = await kubectl.run(['rollout', 'status', 'deployment/ro', '-n', NS, '--timeout=60s']);
    expect([status.code, finalLine(status)]).toEqual([0, 'deployment "ro" successfully rolled out']);
    expect(await image(kubectl, 'ro')).toBe('nginx:1.26 2');
    const history = await kubectl.run(['rollout', 'history', 'deployment/ro', '-n', NS]);
    expect([history.code, history.stderr]).toEqual([0, '']);
    expect(history.stdout).toBe(
      'deployment.apps/ro \nREVISION  CHANGE-CAUSE\n1         <none>\n2         <none>\n\n',
    );
    const two = await kubectl.run(['rollout', 'history', 'deployment/ro', '-n', NS, '--revision=2']);
    expect([two.code, two.stderr]).toEqual([0, '']);
    const template = normalizeOutput(two.stdout);
    expect(template).toBe(`deployment.apps/ro with revision #2
Pod Template:
  Labels:\tapp=ro
\tpod-template-hash=<hash>
  Containers:
   nginx:
    Image:\tnginx:1.26
    Port:\t<none>
    Host Port:\t<none>
    Environment:\t<none>
    Mounts:\t<none>
  Volumes:\t<none>
  Node-Selectors:\t<none>
  Tolerations:\t<none>

`);
    // one ReplicaSet per template, the old one scaled to 0
    const sets = await replicaSets(kubectl, 'ro');
    expect(
      sets
        .map((rs) => [
          rs.metadata.annotations?.['deployment.kubernetes.io/revision'],
          (rs as unknown as { spec: { replicas: number } }).spec.replicas,
        ])
        .sort(),
    ).toEqual([
      ['1', 0],
      ['2', 3],
    ]);
    same('history', set.stdout + history.stdout + template);
  });

  it('rollout undo goes back to the previous template as a new revision', async ({ kubectl, same }) => {
    const r = await kubectl.run(['rollout', 'undo', 'deployment/ro', '-n', NS]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'deployment.apps/ro rolled back\n', '']);
    const status = await kubectl.run(['rollout', 'status', 'deployment/ro', '-n', NS, '--timeout=60s']);
    expect([status.code, finalLine(status)]).toEqual([0, 'deployment "ro" successfully rolled out']);
    expect(await image(kubectl, 'ro')).toBe('nginx:1.25 3');
    const history = await kubectl.run(['rollout', 'history', 'deployment/ro', '-n', NS]);
    // revision 1's template is revision 3 now
    expect(history.stdout).toBe(
      'deployment.apps/ro \nREVISION  CHANGE-CAUSE\n2         <none>\n3         <none>\n\n',
    );
    const missing = await kubectl.run(['rollout', 'undo', 'deployment/ro', '-n', NS, '--to-revision=9']);
    expect([missing.code, missing.stdout, missing.stderr]).toEqual([
      1,
      '',
      'error: unable to find specified revision 9 in history\n',
    ]);
    same('undo', r.stdout + history.stdout + missing.stderr);
  });

  it('rollout restart stamps the template with restartedAt: a new revision rolls out', async ({
    kubectl,
    cluster,
    same,
  }) => {
    const r = await kubectl.run(['rollout', 'restart', 'deployment/ro', '-n', NS]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'deployment.apps/ro restarted\n', '']);
    const live = (await cluster.get('deployments.apps', NS, 'ro')) as KObj & {
      spec: { template: { metadata: { annotations?: Record<string, string> } } };
    };
    expect(live.spec.template.metadata.annotations?.['kubectl.kubernetes.io/restartedAt']).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/,
    );
    const status = await kubectl.run(['rollout', 'status', 'deployment/ro', '-n', NS, '--timeout=60s']);
    expect([status.code, finalLine(status)]).toEqual([0, 'deployment "ro" successfully rolled out']);
    expect(await image(kubectl, 'ro')).toBe('nginx:1.25 4');
    expect((await replicaSets(kubectl, 'ro')).length).toBe(3);
    same('restart', r.stdout);
  });

  it('wait: a condition never met times out (exit 1); --for=delete returns when the object goes', async ({
    kubectl,
    same,
  }) => {
    const never = await kubectl.run([
      'wait',
      '--for=condition=Nope',
      'deployment/ro',
      '-n',
      NS,
      '--timeout=1s',
    ]);
    expect([never.code, never.stdout, never.stderr]).toEqual([
      1,
      '',
      'error: timed out waiting for the condition on deployments/ro\n',
    ]);
    // held by a finalizer: deleted, but still there until the finalizer is removed
    expect((await kubectl.run(['create', 'configmap', 'held', '-n', NS])).code).toBe(0);
    const fin = await kubectl.run([
      'patch',
      'configmap',
      'held',
      '-n',
      NS,
      '--type=merge',
      '-p',
      '{"metadata":{"finalizers":["example.com/hold"]}}',
    ]);
    expect(fin.code, fin.stderr).toBe(0);
    const del = await kubectl.run(['delete', 'configmap', 'held', '-n', NS, '--wait=false']);
    expect([del.code, del.stdout]).toEqual([0, 'configmap "held" deleted\n']);
    // -v=6 logs each request: the wait is watching once its watch request is logged
    const w = kubectl.watch(['wait', '--for=delete', 'configmap/held', '-n', NS, '--timeout=60s', '-v=6']);
    await w.untilStderr(
      (e) => /GET \S+\/configmaps\?\S*watch=true\S* 200 OK/.test(e),
      'the watch of the ConfigMap',
    );
    const unblock = await kubectl.run([
      'patch',
      'configmap',
      'held',
      '-n',
      NS,
      '--type=json',
      '-p',
      '[{"op":"remove","path":"/metadata/finalizers"}]',
    ]);
    expect(unblock.code, unblock.stderr).toBe(0);
    await w.until((l) => l.length > 0, 'the wait to print');
    const done = await w.stop();
    expect([done.code, done.stdout]).toEqual([0, 'configmap/held condition met']);
    same('wait', never.stderr + done.stdout);
  });

  it('delete --cascade=background: the Deployment goes at once, its ReplicaSets after it', async ({
    kubectl,
    same,
  }) => {
    expect((await kubectl.run(['create', 'deployment', 'bg', '-n', NS, '--image=nginx'])).code).toBe(0);
    expect((await kubectl.run(['rollout', 'status', 'deployment/bg', '-n', NS, '--timeout=60s'])).code).toBe(
      0,
    );
    const [rs] = await replicaSets(kubectl, 'bg');
    expect(rs).toBeDefined();
    const r = await kubectl.run(['delete', 'deployment', 'bg', '-n', NS, '--cascade=background']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'deployment.apps "bg" deleted\n', '']);
    // the garbage collector removes the ReplicaSet
    const gone = await kubectl.run([
      'wait',
      '--for=delete',
      `replicaset/${rs?.metadata.name ?? ''}`,
      '-n',
      NS,
      '--timeout=60s',
    ]);
    expect([gone.code, gone.stderr]).toEqual([0, '']);
    expect(await replicaSets(kubectl, 'bg')).toEqual([]);
    same('background', r.stdout);
  });

  it('delete --cascade=foreground: kubectl returns once the ReplicaSets and then the Deployment are gone', async ({
    kubectl,
    same,
  }) => {
    expect((await kubectl.run(['create', 'deployment', 'fg', '-n', NS, '--image=nginx'])).code).toBe(0);
    expect((await kubectl.run(['rollout', 'status', 'deployment/fg', '-n', NS, '--timeout=60s'])).code).toBe(
      0,
    );
    expect(await replicaSets(kubectl, 'fg')).toHaveLength(1);
    const r = await kubectl.run(['delete', 'deployment', 'fg', '-n', NS, '--cascade=foreground']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'deployment.apps "fg" deleted\n', '']);
    // foreground: the owner waits (foregroundDeletion finalizer) until its dependents are gone
    expect(await replicaSets(kubectl, 'fg')).toEqual([]);
    const get = await kubectl.run(['get', 'deployment', 'fg', '-n', NS]);
    expect([get.code, get.stderr]).toEqual([
      1,
      'Error from server (NotFound): deployments.apps "fg" not found\n',
    ]);
    same('foreground', r.stdout + get.stderr);
  });

  it('delete --cascade=orphan: the ReplicaSets stay, without their owner reference', async ({
    kubectl,
    same,
  }) => {
    expect((await kubectl.run(['create', 'deployment', 'or', '-n', NS, '--image=nginx'])).code).toBe(0);
    expect((await kubectl.run(['rollout', 'status', 'deployment/or', '-n', NS, '--timeout=60s'])).code).toBe(
      0,
    );
    const [rs] = await replicaSets(kubectl, 'or');
    expect(rs?.metadata.ownerReferences).toHaveLength(1);
    const r = await kubectl.run(['delete', 'deployment', 'or', '-n', NS, '--cascade=orphan']);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, 'deployment.apps "or" deleted\n', '']);
    const left = await replicaSets(kubectl, 'or');
    expect(left.map((x) => [x.metadata.name, x.metadata.uid, x.metadata.ownerReferences])).toEqual([
      [rs?.metadata.name, rs?.metadata.uid, undefined],
    ]);
    const bad = await kubectl.run(['delete', 'configmap', 'c', '-n', NS, '--cascade=sideways']);
    expect([bad.code, bad.stdout, bad.stderr]).toEqual([
      1,
      '',
      'error: invalid cascade value (sideways). Must be "background", "foreground", or "orphan"\n',
    ]);
    same('orphan', r.stdout + bad.stderr);
  });
});
