/**
 * `rxkube` — runs an operator module:
 *
 * ```
 * rxkube run <module.js> [--embedded [--port N]] [-f FILE]... [--watch] [--kubeconfig PATH]
 *                        [--name NAME] [manager flags: --namespace, --concurrency, --leader-elect, …]
 *                        [the module's own options, passed to its setup]
 *                        [--record FILE [--record-max-bytes N]] [--dry-run]
 * rxkube rbac <module.js> [--operator-namespace NS] [--name NAME]   (prints least-privilege RBAC YAML,
 *                                                                  and the module's webhook manifests)
 * rxkube replay <recording.ndjson> <module.js> [--step] [--after MS]   (what the module would do)
 * ```
 *
 * @module
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { ChildProcess } from 'node:child_process';
import { watch as watchFiles } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { KubeClient, ManagerOptions } from '@rxkube/kube';
import { ResourceNotFoundError, settingsFromEnv, withSettings } from '@rxkube/kube';
import { ManagerConfigError, managerRbac, rbacManifests, settingsFromFlags } from '@rxkube/kube/manager';
import type { Recording, ReplayStep } from '@rxkube/kube/record';
import { formatReplay, parseRecording, replay, setupClient } from '@rxkube/kube/record';
import { VirtualTimeScheduler } from 'rxjs';
import type { ApiServer } from '@rxkube/testing';
import { stringify } from 'yaml';

import { connect } from './connect.js';
import { CliError } from './errors.js';
import { CLI_FLAGS } from './flags.js';
import type { Runnable } from './load-module.js';
import { loadOperatorModule } from './load-module.js';
import { moduleFlags, moduleOptionsUsage, resolveModuleOptions } from './module-options.js';
import type { Manifest } from './manifests.js';
import { applyManifests, readManifests } from './manifests.js';
import { webhookDocuments } from './webhook-manifests.js';

/** `rxkube run`'s probe address: every interface, as controller-runtime's scaffold (the kubelet probes the Pod IP). */
const RUN_HEALTH_PROBE_BIND_ADDRESS = ':8081';
/** `rxkube run`'s metrics address: loopback only — safer than controller-runtime's `:8080`. */
const RUN_METRICS_BIND_ADDRESS = '127.0.0.1:8080';

const USAGE = `usage:
  rxkube run <module.js> [options]    run an operator module until SIGTERM/SIGINT
  rxkube rbac <module.js> [options]   print the RBAC (ServiceAccount, roles, bindings) it needs, and
                                      for its webhooks the Service, webhook configurations and CRD
                                      conversion stanzas (refused by the outage lint when unsafe)
  rxkube replay <recording> <module.js> [options]
                                      replay a recording (--record) through the module's
                                      controllers in virtual time: per key the reconciles, why,
                                      the writes they would make, and the diff with the recorded

connection:
  --embedded              start rxkube's in-memory API server (@rxkube/testing) and use it
  --port N                port of the embedded API server (default: a free one)
  -f, --filename PATH     apply this manifest, or a folder's, first (repeatable; Lists expanded;
                          CRDs wait until Established)
  --kubeconfig PATH       use this kubeconfig (default: KUBECONFIG, ~/.kube/config, in-cluster)
run:
  --watch                 restart the operator when files next to the module change
  --name NAME             operator name (default: the module's \`name\` export, else its file name)
  --record FILE           flight recorder: every watch event and write as NDJSON, Secret data
                          and credentials removed (64 MiB a file, FILE.1…FILE.3 kept)
  --record-max-bytes N    bytes a recording file may hold before it rotates
  --dry-run               send every write of the controllers with dryRun=All and log what it
                          would change: nothing in the cluster changes
replay:
  --step                  print each instant as it runs (waits for Enter on a terminal)
  --after MS              virtual time to run past the recording's end (default 1000)
manager (also from RXKUBE_* environment variables; flags win):
  -n, --namespace NS      namespaces to watch (repeatable or comma-separated; default all)
  --concurrency N         reconciles in flight per controller (default 1)
  --health-probe-bind-address ADDR   /healthz and /readyz: host:port, :port (every interface)
                          or 0 for none (default :8081 — the kubelet probes the Pod's IP;
                          alias --health-bind-address)
  --metrics-bind-address ADDR        /metrics: host:port, :port or 0 (default 127.0.0.1:8080,
                          this host only; :8080 lets Prometheus scrape the Pod)
  --health-port N|off     /healthz and /readyz on every interface at port N
  --metrics-port N|off    /metrics on every interface at port N
  --leader-elect          elect a leader with a Lease (--lease-name, --lease-namespace)
  --log-level LEVEL       fatal, error, warn, info, debug, trace, silent
  --shutdown-timeout T    how long SIGTERM waits for reconciles in flight (default 30s)
  --shard-ring RING       shard the controllers over the replicas naming this ring (Leases)
rbac:
  --operator-namespace NS namespace of the operator's ServiceAccount (default default)
  --webhook-match-conditions   add matchConditions to the webhook configurations
                          (Kubernetes 1.28+; 1.24 does not know the field)
module:
  the flags the module declares in its \`options\` export, passed to its setup(mgr, options)
  (\`rxkube run <module.js> --help\` lists them)
`;

