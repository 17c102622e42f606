/**
 * Exec credential plugins (`users[].user.exec`) as client-go runs them
 * (k8s.io/client-go/plugin/pkg/client/auth/exec/exec.go): the command with the kubeconfig's
 * `args` and `env` added to ours, `KUBERNETES_EXEC_INFO` describing the request (and the cluster
 * with `provideClusterInfo`), its `ExecCredential` answer checked, and the credential cached until
 * its `expirationTimestamp` (forever when it has none) or until the server answers 401 to a request
 * that carried it. Concurrent callers share one run.
 *
 * What it does not do: run interactively (an operator has no terminal: `interactiveMode: Always`
 * is refused with a message), or log the credential.
 *
 * @module
 */

import { KubeConfigError } from '../errors.js';
import type { Cluster, ExecConfig } from './kubeconfig.js';

/** A time source (ms since the epoch). */
export interface Clock {
  now(): number;
}

/** What a plugin returned: a token, or a client certificate and key (PEM). */
export interface ExecCredential {
  readonly token?: string;
  readonly cert?: string;
  readonly key?: string;
  /** ms since the epoch; undefined = valid until the process ends. */
  readonly expiresAt?: number;
}

const API_VERSIONS = new Set(['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1']);

/** One exec plugin of one user, with its cache. */
export class ExecCredentialPlugin {
  private cached: ExecCredential | undefined;
  private running: Promise<ExecCredential> | undefined;
  private readonly apiVersion: string;

  constructor(
    private readonly config: ExecConfig,
    private readonly cluster: Cluster,
    private readonly clock: Clock,
  ) {
    const apiVersion = config.apiVersion ?? '';
    if (!API_VERSIONS.has(apiVersion)) {
      throw new KubeConfigError(
        `exec plugin ${config.command}: apiVersion ${JSON.stringify(apiVersion)} is not supported; ` +
          `use one of ${[...API_VERSIONS].join(', ')}`,
      );
    }
    if (apiVersion.endsWith('/v1') && config.interactiveMode === undefined) {
      // client-go: "interactiveMode must be specified for ... to use exec authentication plugin"
      throw new KubeConfigError(
        `exec plugin ${config.command}: interactiveMode must be set with apiVersion ${apiVersion} ` +
          '(Never, IfAvailable or Always)',
      );
    }
    if (config.interactiveMode === 'Always') {
      throw new KubeConfigError(
        `exec plugin ${config.command} asks for interactiveMode Always, but an operator has no terminal: ` +
          'set interactiveMode to Never or IfAvailable, or give the user a token or client certificate',
      );
    }
    this.apiVersion = apiVersion;
  }

  /** The cached credential while it is valid, else a fresh one (one run for concurrent callers). */
  credential(): Promise<ExecCredential> {
    const c = this.cached;
    if (c !== undefined && (c.expiresAt === undefined || this.clock.now() < c.expiresAt)) {
      return Promise.resolve(c);
    }
    this.running ??= this.run().then(
      (fresh) => {
        this.cached = fresh;
        this.running = undefined;
        return fresh;
      },
      (e: unknown) => {
        this.running = undefined;
        throw e;
      },
    );
    return this.running;
  }

  /**
   * Forgets the cached credential after the server answered 401 to a request that carried `used`
   * (client-go's `maybeRefreshCreds`): the next {@link credential} runs the plugin again. A
   * credential already replaced (a concurrent 401 refreshed it) is left alone.
   */
  invalidate(used?: ExecCredential): void {
    if (used === undefined || this.cached === used) this.cached = undefined;
  }

