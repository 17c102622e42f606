/**
 * The kubeconfig adapter: turns a kubeconfig (default file, `KUBECONFIG`, in-cluster service
 * account — read by `kubeconfig.ts`, or a `@kubernetes/client-node` `KubeConfig` a caller already
 * has) into what the transport needs: the server URL, a keep-alive `http(s).Agent` with the
 * cluster's TLS and proxy settings, and fresh credentials per request (bearer token, token file,
 * exec plugins, basic auth, client certificates, impersonation; `credentials.ts`).
 *
 * It imports no generated API client: `@kubernetes/client-node` is loaded lazily and only for what
 * it alone supports (auth-provider plugins, socks5 proxies). Reading a kubeconfig through
 * client-node cost 500–580 ms of CPU at start (issue 21).
 *
 * What it does not do: send requests (that is the transport) or log anything — credentials never
 * leave these files except as request headers.
 *
 * @module
 */
import type * as http from 'node:http';
import type * as https from 'node:https';

import type { KubeConfig as ClientNodeKubeConfig } from '@kubernetes/client-node';

import { KubeConfigError } from '../errors.js';
import { credentialSource } from './credentials.js';
import type { Clock, Credentials } from './credentials.js';
import { defaultKubeconfig, Kubeconfig, readKubeconfigFile } from './kubeconfig.js';
import type { Cluster, Context, User } from './kubeconfig.js';
import { proxyFor, tunnelAgent } from './proxy.js';

// The builtin through process.getBuiltinModule, not an ESM import: importing node:http as an ES
// module runs every lazy getter of its exports, which loads Node's bundled undici (~35 ms at start).
const nodeHttp = process.getBuiltinModule('node:http');
const nodeHttps = process.getBuiltinModule('node:https');

/**
 * A kubeconfig as {@link connectionFromKubeConfig} takes it: ours ({@link loadDefaultKubeConfig},
 * {@link loadKubeConfigFile}, {@link Kubeconfig}) or a `@kubernetes/client-node` `KubeConfig`.
 *
 * ## Example
 * ```ts
 * const kc: KubeConfigSource = loadKubeConfigFile('/tmp/kubeconfig');
 * const client = KubeClient.fromKubeConfig(kc);
 * ```
 */
export type KubeConfigSource = Kubeconfig | ClientNodeKubeConfig;

/**
 * Options of {@link connectionFromKubeConfig}.
 *
 * ## Example
 * ```ts
 * const conn = connectionFromKubeConfig(kubeConfig, { maxSockets: 64, maxFreeSockets: 8 });
 * ```
 */
export interface ConnectionOptions {
  /** Sockets per host (default: unlimited; every open watch holds one). */
  readonly maxSockets?: number;
  /** Idle keep-alive sockets kept per host (default 16). */
  readonly maxFreeSockets?: number;
}

/**
 * Credentials and the agent for one request. Never log the headers.
 *
 * ## Example
 * ```ts
 * import https from 'node:https';
 *
 * const conn = connectionFromKubeConfig(kubeConfig);
 * const auth: RequestAuth = await conn.auth();
 * https.get(new URL('/version', conn.server), { agent: auth.agent, headers: auth.headers }); // never log auth.headers
 * ```
 */
export interface RequestAuth {
  /** `Authorization`, `Impersonate-User`, … for this request. */
  readonly headers: Readonly<Record<string, string>>;
  /** The connection's keep-alive agent (built on first use from the cluster's TLS settings). */
  readonly agent: http.Agent;
}

/**
 * Where and how to reach one API server, derived from a kubeconfig's current context.
 *
 * ## Example
 * ```ts
 * const conn = connectionFromKubeConfig(kubeConfig);
 * const { headers, agent } = await conn.auth();
 * ```
 */