/**
 * Where {@link main} writes its output and which environment it reads — the process's by
 * default; tests pass their own to capture lines. Exported as `CliIo`.
 *
 * ## Example
 * ```ts
 * const lines: string[] = [];
 * const code = await main(['--help'], { out: (l) => lines.push(l), err: (l) => lines.push(l), env: {} });
 * ```
 */
export interface Io {
  /** Writes one line of output (stdout). */
  readonly out: (line: string) => void;
  /** Writes one line of diagnostics (stderr). */
  readonly err: (line: string) => void;
  /** The environment variables `RXKUBE_*` and `KUBECONFIG` are read from. */
  readonly env: Readonly<Record<string, string | undefined>>;
}

const defaultIo: Io = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
  env: process.env,
};

/**
 * Runs the CLI with `args` (without `node` and the script); resolves with the exit code: 0 after a
 * graceful stop, 1 when the drain hit its deadline or the operator failed, 2 for a usage or
 * configuration error (printed as one line, no stack trace).
 *
 * ## Example
 * ```ts
 * process.exitCode = await main(['run', 'dist/operator.js', '--embedded', '-f', 'crd.yaml']);
 * ```
 */
export async function main(args: readonly string[], io: Io = defaultIo): Promise<number> {
  try {
    return await dispatch(args, io);
  } catch (error) {
    if (error instanceof CliError || error instanceof ManagerConfigError) {
      io.err(`rxkube: ${error.message}`);
      return 2;
    }
    // rxkube's typed errors (a port in use, an invalid CRD, a refused request) say what to do.
    if (error instanceof Error && typeof (error as { _tag?: unknown })._tag === 'string') {
      io.err(`rxkube: ${error.message}`);
      return 1;
    }
    io.err(
      `rxkube: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return 1;
  }
}

async function dispatch(args: readonly string[], io: Io): Promise<number> {
  // `rxkube run|rbac <module.js> …`: the module is loaded first, as its own flags are parsed too.
  const [first, second, third] = args;
  const modulePosition = first === 'replay' ? third : second;
  const runnable =
    (first === 'run' || first === 'rbac' || first === 'replay') &&
    modulePosition !== undefined &&
    !modulePosition.startsWith('-')
      ? await loadOperatorModule(modulePosition)
      : undefined;
  const moduleUsage = runnable === undefined ? '' : moduleOptionsUsage(runnable.options);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(args, runnable);
  } catch (error) {
    throw new CliError(
      'Usage',
      `${error instanceof Error ? error.message : String(error)}\n${USAGE}${moduleUsage}`,
    );
  }
  const { values, positionals } = parsed;
  if (values.help === true || positionals.length === 0) {
    io.out(`${USAGE}${moduleUsage}`);
    return positionals.length === 0 && values.help !== true ? 2 : 0;
  }
  if (positionals[0] === 'replay') return replayCommand(positionals, runnable, values, io);
  const [command, modulePath, ...extra] = positionals;
  if ((command !== 'run' && command !== 'rbac') || modulePath === undefined || extra.length > 0) {
    throw new CliError(
      'Usage',
      `expected \`run <module.js>\` or \`rbac <module.js>\`, got: ${positionals.join(' ')}\n${USAGE}`,
    );
  }
  if (values.embedded === true && values.kubeconfig !== undefined) {
    throw new CliError('Usage', '--embedded and --kubeconfig exclude each other');
  }
  if (command === 'run' && values.watch === true) return watchMode(args, modulePath, values, io);
  const loaded = runnable ?? (await loadOperatorModule(modulePath));
  return command === 'run' ? run(loaded, modulePath, values, io) : rbac(loaded, modulePath, values, io);
}

