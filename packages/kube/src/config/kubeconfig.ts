/**
 * The kubeconfig as data: reading `KUBECONFIG` (a path list merged as kubectl merges it),
 * `~/.kube/config`, or the in-cluster service account, into clusters, users and contexts with
 * relative paths resolved against the file that named them. Parsed with `js-yaml` (the parser
 * client-node reads kubeconfigs with; one file, loaded on the first kubeconfig read), so reading a
 * kubeconfig loads no generated API client, nor `yaml`'s 72 modules (issue 21, fast start).
 *
 * What it does not do: read credentials or certificates (that happens per request, in
 * `credentials.ts` and `connection.ts`), or talk to a server.
 *
 * @module
 */
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';

import { KubeConfigError } from '../errors.js';
import { jsYamlModule } from '../internal/lazy-modules.js';

// The builtin through process.getBuiltinModule, not an ESM import: node:fs's ES namespace runs
// its lazy getters (fs.promises and its streams, ~1.3 ms at start)
const { existsSync, readFileSync } = process.getBuiltinModule('node:fs');

/**
 * A cluster entry of a kubeconfig (client-node's field names, so its `KubeConfig` fits too).
 *
 * ## Example
 * ```ts
 * const cluster: Cluster = { name: 'prod', server: 'https://10.0.0.1:6443', caFile: '/etc/k8s/ca.crt' };
 * ```
 */
export interface Cluster {
  readonly name: string;
  readonly server: string;
  /** PEM (decoded from `certificate-authority-data`). */
  readonly caData?: string;
  /** `certificate-authority`, absolute. */
  readonly caFile?: string;
  /** `insecure-skip-tls-verify`: only `true` turns verification off. */
  readonly skipTLSVerify?: boolean;
  /** `tls-server-name`: the name the server certificate is checked against (and SNI). */
  readonly tlsServerName?: string;
  /** `proxy-url`: `http://`, `https://` or `socks5://`. */
  readonly proxyUrl?: string;
}

/**
 * An exec credential plugin (`users[].user.exec`), as in client-go's `ExecConfig`.
 *
 * ## Example
 * ```ts
 * const exec: ExecConfig = { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws', args: ['eks', 'get-token'] };
 * ```
 */
export interface ExecConfig {
  readonly apiVersion?: string;
  readonly command: string;
  readonly args?: readonly string[] | null;
  readonly env?: readonly { readonly name: string; readonly value: string }[] | null;
  readonly installHint?: string;
  readonly provideClusterInfo?: boolean;
  readonly interactiveMode?: string;
}

/**
 * A user entry of a kubeconfig (client-node's field names, plus `tokenFile` and the
 * impersonation fields).
 *
 * ## Example
 * ```ts
 * const user: User = { name: 'ci', tokenFile: '/var/run/secrets/token' };
 * ```
 */
export interface User {
  readonly name: string;
  readonly token?: string;
  /** `tokenFile`, absolute; re-read every minute as client-go does. */
  readonly tokenFile?: string;
  readonly username?: string;
  readonly password?: string;
  /** PEM (decoded from `client-certificate-data`). */
  readonly certData?: string;
  readonly certFile?: string;
  /** PEM (decoded from `client-key-data`). */
  readonly keyData?: string;
  readonly keyFile?: string;
  readonly exec?: ExecConfig;
  /** `auth-provider` (oidc, …): handled by `@kubernetes/client-node`, imported only for it. */
  readonly authProvider?: { readonly name: string; readonly config?: Record<string, string> };
  /** `as`. */
  readonly impersonateUser?: string;
  /** `as-uid`. */
  readonly impersonateUid?: string;
  /** `as-groups`. */
  readonly impersonateGroups?: readonly string[];
  /** `as-user-extra`. */
  readonly impersonateUserExtra?: Readonly<Record<string, readonly string[]>>;
}

/**
 * A context entry of a kubeconfig.
 *
 * ## Example
 * ```ts
 * const context: Context = { name: 'dev', cluster: 'kind', user: 'admin', namespace: 'team-a' };
 * ```
 */
export interface Context {
  readonly name: string;
  readonly cluster: string;
  readonly user: string;
  readonly namespace?: string;
}