export interface Connection {
  /** The cluster's server URL (may carry a path prefix, e.g. behind a proxy). */
  readonly server: URL;
  /** False only when the kubeconfig says `insecure-skip-tls-verify: true`. */
  readonly tlsVerify: boolean;
  /** The context's namespace, `default` when it sets none. */
  readonly namespace: string;
  /** `context "c" (cluster "k" at https://…, user "u")`, for messages. Holds no secret. */
  readonly description: string;
  /**
   * Fresh credentials for one request (exec / OIDC tokens are refreshed as they expire) and the
   * agent to send it through.
   * @throws {KubeConfigError} when a credential plugin fails or the connection was closed.
   */
  auth(): Promise<RequestAuth>;
  /**
   * The server answered 401 to a request sent with `auth`: forgets the credential it carried when
   * it can be refreshed (an exec plugin's: the next {@link auth} runs the plugin again) and returns
   * `true`, so the caller sends the request once more; `false` when nothing would change (a fixed
   * token, a certificate). Optional: a connection without it never retries.
   */
  unauthorized?(auth: RequestAuth): boolean;
  /** Destroys the agent's sockets; later {@link auth} calls fail. */
  close(): void;
}

/**
 * Loads the default kubeconfig the way kubectl does: the files of `KUBECONFIG` (a path list,
 * merged: the first file to name an entry wins), else `~/.kube/config`, else the in-cluster
 * service account.
 *
 * ## Example
 * ```ts
 * const client = KubeClient.fromKubeConfig(loadDefaultKubeConfig());
 * ```
 *
 * @throws {KubeConfigError} when there is no kubeconfig, or a file cannot be read or parsed.
 */
export function loadDefaultKubeConfig(): Kubeconfig {
  const kc = defaultKubeconfig();
  if (kc === undefined) {
    throw new KubeConfigError(
      `no kubeconfig found (KUBECONFIG=${process.env['KUBECONFIG'] ?? '<unset>'}, ~/.kube/config does not ` +
        'exist, and this is not a pod with a service account): set KUBECONFIG or create ~/.kube/config',
    );
  }
  return kc;
}

/**
 * Loads a kubeconfig file.
 *
 * ## Example
 * ```ts
 * const kc = loadKubeConfigFile('/tmp/kubeconfig');
 * ```
 *
 * @throws {KubeConfigError} when the file cannot be read or parsed.
 */
export function loadKubeConfigFile(path: string): Kubeconfig {
  return readKubeconfigFile(path);
}

/**
 * Builds a {@link Connection} from a kubeconfig's current context.
 *
 * ## Example
 * ```ts
 * const conn = connectionFromKubeConfig(loadDefaultKubeConfig());
 * console.log(conn.description); // never includes credentials
 * ```
 *
 * ## Semantics
 * - TLS: the cluster's CA (`certificate-authority(-data)`), client certificate and key (inline or
 *   by file), `tls-server-name` (checked name and SNI); verification is on
 *   (`rejectUnauthorized: true`, whatever `NODE_TLS_REJECT_UNAUTHORIZED` says) unless the cluster
 *   sets `insecure-skip-tls-verify: true`.
 * - `http://` servers are used as written (as kubectl does, e.g. `kubectl proxy`).
 * - Proxies as client-go: the cluster's `proxy-url`, else `HTTPS_PROXY`/`HTTP_PROXY` and
 *   `NO_PROXY`, never for loopback servers.
 * - Credentials as client-go computes them, per request: a token file is re-read every minute,
 *   an exec plugin's credential is cached until it expires or a request carrying it is answered
 *   401 (that request is then sent once more with a fresh one); an explicit token, basic auth or
 *   client certificate wins over an exec plugin. `auth-provider` plugins load client-node.
 *
 * @throws {KubeConfigError} when the current context, its cluster, or the server URL is unusable.
 */
export function connectionFromKubeConfig(kc: KubeConfigSource, options: ConnectionOptions = {}): Connection {
  return connectionFrom(kc, options);
}