function parse(args: readonly string[], runnable?: Runnable) {
  // The module's flags are typed by its declaration, not here: parseArgs sees strings and booleans.
  const options = { ...moduleFlags(runnable?.options ?? {}), ...CLI_FLAGS };
  return parseArgs({ args: [...args], options, strict: true, allowPositionals: true });
}
type Values = ReturnType<typeof parse>['values'];

/**
 * Connects (embedded or kubeconfig) and applies the `-f` manifests the operator's start-up depends
 * on — Namespaces and CRDs — returning the rest, to apply once `setup` installed what it installs
 * (a sample of a CRD that `setup` itself installs can then be given with `-f` alone).
 */
async function connection(
  values: Values,
  io: Io,
): Promise<{
  client: KubeClient;
  server: ApiServer | undefined;
  close: () => Promise<void>;
  rest: Manifest[];
}> {
  let server: ApiServer | undefined;
  let client: KubeClient;
  if (values.embedded === true) {
    const { startApiServer } = await import('@rxkube/testing');
    const port = values.port === undefined ? 0 : Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65_535) {
      throw new CliError('Usage', `--port ${values.port} is not a port number`);
    }
    // Deployments report ready pods as on a real cluster (the embedded server has no kubelet).
    server = await startApiServer({ port, simulateDeployments: true });
    io.err(`rxkube: embedded API server at ${server.url}`);
    io.err(`rxkube: kubectl --kubeconfig ${server.kubeconfigPath} get all -A`);
    ({ client } = await connect({ kubeconfig: server.kubeconfigPath }));
  } else {
    const connected = await connect({ kubeconfig: values.kubeconfig, env: io.env });
    client = connected.client;
    io.err(`rxkube: API server ${connected.server}`);
  }
  const close = async (): Promise<void> => {
    client.close();
    await server?.stop();
  };
  let rest: Manifest[];
  try {
    const manifests = readManifests(values.filename ?? []);
    rest = manifests.filter((m) => !isFoundation(m));
    for (const line of await applyManifests(client, manifests.filter(isFoundation)))
      io.err(`rxkube: ${line}`);
  } catch (error) {
    await close();
    throw error;
  }
  return { client, server, close, rest };
}

const isFoundation = (m: Manifest): boolean =>
  m.object.kind === 'Namespace' || m.object.kind === 'CustomResourceDefinition';

function operatorName(values: Values, moduleName: string | undefined, modulePath: string): string {
  const raw = values.name ?? moduleName ?? basename(modulePath, extname(modulePath));
  return (
    raw
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/^[-.]+|[-.]+$/g, '') || 'operator'
  );
}

async function run(runnable: Runnable, modulePath: string, values: Values, io: Io): Promise<number> {
  // Checked before connecting: a bad value is a usage error, whatever the cluster.
  const moduleOptions = resolveModuleOptions(runnable.options, values, io.env);
  const { client, close, rest } = await connection(values, io);
  try {
    const options: ManagerOptions = withSettings(
      {
        client,
        name: operatorName(values, runnable.name, modulePath),
        // controller-runtime's probe default (the kubelet must reach it); metrics safer than its
        // ":8080": this host only, until --metrics-bind-address/--metrics-port opens them
        healthProbeBindAddress: RUN_HEALTH_PROBE_BIND_ADDRESS,
        metricsBindAddress: RUN_METRICS_BIND_ADDRESS,
        ...recordOptions(values, modulePath),
        ...(values['dry-run'] === true ? { dryRun: true } : {}),
      },
      settingsFromEnv(io.env),
      settingsFromFlags(values),
    );
    const mgr = await runnable.manager(options, moduleOptions);
    for (const line of await applyManifests(client, rest)) io.err(`rxkube: ${line}`);
    return await mgr.run();
  } finally {
    await close();
  }
}

/** `--record FILE [--record-max-bytes N]` as the Manager's `record` option. */
function recordOptions(values: Values, modulePath: string): Pick<ManagerOptions, 'record'> {
  if (values.record === undefined) {
    if (values['record-max-bytes'] !== undefined) {
      throw new CliError('Usage', '--record-max-bytes needs --record FILE');
    }
    return {};
  }
  const max = values['record-max-bytes'];
  const maxBytes = max === undefined ? undefined : Number(max);
  if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) || maxBytes < 1024)) {
    throw new CliError('Usage', `--record-max-bytes ${max} is not a byte count of at least 1024`);
  }
  return {
    record: { file: values.record, module: modulePath, ...(maxBytes !== undefined ? { maxBytes } : {}) },
  };
}