/**
 * A kubeconfig read into data (kube-rs's `Kubeconfig`): clusters, users, contexts and the current
 * context. Its read methods carry client-node's names (`getCurrentCluster()`, …), so code written
 * against client-node's `KubeConfig` reads it unchanged.
 *
 * ## Example
 * ```ts
 * import { readFileSync } from 'node:fs';
 *
 * const kc = Kubeconfig.fromYaml(readFileSync('/tmp/kubeconfig', 'utf8'), '/tmp/kubeconfig');
 * console.log(kc.getCurrentCluster()?.server);
 * ```
 */
export class Kubeconfig {
  readonly clusters: readonly Cluster[];
  readonly users: readonly User[];
  readonly contexts: readonly Context[];
  readonly currentContext: string;

  constructor(init: {
    clusters: readonly Cluster[];
    users: readonly User[];
    contexts: readonly Context[];
    currentContext: string;
  }) {
    this.clusters = init.clusters;
    this.users = init.users;
    this.contexts = init.contexts;
    this.currentContext = init.currentContext;
  }

  /**
   * Parses one kubeconfig document; relative file paths are resolved against `path`'s folder (the
   * working directory when `path` is left out).
   * @throws {KubeConfigError} naming the file and the entry that is malformed.
   */
  static fromYaml(text: string, path?: string): Kubeconfig {
    return mergeKubeconfigs([parseKubeconfig(text, path)]);
  }

  getCurrentContext(): string {
    return this.currentContext;
  }
  getContextObject(name: string): Context | null {
    return this.contexts.find((c) => c.name === name) ?? null;
  }
  getCurrentCluster(): Cluster | null {
    const context = this.getContextObject(this.currentContext);
    return context === null ? null : (this.clusters.find((c) => c.name === context.cluster) ?? null);
  }
  getCurrentUser(): User | null {
    const context = this.getContextObject(this.currentContext);
    return context === null ? null : (this.users.find((u) => u.name === context.user) ?? null);
  }
  getClusters(): readonly Cluster[] {
    return this.clusters;
  }
  getUsers(): readonly User[] {
    return this.users;
  }
  getContexts(): readonly Context[] {
    return this.contexts;
  }
}

interface Parsed {
  clusters: Cluster[];
  users: User[];
  contexts: Context[];
  currentContext: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What is wrong and where, without the source: js-yaml's message quotes the lines around the
 * error, and a kubeconfig's lines hold tokens and keys (so the parser's error is not kept as the
 * cause either).
 */
function yamlFailure(e: unknown): string {
  const { reason, mark } = (e ?? {}) as { reason?: unknown; mark?: { line?: unknown; column?: unknown } };
  if (typeof reason !== 'string') return 'it cannot be parsed';
  const line = mark?.line;
  const column = mark?.column;
  return typeof line === 'number' && typeof column === 'number'
    ? `${reason} (line ${String(line + 1)}, column ${String(column + 1)})`
    : reason;
}