/** {@link connectionFromKubeConfig} with what tests drive: the clock and the environment. */
export function connectionFrom(
  source: KubeConfigSource,
  options: ConnectionOptions,
  internal: { clock?: Clock; env?: Readonly<Record<string, string | undefined>> } = {},
): Connection {
  const kc = asKubeconfig(source);
  const contextName = kc.getCurrentContext();
  const cluster = kc.getCurrentCluster();
  const user = kc.getCurrentUser();
  if (!cluster) {
    throw new KubeConfigError(
      `the kubeconfig's current context "${contextName || '<none>'}" names no known cluster: set ` +
        'current-context (kubectl config use-context) or check the clusters list.',
    );
  }
  let server: URL;
  try {
    server = new URL(cluster.server);
  } catch (e) {
    throw new KubeConfigError(
      `cluster "${cluster.name}" has an invalid server URL ${JSON.stringify(cluster.server)}: ` +
        'expected https://host:port',
      e,
    );
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:') {
    throw new KubeConfigError(
      `cluster "${cluster.name}" server ${server.origin} uses ${server.protocol}; only https:// and http:// are supported`,
    );
  }
  if (server.username !== '' || server.password !== '') {
    throw new KubeConfigError(
      `cluster "${cluster.name}" server URL carries user info; put credentials in the kubeconfig user instead`,
    );
  }
  const tlsVerify = cluster.skipTLSVerify !== true;
  const secure = server.protocol === 'https:';
  const description =
    `context "${contextName}" (cluster "${cluster.name}" at ${server.origin}${server.pathname === '/' ? '' : server.pathname}, ` +
    `user "${user?.name ?? '<none>'}")`;
  const proxy = proxyFor(server, cluster.proxyUrl, internal.env ?? process.env);
  const credentials = credentialSource(user, cluster, {
    ...(internal.clock !== undefined ? { clock: internal.clock } : {}),
    ...(source instanceof Kubeconfig ? {} : { authProviderHost: source }),
  });

  // One agent per client certificate: an exec plugin may hand out a new one when the old expires.
  let agent: http.Agent | undefined;
  let agentCert: Credentials['cert'];
  let ca: Promise<string | Buffer | undefined> | undefined;
  let closed = false;
  /** The credentials each handed-out auth carried, for {@link Connection.unauthorized}. */
  const used = new WeakMap<RequestAuth, Credentials>();

  const auth = async (): Promise<RequestAuth> => {
    let creds: Credentials;
    try {
      creds = await credentials();
      ca ??= readCa(cluster).catch((e: unknown) => {
        ca = undefined;
        throw e;
      });
      await ca;
    } catch (e) {
      throw new KubeConfigError(
        `could not obtain credentials for ${description}: ${e instanceof Error ? e.message : String(e)}. ` +
          'Check the user entry of the kubeconfig (exec plugin, auth provider, token file, certificates).',
        e,
      );
    }
    if (closed) {
      throw new KubeConfigError(
        `the connection to ${description} was closed (client.close()); create a new client`,
      );
    }
    if (agent === undefined || agentCert !== creds.cert) {
      const old = agent;
      agent = await buildAgent(secure, tlsVerify, cluster, await ca, creds, proxy, options);
      agentCert = creds.cert;
      // sockets in use finish their requests; idle ones go now
      old?.destroy();
    }
    const auth: RequestAuth = { headers: creds.headers, agent };
    used.set(auth, creds);
    return auth;
  };

  return {
    server,
    tlsVerify,
    namespace: kc.getContextObject(contextName)?.namespace || 'default',
    description,
    auth,
    unauthorized(sent: RequestAuth): boolean {
      const creds = used.get(sent);
      return creds !== undefined && credentials.refresh !== undefined && credentials.refresh(creds);
    },
    close(): void {
      closed = true;
      agent?.destroy();
    },
  };
}

async function readCa(cluster: Cluster): Promise<string | Buffer | undefined> {
  if (cluster.caData !== undefined) return cluster.caData;
  if (cluster.caFile === undefined) return undefined;
  const { readFile } = await import('node:fs/promises');
  try {
    return await readFile(cluster.caFile);
  } catch (e) {
    throw new KubeConfigError(
      `could not read certificate-authority ${cluster.caFile} of cluster "${cluster.name}": ` +
        `${e instanceof Error ? e.message : String(e)}`,
      e,
    );
  }
}