/**
 * `rxkube replay <recording> <module.js>`: the module's setup registers its controllers on a
 * Manager that never starts (its client answers discovery from the recording and refuses writes),
 * then the recording runs through them in virtual time; prints the report (`formatReplay`).
 */
async function replayCommand(
  positionals: readonly string[],
  runnable: Runnable | undefined,
  values: Values,
  io: Io,
): Promise<number> {
  const [, recordingPath, modulePath, ...extra] = positionals;
  if (recordingPath === undefined || modulePath === undefined || extra.length > 0 || runnable === undefined) {
    throw new CliError(
      'Usage',
      `expected \`replay <recording.ndjson> <module.js>\`, got: ${positionals.join(' ')}\n${USAGE}`,
    );
  }
  const moduleOptions = resolveModuleOptions(runnable.options, values, io.env);
  const afterMs = values.after === undefined ? undefined : Number(values.after);
  if (afterMs !== undefined && (!Number.isSafeInteger(afterMs) || afterMs < 0)) {
    throw new CliError('Usage', `--after ${values.after} is not a number of milliseconds`);
  }
  let recording: Recording;
  try {
    recording = parseRecording(readFileSync(recordingPath, 'utf8'));
  } catch (error) {
    throw new CliError(
      'BadRecording',
      `cannot replay ${recordingPath}: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const { header } = recording;
  const mgr = await runnable.manager(
    {
      client: setupClient(recording) as unknown as KubeClient,
      name: header.name,
      logLevel: 'silent',
      ...(header.namespaces !== undefined ? { namespaces: header.namespaces } : {}),
      // never flushed: the setup manager's own timers (a CRD install retry) never run
      scheduler: new VirtualTimeScheduler(),
    },
    moduleOptions,
  );
  let shown = { reconciles: 0, writes: 0 };
  const onStep = async (step: ReplayStep): Promise<void> => {
    const reconciles = step.reconciles.slice(shown.reconciles);
    const writes = step.writes.slice(shown.writes);
    shown = { reconciles: step.reconciles.length, writes: step.writes.length };
    if (reconciles.length === 0 && writes.length === 0) return;
    io.out(`t=${step.t}ms`);
    for (const w of writes)
      io.out(`  ${w.controller ?? ''} ${w.key ?? ''}: ${w.verb} ${w.ref.kind} ${w.ref.name}`);
    for (const r of reconciles)
      io.out(`  ${r.controller} ${r.key}: reconciled (${r.reasons.join(', ')}) → ${r.outcome}`);
    if (process.stdin.isTTY) await waitForEnter();
  };
  const report = await replay(recording, mgr.registered, {
    ...(afterMs !== undefined ? { afterMs } : {}),
    ...(values.step === true ? { onStep } : {}),
  });
  io.out(formatReplay(report).trimEnd());
  return 0;
}

/** Resolves at the next line on stdin (stepped replay on a terminal). */
function waitForEnter(): Promise<void> {
  return new Promise((resolveLine) => {
    process.stdin.resume();
    process.stdin.once('data', () => {
      process.stdin.pause();
      resolveLine();
    });
  });
}

async function rbac(runnable: Runnable, modulePath: string, values: Values, io: Io): Promise<number> {
  // The module's options may change what it registers, hence what it needs.
  const moduleOptions = resolveModuleOptions(runnable.options, values, io.env);
  // Discovery resolves plurals; against the embedded server unless a cluster was named.
  const { client, close } = await connection(
    values.kubeconfig === undefined ? { ...values, embedded: true } : values,
    { ...io, err: () => undefined },
  );
  try {
    const name = operatorName(values, runnable.name, modulePath);
    const namespace = values['operator-namespace'] ?? 'default';
    const options = withSettings(
      { client, name, logLevel: 'silent' },
      settingsFromEnv(io.env),
      settingsFromFlags(values),
    );
    const election = options.leaderElection;
    const withLease =
      typeof election === 'object' && election.leaseNamespace === undefined
        ? // The lease lives with the operator unless told otherwise.
          { ...options, leaderElection: { ...election, leaseNamespace: namespace } }
        : options;
    // So does the shard ring's.
    const sharding = withLease.sharding;
    const mgr = await runnable.manager(
      sharding !== undefined && sharding.namespace === undefined
        ? { ...withLease, sharding: { ...sharding, namespace } }
        : withLease,
      moduleOptions,
    );
    let grants: Awaited<ReturnType<typeof managerRbac>>;
    try {
      grants = await managerRbac(mgr);
    } catch (e) {
      if (e instanceof ResourceNotFoundError && values.kubeconfig === undefined) {
        throw new CliError(
          'KindNotServed',
          `${e.kind} (${e.apiVersion}) is not served by the embedded API server rxkube rbac reads discovery from, ` +
            "and the module's setup does not install a CRD for it. Install its CRD in setup " +
            '(mgr.ensureCrd), or run `rxkube rbac ' +
            `${modulePath} --kubeconfig <file>\` against a cluster that serves it.`,
          { cause: e },
        );
      }
      throw e;
    }
    const objects: object[] = rbacManifests(grants, { name, namespace });
    objects.push(
      ...(await webhookDocuments((await mgr.describe()).webhooks, (t) => client.discovery.resolve(t), {
        name,
        namespace,
        matchConditions: values['webhook-match-conditions'] === true,
      })),
    );
    io.out(objects.map((o) => stringify(o)).join('---\n'));
    return 0;
  } finally {
    await close();
  }
}