  private run(): Promise<ExecCredential> {
    const { command } = this.config;
    const info = {
      apiVersion: this.apiVersion,
      kind: 'ExecCredential',
      spec: {
        interactive: false,
        ...(this.config.provideClusterInfo === true
          ? {
              cluster: {
                server: this.cluster.server,
                ...(this.cluster.tlsServerName !== undefined
                  ? { 'tls-server-name': this.cluster.tlsServerName }
                  : {}),
                ...(this.cluster.skipTLSVerify === true ? { 'insecure-skip-tls-verify': true } : {}),
                ...(this.cluster.caData !== undefined
                  ? { 'certificate-authority-data': Buffer.from(this.cluster.caData).toString('base64') }
                  : {}),
                ...(this.cluster.proxyUrl !== undefined ? { 'proxy-url': this.cluster.proxyUrl } : {}),
              },
            }
          : {}),
      },
    };
    const env: Record<string, string | undefined> = { ...process.env };
    for (const { name, value } of this.config.env ?? []) env[name] = value;
    env['KUBERNETES_EXEC_INFO'] = JSON.stringify(info);
    const fail = (what: string, cause?: unknown): KubeConfigError =>
      new KubeConfigError(
        `exec plugin ${command}: ${what}` + (this.config.installHint ? `\n${this.config.installHint}` : ''),
        cause,
      );
    return new Promise<ExecCredential>((resolve, reject) => {
      // taken on the first run, not imported: node:child_process (and dgram) load only for exec users
      const { spawn } = process.getBuiltinModule('node:child_process');
      const child = spawn(command, [...(this.config.args ?? [])], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const out: Buffer[] = [];
      const err: Buffer[] = [];
      child.stdout.on('data', (b: Buffer) => out.push(b));
      child.stderr.on('data', (b: Buffer) => {
        if (err.reduce((n, x) => n + x.length, 0) < 4096) err.push(b);
      });
      child.once('error', (e) => reject(fail(`could not run it (${e.message})`, e)));
      child.once('close', (code, signal) => {
        if (code !== 0) {
          const stderr = Buffer.concat(err).toString('utf8').trim().slice(0, 1000);
          reject(fail(`exited with ${signal ?? `code ${String(code)}`}${stderr ? `: ${stderr}` : ''}`));
          return;
        }
        try {
          resolve(this.parse(Buffer.concat(out).toString('utf8')));
        } catch (e) {
          reject(e instanceof KubeConfigError ? e : fail(String(e), e));
        }
      });
    });
  }

  private parse(text: string): ExecCredential {
    const { command } = this.config;
    const bad = (what: string): KubeConfigError =>
      new KubeConfigError(
        `exec plugin ${command} returned ${what}; expected an ExecCredential (${this.apiVersion})`,
      );
    let doc: unknown;
    try {
      doc = JSON.parse(text);
    } catch {
      throw bad('output that is not JSON');
    }
    if (typeof doc !== 'object' || doc === null) throw bad('no object');
    const o = doc as Record<string, unknown>;
    if (o['kind'] !== 'ExecCredential') throw bad(`kind ${JSON.stringify(o['kind'])}`);
    if (o['apiVersion'] !== this.apiVersion) throw bad(`apiVersion ${JSON.stringify(o['apiVersion'])}`);
    const status = o['status'];
    if (typeof status !== 'object' || status === null) throw bad('no status');
    const s = status as Record<string, unknown>;
    const token = typeof s['token'] === 'string' && s['token'] !== '' ? s['token'] : undefined;
    const cert =
      typeof s['clientCertificateData'] === 'string' && s['clientCertificateData'] !== ''
        ? s['clientCertificateData']
        : undefined;
    const key =
      typeof s['clientKeyData'] === 'string' && s['clientKeyData'] !== '' ? s['clientKeyData'] : undefined;
    if ((cert === undefined) !== (key === undefined)) {
      throw bad('only one of clientCertificateData and clientKeyData');
    }
    if (token === undefined && cert === undefined) throw bad('neither a token nor a client certificate');
    let expiresAt: number | undefined;
    const expiry = s['expirationTimestamp'];
    if (expiry !== undefined && expiry !== null) {
      expiresAt = typeof expiry === 'string' ? Date.parse(expiry) : Number.NaN;
      if (Number.isNaN(expiresAt)) throw bad('an unreadable expirationTimestamp');
    }
    return {
      ...(token !== undefined ? { token } : {}),
      ...(cert !== undefined && key !== undefined ? { cert, key } : {}),
      ...(expiresAt !== undefined ? { expiresAt } : {}),
    };
  }
}