/** Our {@link Kubeconfig}, or a client-node `KubeConfig` read into one (no client-node code runs). */
function asKubeconfig(source: KubeConfigSource): Kubeconfig {
  if (source instanceof Kubeconfig) return source;
  const cn = source as Partial<ClientNodeKubeConfig> | null;
  if (
    cn === null ||
    typeof cn !== 'object' ||
    typeof cn.getClusters !== 'function' ||
    typeof cn.getUsers !== 'function' ||
    typeof cn.getContexts !== 'function' ||
    typeof cn.getCurrentContext !== 'function'
  ) {
    throw new KubeConfigError(
      'connectionFromKubeConfig: kubeConfig must be a Kubeconfig (loadDefaultKubeConfig(), ' +
        'loadKubeConfigFile(path)) or a KubeConfig from @kubernetes/client-node.',
    );
  }
  return new Kubeconfig({
    // client-node keeps the *-data fields base64-encoded, as the file has them
    clusters: cn
      .getClusters()
      .map((c): Cluster => ({ ...c, ...(c.caData !== undefined ? { caData: unbase64(c.caData) } : {}) })),
    users: cn.getUsers().map((raw): User => {
      const u = {
        ...raw,
        ...(raw.certData !== undefined ? { certData: unbase64(raw.certData) } : {}),
        ...(raw.keyData !== undefined ? { keyData: unbase64(raw.keyData) } : {}),
      };
      // client-node keeps a token file as the auth-provider "tokenFile"
      const provider = u.authProvider as { name?: string; config?: Record<string, string> } | undefined;
      const tokenFile = provider?.name === 'tokenFile' ? provider.config?.['tokenFile'] : undefined;
      if (tokenFile !== undefined) {
        const rest: Record<string, unknown> = { ...u };
        delete rest['authProvider'];
        return { ...(rest as unknown as User), tokenFile };
      }
      return u;
    }),
    contexts: cn.getContexts().map((c): Context => ({ ...c })),
    currentContext: cn.getCurrentContext(),
  });
}

const unbase64 = (v: string): string => Buffer.from(v, 'base64').toString('utf8');

async function buildAgent(
  secure: boolean,
  tlsVerify: boolean,
  cluster: Cluster,
  ca: string | Buffer | undefined,
  creds: Credentials,
  proxy: URL | undefined,
  options: ConnectionOptions,
): Promise<http.Agent> {
  const common: http.AgentOptions = {
    keepAlive: true,
    keepAliveMsecs: 30_000,
    maxFreeSockets: options.maxFreeSockets ?? 16,
    ...(options.maxSockets !== undefined ? { maxSockets: options.maxSockets } : {}),
  };
  const tlsOptions: https.AgentOptions = secure
    ? {
        rejectUnauthorized: tlsVerify,
        ...(ca !== undefined ? { ca } : {}),
        ...(creds.cert !== undefined ? { cert: creds.cert } : {}),
        ...(creds.key !== undefined ? { key: creds.key } : {}),
        ...(cluster.tlsServerName !== undefined ? { servername: cluster.tlsServerName } : {}),
      }
    : {};
  if (proxy?.protocol === 'socks5:') return socksAgent(proxy, cluster, ca, creds, tlsVerify);
  if (proxy !== undefined) return tunnelAgent(proxy, secure, { ...common, ...tlsOptions });
  if (!secure) return new nodeHttp.Agent(common);
  return new nodeHttps.Agent({ ...common, ...tlsOptions });
}

/**
 * socks5 `proxy-url`: client-node's agent (socks-proxy-agent), imported only for it; client-node
 * builds its TLS options from the same CA, certificate and server name.
 */
async function socksAgent(
  proxy: URL,
  cluster: Cluster,
  ca: string | Buffer | undefined,
  creds: Credentials,
  tlsVerify: boolean,
): Promise<http.Agent> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const b64 = (v: string | Buffer | undefined): string | undefined =>
    v === undefined ? undefined : Buffer.from(v).toString('base64');
  const caData = b64(ca);
  const certData = b64(creds.cert);
  const keyData = b64(creds.key);
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      {
        name: cluster.name,
        server: cluster.server,
        proxyUrl: proxy.href,
        skipTLSVerify: !tlsVerify,
        ...(caData !== undefined ? { caData } : {}),
        ...(cluster.tlsServerName !== undefined ? { tlsServerName: cluster.tlsServerName } : {}),
      },
    ],
    users: [
      {
        name: 'socks',
        ...(certData !== undefined ? { certData } : {}),
        ...(keyData !== undefined ? { keyData } : {}),
      },
    ],
    contexts: [{ name: 'socks', cluster: cluster.name, user: 'socks' }],
    currentContext: 'socks',
  });
  const opts: https.RequestOptions = {};
  await kc.applyToHTTPSOptions(opts);
  if (!(opts.agent instanceof nodeHttp.Agent)) {
    throw new KubeConfigError(`cluster "${cluster.name}": could not build a socks5 agent for ${proxy.host}`);
  }
  return opts.agent;
}