/**
 * `--watch`: the parent owns the connection (and the embedded server, so its state survives
 * restarts) and runs the operator in a child process, restarted when a file next to the module
 * changes.
 */
async function watchMode(
  args: readonly string[],
  modulePath: string,
  values: Values,
  io: Io,
): Promise<number> {
  const { server, close } = await connection(values, io);
  // The child gets -f too: it applies the rest after its setup, on every restart (server-side
  // apply: what is already there does not change).
  const childArgs = stripArgs(args, ['--watch', '--embedded'], ['--port', '--kubeconfig']);
  const kubeconfig = server?.kubeconfigPath ?? values.kubeconfig;
  const bin = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'rxkube.js');
  let child: ChildProcess | undefined;
  let restarting = false;
  let stopping = false;
  const start = (): void => {
    child = spawn(
      process.execPath,
      [bin, ...childArgs, ...(kubeconfig !== undefined ? ['--kubeconfig', kubeconfig] : [])],
      {
        stdio: 'inherit',
        env: { ...process.env, ...io.env },
      },
    );
    child.once('exit', (code) => {
      child = undefined;
      if (restarting && !stopping) {
        restarting = false;
        io.err('rxkube: restarting the operator (files changed)');
        start();
      } else if (!stopping) {
        io.err(`rxkube: the operator exited with code ${code ?? 'null'}; waiting for a change to restart it`);
      }
    });
  };
  start();
  let timer: NodeJS.Timeout | undefined;
  const watcher = watchFiles(dirname(resolve(modulePath)), { recursive: true }, () => {
    clearTimeout(timer);
    // Coalesce a burst of writes (a build touches many files) into one restart.
    timer = setTimeout(() => {
      if (stopping) return;
      if (child === undefined) start();
      else {
        restarting = true;
        child.kill('SIGTERM');
      }
    }, 200);
  });
  return new Promise<number>((resolveCode) => {
    const stop = (): void => {
      if (stopping) {
        child?.kill('SIGKILL');
        return;
      }
      stopping = true;
      clearTimeout(timer);
      watcher.close();
      const finish = (code: number): void => {
        process.off('SIGTERM', stop);
        process.off('SIGINT', stop);
        void close().then(() => resolveCode(code));
      };
      if (child === undefined) finish(0);
      else {
        child.once('exit', (code) => finish(code ?? 1));
        child.kill('SIGTERM');
      }
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}

/** `args` without the given boolean flags and flags-with-a-value (both `--x v` and `--x=v`). */
function stripArgs(
  args: readonly string[],
  booleans: readonly string[],
  withValue: readonly string[],
): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    const flag = a.includes('=') ? a.slice(0, a.indexOf('=')) : a;
    if (booleans.includes(a)) continue;
    if (withValue.includes(flag)) {
      if (!a.includes('=')) i++;
      continue;
    }
    out.push(a);
  }
  return out;
}