function parseKubeconfig(text: string, path: string | undefined): Parsed {
  const where = path ?? 'kubeconfig';
  let docs: unknown[];
  try {
    // YAML 1.2's core schema (js-yaml's default): no merge keys, no timestamps — `yaml`'s too
    docs = jsYamlModule()
      .loadAll(text)
      .filter((d) => d !== null && d !== undefined);
  } catch (e) {
    throw new KubeConfigError(`${where} is not valid YAML: ${yamlFailure(e)}`);
  }
  if (docs.length > 1) {
    throw new KubeConfigError(
      `${where} is not valid YAML: it holds ${String(docs.length)} documents, a kubeconfig is one`,
    );
  }
  let doc = docs[0];
  if (doc === undefined) doc = {};
  if (!isObj(doc)) throw new KubeConfigError(`${where}: expected a kubeconfig mapping (kind: Config)`);
  const base = path === undefined ? process.cwd() : dirname(resolve(path));
  const abs = (p: unknown, field: string, entry: string): string | undefined => {
    if (p === undefined || p === null || p === '') return undefined;
    if (typeof p !== 'string') throw bad(where, entry, field, 'a path string');
    return isAbsolute(p) ? p : join(base, p);
  };
  const str = (v: unknown, field: string, entry: string): string | undefined => {
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string') throw bad(where, entry, field, 'a string');
    return v;
  };
  const b64 = (v: unknown, field: string, entry: string): string | undefined => {
    const s = str(v, field, entry);
    return s === undefined ? undefined : Buffer.from(s, 'base64').toString('utf8');
  };
  // client-go refuses a non-boolean here too (JSON decoding into a bool): verification stays on
  // unless the file says a plain true.
  const bool = (v: unknown, field: string, entry: string): boolean => {
    if (v === undefined || v === null) return false;
    if (typeof v !== 'boolean') throw bad(where, entry, field, 'true or false (unquoted)');
    return v;
  };
  const named = (list: unknown, key: string, what: string): { name: string; body: Obj }[] => {
    if (list === undefined || list === null) return [];
    if (!Array.isArray(list)) throw new KubeConfigError(`${where}: ${what} must be a list`);
    return list.map((item, i) => {
      if (!isObj(item) || typeof item['name'] !== 'string' || item['name'] === '') {
        throw new KubeConfigError(`${where}: ${what}[${String(i)}] needs a name`);
      }
      const body = item[key] ?? {};
      if (!isObj(body)) throw new KubeConfigError(`${where}: ${what}[${String(i)}].${key} must be a mapping`);
      return { name: item['name'], body };
    });
  };

  const clusters = named(doc['clusters'], 'cluster', 'clusters').map(({ name, body }): Cluster => {
    const entry = `cluster "${name}"`;
    const server = str(body['server'], 'server', entry) ?? '';
    const caData = b64(body['certificate-authority-data'], 'certificate-authority-data', entry);
    const caFile = abs(body['certificate-authority'], 'certificate-authority', entry);
    const tlsServerName = str(body['tls-server-name'], 'tls-server-name', entry);
    const proxyUrl = str(body['proxy-url'], 'proxy-url', entry);
    return {
      name,
      server,
      ...(caData !== undefined ? { caData } : {}),
      ...(caFile !== undefined ? { caFile } : {}),
      skipTLSVerify: bool(body['insecure-skip-tls-verify'], 'insecure-skip-tls-verify', entry),
      ...(tlsServerName !== undefined ? { tlsServerName } : {}),
      ...(proxyUrl !== undefined ? { proxyUrl } : {}),
    };
  });

  const users = named(doc['users'], 'user', 'users').map(({ name, body }): User => {
    const entry = `user "${name}"`;
    const out: Record<string, unknown> = { name };
    const set = (k: string, v: unknown): void => {
      if (v !== undefined) out[k] = v;
    };
    set('token', str(body['token'], 'token', entry));
    set('tokenFile', abs(body['tokenFile'], 'tokenFile', entry));
    set('username', str(body['username'], 'username', entry));
    set('password', str(body['password'], 'password', entry));
    set('certData', b64(body['client-certificate-data'], 'client-certificate-data', entry));
    set('certFile', abs(body['client-certificate'], 'client-certificate', entry));
    set('keyData', b64(body['client-key-data'], 'client-key-data', entry));
    set('keyFile', abs(body['client-key'], 'client-key', entry));
    set('impersonateUser', str(body['as'], 'as', entry));
    set('impersonateUid', str(body['as-uid'], 'as-uid', entry));
    const groups = body['as-groups'];
    if (groups !== undefined && groups !== null) {
      if (!Array.isArray(groups) || !groups.every((g) => typeof g === 'string')) {
        throw bad(where, entry, 'as-groups', 'a list of strings');
      }
      set('impersonateGroups', groups);
    }
    const extra = body['as-user-extra'];
    if (extra !== undefined && extra !== null) {
      if (
        !isObj(extra) ||
        !Object.values(extra).every((v) => Array.isArray(v) && v.every((s) => typeof s === 'string'))
      ) {
        throw bad(where, entry, 'as-user-extra', 'a mapping of string lists');
      }
      set('impersonateUserExtra', extra);
    }
    const exec = body['exec'];
    if (exec !== undefined && exec !== null) {
      if (!isObj(exec) || typeof exec['command'] !== 'string' || exec['command'] === '') {
        throw bad(where, entry, 'exec', 'a mapping with a command');
      }
      const command = exec['command'];
      // client-go resolves a command with a path separator against the kubeconfig's folder
      // (clientcmd ResolveLocalPaths); a bare name is looked up on PATH.
      set('exec', {
        ...exec,
        command: command.includes('/') && !isAbsolute(command) ? join(base, command) : command,
      });
    }
    const provider = body['auth-provider'];
    if (provider !== undefined && provider !== null) {
      if (!isObj(provider) || typeof provider['name'] !== 'string') {
        throw bad(where, entry, 'auth-provider', 'a mapping with a name');
      }
      set('authProvider', provider);
    }
    return out as unknown as User;
  });

  const contexts = named(doc['contexts'], 'context', 'contexts').map(({ name, body }): Context => {
    const entry = `context "${name}"`;
    const namespace = str(body['namespace'], 'namespace', entry);
    return {
      name,
      cluster: str(body['cluster'], 'cluster', entry) ?? '',
      user: str(body['user'], 'user', entry) ?? '',
      ...(namespace !== undefined ? { namespace } : {}),
    };
  });
  const current = doc['current-context'];
  return {
    clusters,
    users,
    contexts,
    currentContext: typeof current === 'string' ? current : '',
  };
}

