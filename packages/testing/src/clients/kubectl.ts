/**
 * Drives the `kubectl` binary of this machine against a server, as a user would: its default
 * flags, a kubeconfig, a private HOME and discovery cache, no proxy (loopback only), and bounded
 * time (`--request-timeout` on every call, the process killed at a deadline). Test support only:
 * not exported.
 *
 * `RXKUBE_KUBECTL` names another binary; without one on PATH, {@link findKubectl} says why, and
 * suites skip with that reason printed (see `suite.ts`).
 *
 * ## Example
 * ```ts
 * const found = await findKubectl();
 * if (!found.found) throw new Error(found.reason);
 * const kubectl = new Kubectl(found.path, server.kubeconfigPath);
 * const r = await kubectl.run(['create', 'configmap', 'a', '--from-literal=k=v']);
 * const w = kubectl.watch(['get', 'configmaps', '-w']);
 * await w.until((lines) => lines.some((l) => l.startsWith('a ')), 'configmap a listed');
 * await w.stop();
 * kubectl.dispose();
 * ```
 *
 * @module
 */
import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** A kubectl found on this machine, or why there is none. */
export type FoundKubectl =
  | { readonly found: true; readonly path: string; readonly version: string }
  | { readonly found: false; readonly reason: string };

/** The outcome of one kubectl run. */
export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Looks for kubectl (`RXKUBE_KUBECTL`, else `kubectl` on PATH) and reads its client version. */
export function findKubectl(): Promise<FoundKubectl> {
  const path = process.env['RXKUBE_KUBECTL'] ?? 'kubectl';
  return new Promise((resolve) => {
    execFile(path, ['version', '--client', '-o', 'json'], { timeout: 20_000 }, (err, stdout) => {
      if (err) {
        const why =
          (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : err.message.split('\n')[0];
        resolve({
          found: false,
          reason: `kubectl (${path}) ${why ?? 'failed'}; install kubectl or set RXKUBE_KUBECTL to run these tests`,
        });
        return;
      }
      let version = 'unknown';
      try {
        const parsed = JSON.parse(stdout) as { clientVersion?: { gitVersion?: string } };
        version = parsed.clientVersion?.gitVersion ?? version;
      } catch {
        // an unparseable version still runs
      }
      resolve({ found: true, path, version });
    });
  });
}

/** A running `kubectl … -w`. */
export interface KubectlWatch {
  /** Complete stdout lines so far. */
  readonly lines: readonly string[];
  /** Waits until `pred` holds for the lines read so far (checked on every chunk). */
  until(pred: (lines: readonly string[]) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Waits until `pred` holds for stderr so far (with `-v=6`: a request kubectl has made). */
  untilStderr(pred: (stderr: string) => boolean, what: string, timeoutMs?: number): Promise<void>;
  /** Stops kubectl (SIGTERM to its pid) and waits for it to exit. */
  stop(): Promise<KubectlResult>;
}

/** Options of one {@link Kubectl.run}. */
export interface KubectlRunOptions {
  /** Written to its stdin (for `-f -`). */
  readonly input?: string;
  /** Killed after this long (default: the instance's timeout). */
  readonly timeoutMs?: number;
  /** More environment variables, e.g. `KUBE_EDITOR` for `kubectl edit`. */
  readonly env?: Readonly<Record<string, string>>;
}

/** kubectl bound to one kubeconfig, with its own HOME, cache and temporary directory. */
export class Kubectl {
  /** The private HOME: manifests written with {@link file} and kubectl's temporary files live here. */
  readonly home: string;
  /** kubectl's `TMPDIR` (`kubectl edit` keeps rejected edits there, `kubectl diff` its LIVE/MERGED trees). */
  readonly tmp: string;
  private readonly env: NodeJS.ProcessEnv;

  constructor(
    private readonly binary: string,
    kubeconfigPath: string,
    private readonly defaultTimeoutMs = 30_000,
  ) {
    this.home = mkdtempSync(join(tmpdir(), 'rxkube-kubectl-'));
    this.tmp = join(this.home, 'tmp');
    mkdirSync(this.tmp);
    // only what kubectl needs: no proxies (everything stays on loopback), no user config
    this.env = {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      HOME: this.home,
      TMPDIR: this.tmp,
      KUBECONFIG: kubeconfigPath,
      KUBECACHEDIR: join(this.home, 'cache'),
      NO_PROXY: '127.0.0.1,localhost',
      LANG: 'C',
    };
  }

  /**
   * Writes a file under the private HOME (folders created) and returns its absolute path: a
   * manifest for `-f`, or with `executable` a script for `KUBE_EDITOR`.
   */
  file(relativePath: string, text: string, opts: { executable?: boolean } = {}): string {
    const path = join(this.home, 'files', relativePath);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    if (opts.executable === true) chmodSync(path, 0o755);
    return path;
  }

  private args(args: readonly string[]): string[] {
    // bounded: every request of this kubectl gives up after the timeout
    const i = args.indexOf('--');
    const flag = `--request-timeout=${String(Math.ceil(this.defaultTimeoutMs / 1000))}s`;
    return i < 0 ? [...args, flag] : [...args.slice(0, i), flag, ...args.slice(i)];
  }

  /** Runs kubectl to completion (killed after `timeoutMs`). */
  run(args: readonly string[], opts: KubectlRunOptions = {}): Promise<KubectlResult> {
    return new Promise((resolve, reject) => {
      const child = execFile(
        this.binary,
        this.args(args),
        {
          env: opts.env === undefined ? this.env : { ...this.env, ...opts.env },
          timeout: opts.timeoutMs ?? this.defaultTimeoutMs,
          maxBuffer: 64 * 1024 * 1024,
        },
        (err, stdout, stderr) => {
          if (err && typeof err.code !== 'number') {
            reject(new Error(`kubectl ${args.join(' ')}: ${err.message}\n${stderr}`));
            return;
          }
          resolve({ code: typeof err?.code === 'number' ? err.code : 0, stdout, stderr });
        },
      );
      if (opts.input !== undefined) child.stdin?.end(opts.input);
      else child.stdin?.end();
    });
  }

  /** Runs kubectl, fails unless it exits 0, and parses its JSON output (`-o json` is added). */
  async json<T = unknown>(args: readonly string[]): Promise<T> {
    const r = await this.run([...args, '-o', 'json']);
    if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${String(r.code)}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  /** Starts a long-running kubectl (`get -w`), read line by line until stopped. */
  watch(args: readonly string[], maxRunMs = 60_000): KubectlWatch {
    const child: ChildProcess = spawn(this.binary, args, {
      env: this.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lines: string[] = [];
    let partial = '';
    let stderr = '';
    let waiters: (() => void)[] = [];
    const wake = (): void => {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    };
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
    void exited.then(wake);
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      partial += chunk;
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts);
      wake();
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr += chunk;
      wake();
    });
    // never outlive the test: killed at the deadline whatever happens
    const deadline = setTimeout(() => child.kill('SIGKILL'), maxRunMs);
    deadline.unref();
    let done = false;
    void exited.then(() => {
      done = true;
    });
    const waitFor = async (holds: () => boolean, what: string, timeoutMs = 15_000): Promise<void> => {
      const end = Date.now() + timeoutMs;
      while (!holds()) {
        const left = end - Date.now();
        if (left <= 0 || done) {
          throw new Error(
            `kubectl ${args.join(' ')}: ${done ? 'exited' : 'timed out'} before ${what}; stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`,
          );
        }
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          waiters.push(() => {
            clearTimeout(t);
            resolve();
          });
        });
      }
    };
    return {
      lines,
      until(pred, what, timeoutMs) {
        return waitFor(() => pred(lines), what, timeoutMs);
      },
      untilStderr(pred, what, timeoutMs) {
        return waitFor(() => pred(stderr), what, timeoutMs);
      },
      async stop() {
        if (!done) child.kill('SIGTERM');
        const code = await exited;
        clearTimeout(deadline);
        return { code, stdout: lines.join('\n') + partial, stderr };
      },
    };
  }

  /** Removes the private HOME. */
  dispose(): void {
    rmSync(this.home, { recursive: true, force: true });
  }
}
