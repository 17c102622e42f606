/**
 * The demo behind `npm run demo`: every example operator in one process, on one Manager, against
 * the API server the client points at (the embedded one by default). It installs the CRDs (each
 * operator's `setup`), applies the samples, plays a scenario (a spec change, a scale, an image
 * change, a new namespace, a deletion), prints a live log of what the operators do, and finally a
 * summary table per operator. It reports convergence: every sample reached the state its operator
 * promises, or a list of what did not.
 *
 * @module
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { applyManifests, readManifests } from '@rxkube/cli';
import type { KubeClient, ControllerResult } from '@rxkube/kube';
import type { RecordOptions } from '@rxkube/kube/record';
import { Manager } from '@rxkube/kube';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';

import * as copyrator from '../../copyrator/src/operator.js';
import * as notifier from '../../deployment-notifier/src/operator.js';
import * as echoServer from '../../echo-server/src/operator.js';
import * as namespaceWatcher from '../../namespace-watcher/src/operator.js';
import * as widget from '../../widget/src/operator.js';
import { exampleFile } from '../paths.js';
import { table } from './table.js';

/** Options of {@link runDemo}. */
export interface DemoOptions {
  /** Where lines go (the live log, then the tables). */
  readonly out: (line: string) => void;
  /** Give up waiting for convergence after this long, ms. Default 60 s. */
  readonly timeoutMs?: number;
  /** Manager logger (default: warnings and errors only, so the live log stays readable). */
  readonly log?: Logger;
  /** Flight recorder of the demo's Manager (`@rxkube/kube/record`): a recording of the scenario. */
  readonly record?: RecordOptions;
  /** Called once everything converged (or not), before the manager stops; `--keep-running` waits here. */
  readonly beforeStop?: (mgr: Manager) => Promise<void>;
}

/** What the demo found. */
export interface DemoOutcome {
  readonly converged: boolean;
  /** What did not converge, one line each. */
  readonly problems: readonly string[];
  /** Results per controller. */
  readonly reconciles: Readonly<Record<string, number>>;
  /** Webhook POSTs the deployment notifier made to the demo's receiver. */
  readonly webhookPosts: number;
}

const SAMPLES = ['namespace-watcher', 'widget', 'echo-server', 'copyrator', 'deployment-notifier'] as const;
const fileOf = (example: string, file: string): string => fileURLToPath(exampleFile(example, file));