function bad(where: string, entry: string, field: string, expected: string): KubeConfigError {
  return new KubeConfigError(`${where}: ${entry} field ${field} must be ${expected}`);
}

/** kubectl's merge: the first file to name a cluster, user or context wins, as does its current-context. */
function mergeKubeconfigs(parts: readonly Parsed[]): Kubeconfig {
  const firstByName = <T extends { name: string }>(lists: readonly (readonly T[])[]): T[] => {
    const seen = new Map<string, T>();
    for (const list of lists) for (const item of list) if (!seen.has(item.name)) seen.set(item.name, item);
    return [...seen.values()];
  };
  return new Kubeconfig({
    clusters: firstByName(parts.map((p) => p.clusters)),
    users: firstByName(parts.map((p) => p.users)),
    contexts: firstByName(parts.map((p) => p.contexts)),
    currentContext: parts.find((p) => p.currentContext !== '')?.currentContext ?? '',
  });
}

function readFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new KubeConfigError(
      `could not read kubeconfig file ${path}: ${e instanceof Error ? e.message : String(e)}`,
      e,
    );
  }
}

/**
 * Reads one kubeconfig file.
 * @throws {KubeConfigError} when it cannot be read or parsed.
 */
export function readKubeconfigFile(path: string): Kubeconfig {
  return mergeKubeconfigs([parseKubeconfig(readFile(path), path)]);
}

/** Where the in-cluster service account is mounted (client-go `rest.InClusterConfig`). */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

/**
 * The in-cluster configuration as client-go's `rest.InClusterConfig` builds it: the server from
 * `KUBERNETES_SERVICE_HOST`/`_PORT`, the mounted CA, and the service account token as a token
 * file (re-read every minute, so a rotated projected token is picked up).
 * @returns undefined when not in a pod (the variables or the token are missing).
 */
export function inClusterKubeconfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  dir: string = SERVICE_ACCOUNT_DIR,
): Kubeconfig | undefined {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  const tokenFile = join(dir, 'token');
  if (!host || !port || !existsSync(tokenFile)) return undefined;
  let namespace = 'default';
  try {
    namespace = readFileSync(join(dir, 'namespace'), 'utf8').trim() || 'default';
  } catch {
    // client-go falls back to "default" too
  }
  const caFile = join(dir, 'ca.crt');
  return new Kubeconfig({
    clusters: [
      {
        name: 'in-cluster',
        server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
        ...(existsSync(caFile) ? { caFile } : {}),
        skipTLSVerify: false,
      },
    ],
    users: [{ name: 'in-cluster', tokenFile }],
    contexts: [{ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', namespace }],
    currentContext: 'in-cluster',
  });
}

/**
 * kubectl's default: the files of `KUBECONFIG` (a path list; missing ones skipped) merged, else
 * `~/.kube/config`, else the in-cluster service account.
 * @returns undefined when there is none of them.
 */
export function defaultKubeconfig(
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = homedir(),
  serviceAccountDir: string = SERVICE_ACCOUNT_DIR,
): Kubeconfig | undefined {
  const list = (env['KUBECONFIG'] ?? '').split(delimiter).filter((p) => p !== '');
  const files =
    list.length > 0
      ? list.filter((p) => existsSync(p))
      : [join(home, '.kube', 'config')].filter((p) => existsSync(p));
  if (files.length > 0) return mergeKubeconfigs(files.map((p) => parseKubeconfig(readFile(p), p)));
  return inClusterKubeconfig(env, serviceAccountDir);
}
