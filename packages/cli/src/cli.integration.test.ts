import { execFileSync, spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { KubeObject } from '@rxkube/kube';
import { KubeClient, loadKubeConfigFile } from '@rxkube/kube';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

import { main } from './main.js';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = join(here, '..');
const root = join(pkg, '..', '..');
const bin = join(pkg, 'bin', 'rxkube.js');
const hello = join(pkg, 'dist', 'fixtures', 'hello-operator.js');
const sample = join(pkg, 'fixtures', 'sample.yaml');
const gadgets = join(pkg, 'dist', 'fixtures', 'gadget-operator.js');
const greeter = join(pkg, 'dist', 'fixtures', 'greeter-operator.js');
const gizmo = join(pkg, 'dist', 'fixtures', 'webhook-operator.js');

/** Runs main() in-process, capturing its output. */
async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

/** A child process running the real `rxkube` bin; resolves lines as they come. */
class Child {
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<number | null>;
  private readonly proc: ChildProcessWithoutNullStreams;
  private waiters: { test: (l: string) => boolean; resolve: (l: string) => void }[] = [];

  constructor(args: string[], env: Record<string, string> = {}) {
    this.proc = spawn(process.execPath, [bin, ...args], {
      cwd: root,
      env: { ...process.env, RXKUBE_LOG_LEVEL: 'info', ...env },
    });
    const feed = (into: string[]) => {
      let rest = '';
      return (chunk: Buffer) => {
        const lines = (rest + chunk.toString()).split('\n');
        rest = lines.pop() ?? '';
        for (const l of lines) {
          into.push(l);
          this.waiters = this.waiters.filter((w) => !(w.test(l) && (w.resolve(l), true)));
        }
      };
    };
    this.proc.stdout.on('data', feed(this.stdout));
    this.proc.stderr.on('data', feed(this.stderr));
    this.exited = new Promise((resolve) => this.proc.once('exit', (code) => resolve(code)));
  }

  /** The first line (stdout or stderr, past or future) matching `re`. */
  line(re: RegExp): Promise<string> {
    const seen = [...this.stdout, ...this.stderr].find((l) => re.test(l));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      this.waiters.push({ test: (l) => re.test(l), resolve });
      void this.exited.then(() =>
        reject(
          new Error(`exited before a line matching ${re}:\n${[...this.stdout, ...this.stderr].join('\n')}`),
        ),
      );
    });
  }

  kill(signal: NodeJS.Signals): void {
    this.proc.kill(signal);
  }
}

/**
 * Bound of a test that runs `rxkube` in child processes (each loads Node and the workspace): a
 * failure bound for a loaded machine, not a wait.
 */
const CHILD_TIMEOUT_MS = 60_000;

/** The bin runs the built JavaScript: make sure dist is current (a no-op after `tsc -b`). */
function build(): void {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-b', pkg], {
    cwd: root,
  });
}