/** A local webhook receiver for the notifier's HTTP target. */
async function webhookReceiver(): Promise<{ url: string; posts: unknown[]; close: () => Promise<void> }> {
  const posts: unknown[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      try {
        posts.push(JSON.parse(body));
      } catch {
        posts.push(body);
      }
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks/deployments`,
    posts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Runs the demo against `client`'s API server; resolves when every operator converged or the
 * timeout passed, after printing the summary.
 *
 * ## Example
 * ```ts
 * const server = await startApiServer({ simulateDeployments: true });
 * const outcome = await runDemo(KubeClient.fromKubeConfig(server.kubeConfig), { out: console.log });
 * process.exitCode = outcome.converged ? 0 : 1;
 * ```
 */
export async function runDemo(client: KubeClient, options: DemoOptions): Promise<DemoOutcome> {
  const out = options.out;
  const started = Date.now();
  const stamp = (): string => `${String(Date.now() - started).padStart(6)} ms`;
  const say = (line: string): void => out(`${stamp()}  ${line}`);
  const step = (line: string): void => out(`${stamp()}  ── ${line}`);
  const hook = await webhookReceiver();
  const mgr = new Manager({
    client,
    name: 'rxkube-demo',
    concurrency: 2,
    ...(options.record !== undefined ? { record: options.record } : {}),
    ...(options.log !== undefined ? { log: options.log } : { logLevel: 'warn' }),
  });
  const reconciles: Record<string, number> = {};
  mgr.results$.subscribe((r: ControllerResult) => {
    reconciles[r.controller] = (reconciles[r.controller] ?? 0) + 1;
    if (r.outcome === 'success' && r.action?.type !== 'requeue') return; // quiet: the operators say what they did
    const detail = r.outcome === 'error' || r.outcome === 'terminal' ? ` — ${r.error?.message ?? ''}` : '';
    say(`${r.controller.padEnd(20)} ${r.key.padEnd(32)} ${r.outcome}${detail}`);
  });

  step('installing CRDs and registering 5 operators on one Manager');
  await namespaceWatcher.setup(mgr, {
    log: (line) => say(`${'namespace-watcher'.padEnd(20)} ${line}`),
  });
  await widget.setup(mgr, {
    onActivity: (a) => say(`${'widget'.padEnd(20)} ${describeActivity(a)}`),
  });
  await echoServer.setup(mgr);
  await copyrator.setup(mgr);
  await notifier.setup(mgr, {
    // The notifier's console line starts with its own name; the log column already says it.
    print: (line) => say(`${'deployment-notifier'.padEnd(20)} ${line.replace(/^deployment-notifier /, '')}`),
  });
  await mgr.start();

  step(
    'applying the samples (namespaces, widgets, an echo server, copy rules, a deployment and its notifiers)',
  );
  // Sources for the copy rules, then every example's sample.yaml.
  await applyManifests(client, readManifests([fileOf('src/demo', 'platform.yaml')]), 'rxkube-demo');
  for (const example of SAMPLES) {
    await applyManifests(client, readManifests([fileOf(example, 'sample.yaml')]), 'rxkube-demo');
  }
  await client.apply(
    {
      apiVersion: 'notify.rxkube.io/v1',
      kind: 'DeploymentNotifier',
      metadata: { name: 'web-webhook', namespace: 'default' },
      spec: { deploymentName: 'web', target: { webhook: { url: hook.url, maxAttempts: 5 } } },
    },
    { fieldManager: 'rxkube-demo', force: true },
  );

  const deadline = started + (options.timeoutMs ?? 60_000);
  const converge = async (what: string, check: () => Promise<string[]>): Promise<string[]> => {
    let problems = await check();
    while (problems.length > 0 && Date.now() < deadline) {
      // Re-check after the next reconcile result, or after 100 ms when none comes.
      await new Promise<void>((resolve) => {
        const sub = mgr.results$.subscribe(() => done());
        const timer = setTimeout(() => done(), 100);
        function done(): void {
          sub.unsubscribe();
          clearTimeout(timer);
          resolve();
        }
      });
      problems = await check();
    }
    if (problems.length === 0) step(`converged: ${what}`);
    return problems;
  };

  let problems = await converge('the samples', () => checkAll(client, hook.posts.length, 0));

  if (problems.length === 0) {
    step(
      'scenario: resize widget "large", scale echo server "hello" to 3, roll deployment "web" to nginx:1.27,',
    );
    step('          create namespace "team-c", delete widget "small"');
    await client.patch(
      { apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'large' },
      { type: 'merge', body: { spec: { size: 20 } } },
    );
    await client.patch(
      { apiVersion: 'example.com/v1', kind: 'EchoServer', namespace: 'default', name: 'hello' },
      { type: 'merge', body: { spec: { replicas: 3, message: 'hello again' } } },
    );
    await client.patch(
      { apiVersion: 'apps/v1', kind: 'Deployment', namespace: 'default', name: 'web' },
      {
        type: 'strategic',
        body: { spec: { template: { spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] } } } },
      },
    );
    await client.create({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'team-c', labels: { team: 'c' } },
    });
    await client.delete({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      namespace: 'default',
      name: 'small',
    });
    problems = await converge('the scenario', () => checkAll(client, hook.posts.length, 1, ['small']));
  }

  out('');
  for (const line of await summaryTables(client, reconciles, hook.posts.length)) out(line);
  out('');
  if (problems.length === 0) {
    out(`converged: every sample reached the state its operator promises (${Date.now() - started} ms)`);
  } else {
    out(`NOT converged after ${Date.now() - started} ms:`);
    for (const p of problems) out(`  - ${p}`);
  }
  await options.beforeStop?.(mgr);
  await mgr.stop();
  await hook.close();
  return { converged: problems.length === 0, problems, reconciles, webhookPosts: hook.posts.length };
}

function describeActivity(a: widget.WidgetActivity): string {
  const fields = Object.entries(a as unknown as Record<string, unknown>)
    .filter(([k]) => k !== 'type')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  return `${(a as { type: string }).type} ${fields}`;
}

/**
 * What is not yet as promised, one line each (empty when everything converged).
 * `imageChanges`: image changes made to Deployment web so far (each gives one webhook POST).
 */
async function checkAll(
  client: KubeClient,
  posts: number,
  imageChanges: number,
  deletedWidgets: readonly string[] = [],
): Promise<string[]> {
  const problems: string[] = [];
  for (const r of await namespaceWatcher.summarise(client)) {
    if (!r.converged) problems.push(`namespace-watcher: namespace ${r.namespace} welcome is ${r.welcome}`);
  }
  const widgets = await widget.summarise(client, 'default');
  for (const r of widgets) {
    if (deletedWidgets.includes(r.name))
      problems.push(`widget: ${r.name} still exists (finalizer ${String(r.finalizer)})`);
    else if (!r.converged)
      problems.push(
        `widget: ${r.name} not converged (generation ${r.generation ?? '-'}, observed ${r.observedGeneration ?? '-'})`,
      );
  }
  if (widgets.length === 0) problems.push('widget: no Widgets found');
  const echoes = await echoServer.echoServerRows(client, 'default');
  for (const r of echoes) {
    if (r.ready !== 'True' || r.readyReplicas !== r.replicas) {
      problems.push(`echo-server: ${r.name} ready=${r.ready} ${r.readyReplicas}/${r.replicas}`);
    }
  }
  if (echoes.length === 0) problems.push('echo-server: no EchoServers found');
  for (const r of await copyrator.summarize(client)) {
    if (r.ready !== 'True') problems.push(`copyrator: rule ${r.rule} ready=${r.ready} (${r.reason})`);
  }
  const namespaces = await client.list<{ metadata: { name?: string }; status?: { phase?: string } }>({
    apiVersion: 'v1',
    kind: 'Namespace',
  });
  const active = namespaces.items
    .filter((n) => n.status?.phase !== 'Terminating')
    .map((n) => n.metadata.name ?? '');
  const registry = (await copyrator.summarize(client)).find((r) => r.rule === 'registry-credentials');
  for (const ns of active.filter((n) => n !== 'platform')) {
    if (registry !== undefined && !registry.namespaces.includes(ns)) {
      problems.push(`copyrator: no registry-credentials copy in namespace ${ns}`);
    }
  }
  for (const r of await notifier.summarise(client, 'default')) {
    if (!r.upToDate)
      problems.push(
        `deployment-notifier: ${r.notifier} ${r.container} notified ${r.notified}, now ${r.current}`,
      );
  }
  if (posts < imageChanges)
    problems.push(`deployment-notifier: ${posts} webhook POSTs, expected ${imageChanges}`);
  return problems;
}

async function summaryTables(
  client: KubeClient,
  reconciles: Readonly<Record<string, number>>,
  posts: number,
): Promise<string[]> {
  const lines: string[] = [];
  const section = (title: string, rows: readonly (readonly string[])[]): void => {
    lines.push(`${title}`, ...table(rows).map((l) => `  ${l}`), '');
  };
  section(
    'namespace-watcher — a welcome ConfigMap in every Active namespace (opt out with rxkube.io/welcome=false)',
    [
      ['namespace', 'phase', 'welcome', 'summary'],
      ...(await namespaceWatcher.summarise(client)).map((r) => [r.namespace, r.phase, r.welcome, r.summary]),
    ],
  );
  section('widget — finalizer, inventory ConfigMap, status.observedGeneration', [
    ['widget', 'size', 'color', 'generation', 'observed', 'ready', 'finalizer', 'inventory'],
    ...(await widget.summarise(client, 'default')).map((r) => [
      r.name,
      String(r.size),
      r.color,
      String(r.generation ?? '-'),
      String(r.observedGeneration ?? '-'),
      r.ready,
      r.finalizer ? 'yes' : 'no',
      r.inventory,
    ]),
  ]);
  section('echo-server — Deployment + Service applied, status derived from the children', [
    ['echoserver', 'message', 'ready', 'replicas', 'children', 'url'],
    ...(await echoServer.echoServerRows(client, 'default')).map((r) => [
      r.name,
      r.message,
      r.ready,
      `${r.readyReplicas}/${r.replicas}`,
      r.children,
      r.url,
    ]),
  ]);
  section('copyrator — copies of labelled ConfigMaps/Secrets (Secret values are never logged)', [
    ['rule', 'type', 'source', 'copies', 'ready', 'namespaces'],
    ...(await copyrator.summarize(client)).map((r) => [
      r.rule,
      r.type,
      r.source,
      String(r.copies),
      r.ready,
      r.namespaces.join(','),
    ]),
  ]);
  section(`deployment-notifier — one notification per image change (webhook POSTs received: ${posts})`, [
    ['notifier', 'container', 'notified', 'current', 'up to date', 'delivered'],
    ...(await notifier.summarise(client, 'default')).map((r) => [
      r.notifier,
      r.container,
      r.notified,
      r.current,
      r.upToDate ? 'yes' : 'no',
      r.delivered,
    ]),
  ]);
  section('reconciles per controller', [
    ['controller', 'results'],
    ...Object.entries(reconciles)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([c, n]) => [c, String(n)]),
  ]);
  return lines;
}
