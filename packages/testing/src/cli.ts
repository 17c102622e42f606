/**
 * `rxkube-apiserver --port N [--tls] [--kubeconfig path] [--no-gc] [--no-namespace-lifecycle]
 * [--simulate-deployments] [-f file-or-dir]... [--token-auth-file file] [--enable-admission-plugins A,B]`:
 * runs the in-memory API server until SIGINT/SIGTERM and prints where its kubeconfig is. `-f`
 * (repeatable) creates the manifests of a file or folder at start: CRDs first, then the rest. With a
 * token file (kube-apiserver's format) requests are authenticated by token and authorized by RBAC.
 *
 * @module
 */
import { readFileSync } from 'node:fs';

import { parseTokenFile } from './auth.js';
import { readManifests } from './preload.js';
import type { AdmissionPlugin } from './rbac/engine/owner-references.js';
import { startApiServer } from './server.js';
import type { ApiServerOptions } from './server.js';

/** Parses CLI arguments into server options; throws a RangeError naming the bad argument. */
export function parseArgs(argv: readonly string[]): ApiServerOptions {
  const opts: { -readonly [K in keyof ApiServerOptions]: ApiServerOptions[K] } = {};
  const files: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new RangeError(`${String(a)} needs a value`);
      return v;
    };
    if (a === '--port') {
      const p = Number(value());
      if (!Number.isInteger(p) || p < 0 || p > 65535)
        throw new RangeError(`--port must be an integer 0-65535, got ${String(argv[i])}`);
      opts.port = p;
    } else if (a === '--host') opts.host = value();
    else if (a === '--tls') opts.tls = true;
    else if (a === '--kubeconfig') opts.kubeconfigPath = value();
    else if (a === '--no-gc') opts.gc = false;
    else if (a === '--simulate-deployments') opts.simulateDeployments = true;
    else if (a === '--no-namespace-lifecycle') opts.namespaceLifecycle = false;
    else if (a === '--token-auth-file') {
      const file = value();
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (e) {
        throw new RangeError(`--token-auth-file ${file}: ${e instanceof Error ? e.message : String(e)}`, {
          cause: e,
        });
      }
      opts.auth = { tokens: parseTokenFile(text, file) };
    } else if (a === '--enable-admission-plugins')
      opts.enableAdmissionPlugins = value()
        .split(',')
        .filter((p) => p !== '') as AdmissionPlugin[];
    else if (a === '-f' || a === '--filename') files.push(value());
    else if (a === '--help' || a === '-h') throw new RangeError('usage');
    else throw new RangeError(`unknown argument ${String(a)}`);
  }
  if (files.length > 0) {
    const manifests = readManifests(files);
    opts.crds = manifests.crds;
    opts.objects = manifests.objects;
  }
  return opts;
}

const USAGE =
  'usage: rxkube-apiserver [--port N] [--host H] [--tls] [--kubeconfig path] [--no-gc] [--no-namespace-lifecycle] [--simulate-deployments] [-f file-or-dir]... [--token-auth-file file] [--enable-admission-plugins A,B]';

/** Runs the CLI. */
export async function main(argv: readonly string[]): Promise<void> {
  let opts: ApiServerOptions;
  try {
    opts = parseArgs(argv);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    process.stderr.write(msg === 'usage' ? `${USAGE}\n` : `rxkube-apiserver: ${msg}\n${USAGE}\n`);
    process.exitCode = 2;
    return;
  }
  let server: Awaited<ReturnType<typeof startApiServer>>;
  try {
    server = await startApiServer(opts);
  } catch (e) {
    process.stderr.write(`rxkube-apiserver: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
    return;
  }
  process.stdout.write(`rxkube-apiserver listening on ${server.url}\nkubeconfig: ${server.kubeconfigPath}\n`);
  const stop = (): void => {
    server.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