/** The suite of the embedded server the CLI starts itself (`--embedded`), and of what needs no server. */
describe('rxkube CLI', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'rxkube-cli-'));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  beforeAll(build, 120_000);

  it(
    'run --embedded -f applies the manifests, reconciles, and exits 0 after a graceful SIGTERM',
    async () => {
      const child = new Child([
        'run',
        hello,
        '--embedded',
        '-f',
        sample,
        '--health-port',
        '0',
        '--metrics-port',
        'off',
      ]);
      await child.line(/Namespace hello applied/);
      // Namespaces and CRDs before the module's setup, the rest after it (before the manager starts).
      await child.line(/ConfigMap hello\/greet-me applied/);
      await child.line(
        /"msg":"reconcile success".*"key":"hello\/greet-me"|"key":"hello\/greet-me".*"msg":"reconcile success"/,
      );
      const started = JSON.parse(await child.line(/"msg":"manager started"/)) as Record<string, unknown>;
      expect(started).toMatchObject({ name: 'hello', controllers: ['greeter'], leaderElection: false });
      child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
      expect(
        child.stdout.some((l) => l.includes('"msg":"manager stopped"') && l.includes('"drained":true')),
      ).toBe(true);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'applies a custom resource given with -f after the setup of the module installed its CRD',
    async () => {
      const child = new Child([
        'run',
        gadgets,
        '--embedded',
        '-f',
        join(pkg, 'fixtures', 'gadget.yaml'),
        '--health-port',
        '0',
        '--metrics-port',
        'off',
      ]);
      await child.line(/Gadget default\/g1 applied/);
      await child.line(/"key":"default\/g1"/);
      child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    "run passes the module's options to its setup: a flag wins over its environment variable",
    async () => {
      const child = new Child(
        [
          'run',
          greeter,
          '--embedded',
          '-f',
          sample,
          '--greeting',
          'from-flag',
          '--health-port',
          '0',
          '--metrics-port',
          'off',
        ],
        { GREETER_GREETING: 'from-env' },
      );
      const kubeconfig = /kubectl --kubeconfig (\S+)/.exec(await child.line(/kubectl --kubeconfig/))?.[1];
      const logged = JSON.parse(await child.line(/"msg":"greeter options"/)) as { options: unknown };
      expect(logged.options).toEqual({ greeting: 'from-flag' });
      await child.line(
        /"msg":"reconcile success".*"key":"hello\/greet-me"|"key":"hello\/greet-me".*"msg":"reconcile success"/,
      );
      const client = KubeClient.fromKubeConfig(loadKubeConfigFile(kubeconfig ?? ''));
      try {
        const cm = await client.get<KubeObject>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'hello',
          name: 'greet-me',
        });
        expect(cm.metadata.annotations?.['hello.rxkube.io/greeting']).toBe('from-flag');
      } finally {
        client.close();
      }
      child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'run --record writes a recording; replay prints per key the reconciles and writes, the same twice',
    async () => {
      const file = join(tmp, 'hello.ndjson');
      const child = new Child([
        'run',
        hello,
        '--embedded',
        '-f',
        sample,
        '--record',
        file,
        '--health-port',
        '0',
        '--metrics-port',
        'off',
      ]);
      await child.line(
        /"msg":"reconcile success".*"key":"hello\/greet-me"|"key":"hello\/greet-me".*"msg":"reconcile success"/,
      );
      child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
      const first = await cli(['replay', file, hello]);
      expect(first.err).toBe('');
      expect(first.code).toBe(0);
      expect(first.out).toContain('greeter hello/greet-me');
      expect(first.out).toMatch(/reconcile \(object updated \(ConfigMap hello\/greet-me\)\) → success/);
      expect(first.out).toContain('patch ConfigMap hello/greet-me (merge)');
      expect(first.out).toContain('writes: the same as recorded');
      const second = await cli(['replay', file, hello]);
      expect(second.out).toBe(first.out);
      // A recording that is not one: exit 2, naming the file and what it expected.
      const bogus = join(tmp, 'bogus.ndjson');
      writeFileSync(bogus, '{"type":"event","t":0}\n');
      const bad = await cli(['replay', bogus, hello]);
      expect(bad.code).toBe(2);
      expect(bad.err).toMatch(/cannot replay .*bogus\.ndjson: .*must be the header/);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'run --dry-run changes nothing and logs what each write would change',
    async () => {
      const child = new Child([
        'run',
        hello,
        '--embedded',
        '-f',
        sample,
        '--dry-run',
        '--health-port',
        '0',
        '--metrics-port',
        'off',
      ]);
      const line = JSON.parse(
        await child.line(/"msg":"dry run: would patch ConfigMap hello\/greet-me/),
      ) as Record<string, unknown>;
      expect(line).toMatchObject({
        dryRun: true,
        verb: 'patch',
        // the ConfigMap had no annotations: the whole map is what would change
        changes: { '.metadata.annotations': { 'hello.rxkube.io/greeted': 'yes' } },
      });
      const kubeconfig = /kubectl --kubeconfig (\S+)/.exec(await child.line(/kubectl --kubeconfig/))?.[1];
      const client = KubeClient.fromKubeConfig(loadKubeConfigFile(kubeconfig ?? ''));
      try {
        const cm = await client.get<KubeObject>({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          namespace: 'hello',
          name: 'greet-me',
        });
        expect(cm.metadata.annotations?.['hello.rxkube.io/greeted']).toBeUndefined();
      } finally {
        client.close();
      }
      child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    '--watch restarts the operator when a file next to the module changes, keeping the embedded server',
    async () => {
      const child = new Child([
        'run',
        hello,
        '--embedded',
        '-f',
        sample,
        '--watch',
        '--health-port',
        '0',
        '--metrics-port',
        'off',
      ]);
      await child.line(/"msg":"manager started"/);
      writeFileSync(join(dirname(hello), 'watch-marker.txt'), String(process.hrtime.bigint()));
      await child.line(/restarting the operator \(files changed\)/);
      // The restarted operator finds the ConfigMap already greeted on the same server.
      await child.line(/"msg":"manager stopped"/);
      const starts = () => child.stdout.filter((l) => l.includes('"msg":"manager started"')).length;
      while (starts() < 2)
        await child.line(/"msg":"manager started"/).then(() => new Promise((r) => setImmediate(r)));
      expect(child.stderr.filter((l) => l.includes('embedded API server at'))).toHaveLength(1);
      child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
    },
    CHILD_TIMEOUT_MS,
  );

  it('says clearly when there is no kubeconfig', async () => {
    const r = await cli(['run', hello], { KUBECONFIG: join(tmp, 'missing'), HOME: tmp });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/no kubeconfig found: none of KUBECONFIG=.*missing exists.*--embedded/);
  });

  it('says clearly when the API server cannot be reached', async () => {
    const kubeconfig = join(tmp, 'unreachable');
    writeFileSync(
      kubeconfig,
      `apiVersion: v1
kind: Config
clusters: [{ name: c, cluster: { server: 'http://127.0.0.1:1' } }]
users: [{ name: u, user: { token: t } }]
contexts: [{ name: x, context: { cluster: c, user: u } }]
current-context: x
`,
    );
    const r = await cli(['run', hello, '--kubeconfig', kubeconfig]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/cannot reach the API server at http:\/\/127\.0\.0\.1:1 \(context x\)/);
  });

  it('says clearly when the module exports nothing runnable, or does not exist', async () => {
    const mod = join(tmp, 'nothing.mjs');
    writeFileSync(mod, 'export const answer = 42;\n');
    let r = await cli(['run', mod, '--embedded']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/exports nothing runnable \(it exports: answer\)\. Export `setup\(mgr: Manager\)`/);
    const empty = join(tmp, 'empty.mjs');
    writeFileSync(empty, 'export function setup() {}\n');
    r = await cli(['run', empty, '--embedded']);
    expect(r.err).toMatch(/registered no controller/);
    r = await cli(['run', join(tmp, 'absent.js')]);
    expect(r.err).toMatch(/absent\.js does not exist/);
  });

  it('refuses bad usage and bad manager flags with exit 2', async () => {
    expect((await cli(['frobnicate', hello])).err).toMatch(/expected `run <module.js>`/);
    expect((await cli(['run', hello, '--embedded', '--concurrency', 'lots'])).err).toMatch(
      /invalid --concurrency="lots": expected an integer >= 1/,
    );
    const bad = join(tmp, 'bad.yaml');
    writeFileSync(bad, 'kind: ConfigMap\n');
    expect((await cli(['run', hello, '--embedded', '-f', bad])).err).toMatch(
      /bad\.yaml#1 is not a Kubernetes object/,
    );
  });

  it('rbac prints least-privilege RBAC from what the controllers watch and write', async () => {
    const r = await cli(['rbac', hello, '--operator-namespace', 'ops', '--leader-elect']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('kind: ClusterRole');
    // a watch lists and watches (never a get); the finalizer patches
    expect(r.out).toMatch(/resources:\s+- configmaps\s+verbs:\s+- list\s+- watch\s+- patch\n/);
    expect(r.out).toMatch(/kind: Role\s+metadata:\s+name: hello-leader-election\s+namespace: ops/);
    expect(r.out).not.toContain('secrets');
  });

  it("passes a module's options to its setup from flags, else the environment, else defaults (rbac shows what setup registered)", async () => {
    const patches = /resources:\s+- configmaps\s+verbs:\s+- list\s+- watch\s+- patch\n/;
    let r = await cli(['rbac', greeter]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(patches);
    r = await cli(['rbac', greeter, '--read-only']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('- configmaps');
    expect(r.out).not.toMatch(patches);
    r = await cli(['rbac', greeter], { GREETER_READ_ONLY: 'true' });
    expect(r.out).not.toMatch(patches);
    r = await cli(['rbac', greeter], { GREETER_READ_ONLY: 'no' });
    expect(r.out).toMatch(patches);
  });

  it("refuses a module option of the wrong type or an unknown one with exit 2; --help lists the module's options", async () => {
    let r = await cli(['rbac', greeter, '--requeue-seconds', 'soon']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/invalid --requeue-seconds="soon": expected a number/);
    r = await cli(['rbac', greeter], { GREETER_READ_ONLY: 'perhaps' });
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/invalid GREETER_READ_ONLY="perhaps": expected true or false/);
    r = await cli(['run', greeter, '--greetings', 'x']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/Unknown option '--greetings'/);
    r = await cli(['run', greeter, '--help']);
    expect(r.code).toBe(0);
    expect(r.out).toContain('options of this module (passed to its setup):');
    expect(r.out).toMatch(
      /--greeting VALUE\s+the annotation value written on each ConfigMap \(env GREETER_GREETING, default "hello"\)/,
    );
    expect(r.out).toMatch(/--read-only\s+never patch/);
    expect(r.out).toMatch(/--requeue-seconds N\s+check each ConfigMap again/);
  });

  it('refuses a module whose options are malformed or reuse a flag of rxkube, naming the option', async () => {
    const snake = join(tmp, 'snake.mjs');
    writeFileSync(
      snake,
      "export const options = { install_crd: { type: 'boolean', description: 'x' } };\nexport function setup() {}\n",
    );
    let r = await cli(['run', snake, '--embedded']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/its `options` export names "install_crd": option names are kebab-case/);
    const clash = join(tmp, 'clash.mjs');
    writeFileSync(
      clash,
      "export const options = { namespace: { type: 'string', description: 'x' } };\nexport function setup() {}\n",
    );
    r = await cli(['rbac', clash]);
    expect(r.err).toMatch(/names "namespace", a flag of rxkube itself/);
    const untyped = join(tmp, 'untyped.mjs');
    writeFileSync(
      untyped,
      "export const options = { level: { type: 'int', description: 'x' } };\nexport function setup() {}\n",
    );
    r = await cli(['rbac', untyped]);
    expect(r.err).toMatch(/"level" has type "int": expected "string", "number" or "boolean"/);
  });

  it('rbac resolves the built-in kinds an operator owns (CronJob, Job, PVC, StatefulSet, Ingress) on the embedded server', async () => {
    const r = await cli(['rbac', join(pkg, 'dist', 'fixtures', 'backup-operator.js')]);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    for (const [group, resource] of [
      ['""', 'persistentvolumeclaims'] as const,
      ['apps', 'statefulsets'],
      ['batch', 'cronjobs'],
      ['batch', 'jobs'],
      ['networking.k8s.io', 'ingresses'] as const,
    ])
      expect(r.out).toMatch(
        new RegExp(
          `- apiGroups:\\s+- ${group.replace(/\./g, '\\.')}\\s+resources:\\s+- ${resource}\\s+verbs:`,
        ),
      );
  });

  it('rbac names a kind nobody serves and what to do, instead of blaming a missing CRD', async () => {
    const r = await cli(['rbac', join(pkg, 'dist', 'fixtures', 'snapshot-operator.js')]);
    expect(r.code).toBe(2);
    expect(r.err).toContain(
      'VolumeSnapshot (snapshot.storage.k8s.io/v1) is not served by the embedded API server rxkube rbac reads discovery from',
    );
    expect(r.err).toContain('Install its CRD in setup (mgr.ensureCrd), or run `rxkube rbac');
  });

  it('rbac grants get and patch on the CRD the module installs with mgr.ensureCrd, by name only', async () => {
    const r = await cli(['rbac', gadgets]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(
      /- apiGroups:\s+- apiextensions\.k8s\.io\s+resources:\s+- customresourcedefinitions\s+resourceNames:\s+- gadgets\.fixtures\.rxkube\.io\s+verbs:\s+- get\s+- patch\n/,
    );
    expect(r.out).toMatch(/resources:\s+- gadgets\s+verbs:\s+- list\s+- watch\n/);
  });

  it('rbac prints the webhook Service, configurations and CRD conversion stanza the module registered', async () => {
    const r = await cli(['rbac', gizmo, '--operator-namespace', 'ops', '--webhook-match-conditions']);
    expect(r.code, r.err).toBe(0);
    const docs = parseAllDocuments(r.out).map((d) => d.toJS() as KubeObject & Record<string, unknown>);
    const kinds = docs.map((d) => `${d.kind}/${d.metadata.name ?? ''}`);
    expect(kinds).toEqual(
      expect.arrayContaining([
        'Service/gizmo-webhook',
        'ValidatingWebhookConfiguration/gizmo',
        'CustomResourceDefinition/gadgets.fixtures.rxkube.io',
      ]),
    );
    // nothing mutates, certificates are files: no MutatingWebhookConfiguration, no Secret grants
    expect(kinds.some((k) => k.startsWith('MutatingWebhookConfiguration/'))).toBe(false);
    expect(kinds).not.toContain('Role/gizmo-webhook-certificates');
    const validating = docs.find((d) => d.kind === 'ValidatingWebhookConfiguration');
    expect(validating?.metadata.annotations).toEqual({
      'cert-manager.io/inject-ca-from': 'ops/gizmo-webhook',
    });
    expect(validating?.['webhooks']).toMatchObject([
      {
        clientConfig: {
          service: {
            namespace: 'ops',
            name: 'gizmo-webhook',
            path: '/validate-fixtures-rxkube-io-v1-gadget',
            port: 443,
          },
        },
        rules: [{ apiGroups: ['fixtures.rxkube.io'], apiVersions: ['v1'], resources: ['gadgets'] }],
        matchConditions: [{ name: 'not-kube-system-service-accounts' }, { name: 'not-nodes' }],
      },
    ]);
    // the CRD's conversion stanza, as a partial CRD for a server-side apply
    expect(docs.find((d) => d.kind === 'CustomResourceDefinition')).toEqual({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'gadgets.fixtures.rxkube.io' },
      spec: {
        conversion: {
          strategy: 'Webhook',
          webhook: {
            conversionReviewVersions: ['v1'],
            clientConfig: {
              service: { namespace: 'ops', name: 'gizmo-webhook', path: '/convert', port: 443 },
            },
          },
        },
      },
    });
  });

  it('rbac for a namespace-restricted operator: Roles per namespace, cluster-scoped grants in a ClusterRole', async () => {
    const r = await cli(['rbac', gadgets, '-n', 'team-a,team-b']);
    expect(r.code).toBe(0);
    const docs = r.out.split('---\n');
    const kindName = docs.map((d) =>
      /kind: (\w+)\nmetadata:\n {2}name: ([\w-]+)(?:\n {2}namespace: ([\w-]+))?/
        .exec(d)
        ?.slice(1, 4)
        .join(' ')
        .trim(),
    );
    expect(kindName).toEqual([
      'ServiceAccount gadgets default',
      'ClusterRole gadgets-cluster',
      'ClusterRoleBinding gadgets-cluster',
      'Role gadgets team-a',
      'RoleBinding gadgets team-a',
      'Role gadgets team-b',
      'RoleBinding gadgets team-b',
    ]);
    expect(docs[1]).toContain('customresourcedefinitions'); // a Role cannot grant a cluster-scoped kind
    expect(docs[3]).not.toContain('customresourcedefinitions');
    expect(docs[3]).toMatch(/resources:\s+- gadgets\s+verbs:\s+- list\s+- watch\n/);
  });
});

/**
 * What `rxkube` does against a cluster named by a kubeconfig — the embedded server's and a real
 * kube-apiserver's alike (a real cluster is just a kubeconfig: there is no `--real` flag).
 */
describeEachBackend('rxkube CLI against a cluster (--kubeconfig)', (b) => {
  beforeAll(build, 120_000);

  it(
    'run applies -f, reconciles, and exits 0 after a graceful SIGINT with drained: true',
    async () => {
      const child = new Child([
        'run',
        hello,
        '--kubeconfig',
        b.cluster.kubeconfigPath,
        '-f',
        sample,
        '--health-port',
        '0',
        '--metrics-port',
        'off',
        '-n',
        'hello',
      ]);
      expect(await child.line(/rxkube: API server /)).toBe(`rxkube: API server ${b.cluster.url}`);
      await child.line(
        /"msg":"reconcile success".*"key":"hello\/greet-me"|"key":"hello\/greet-me".*"msg":"reconcile success"/,
      );
      child.kill('SIGINT');
      expect(await child.exited).toBe(0);
      expect(
        child.stdout.some((l) => l.includes('"msg":"manager stopped"') && l.includes('"drained":true')),
      ).toBe(true);
      const cm = await b.cluster.get('configmaps', 'hello', 'greet-me');
      expect(cm?.metadata.annotations?.['hello.rxkube.io/greeted']).toBe('yes');
    },
    CHILD_TIMEOUT_MS,
  );

  it(
    'applies a custom resource given with -f after the setup of the module installed its CRD',
    async () => {
      const child = new Child([
        'run',
        gadgets,
        '--kubeconfig',
        b.cluster.kubeconfigPath,
        '-f',
        join(pkg, 'fixtures', 'gadget.yaml'),
        '--health-port',
        '0',
        '--metrics-port',
        'off',
      ]);
      await child.line(/Gadget default\/g1 applied/);
      await child.line(
        /"msg":"reconcile success".*"key":"default\/g1"|"key":"default\/g1".*"msg":"reconcile success"/,
      );
      child.kill('SIGTERM');
      expect(await child.exited).toBe(0);
      expect(await b.cluster.get('gadgets.fixtures.rxkube.io', 'default', 'g1')).toMatchObject({
        spec: { size: 3 },
      });
    },
    CHILD_TIMEOUT_MS,
  );

  it('rbac resolves what the module watches through that cluster’s discovery', async () => {
    const r = await cli(['rbac', gadgets, '--kubeconfig', b.cluster.kubeconfigPath]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(
      /- apiGroups:\s+- apiextensions\.k8s\.io\s+resources:\s+- customresourcedefinitions\s+resourceNames:\s+- gadgets\.fixtures\.rxkube\.io\s+verbs:\s+- get\s+- patch\n/,
    );
    expect(r.out).toMatch(/resources:\s+- gadgets\s+verbs:\s+- list\s+- watch\n/);
  });
});
