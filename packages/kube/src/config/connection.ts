/**
 * The kubeconfig adapter: the only file that touches `@kubernetes/client-node`'s `KubeConfig`.
 * It turns a kubeconfig (default file, `KUBECONFIG`, in-cluster service account) into what the
 * transport needs: the server URL, a keep-alive `http(s).Agent` with the cluster's TLS settings,
 * and fresh credentials per request (bearer token, token file, exec and OIDC plugins, basic auth,
 * client certificates, impersonation) through client-node's `applyToHTTPSOptions`.
 *
 * What it does not do: send requests (that is the transport) or log anything — credentials never
 * leave this file except as request headers.
 *
 * @module
 */
import * as http from 'node:http';
import * as https from 'node:https';

import { KubeConfig } from '@kubernetes/client-node';

import { KubeConfigError } from '../errors.js';

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
 * const conn = connectionFromKubeConfig(kubeConfig);
 * const auth: RequestAuth = await conn.auth();
 * https.get(new URL('/version', conn.server), { agent: auth.agent, headers: auth.headers }); // never log auth.headers
 * ```
 */
export interface RequestAuth {
  /** `Authorization`, `Impersonate-User`, … as client-node computed them. */
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
  /** Destroys the agent's sockets; later {@link auth} calls fail. */
  close(): void;
}

/**
 * Loads the default kubeconfig the way kubectl and client-node do: `KUBECONFIG` (a path list),
 * else `~/.kube/config`, else the in-cluster service account.
 *
 * ## Example
 * ```ts
 * const client = KubeClient.fromKubeConfig(loadDefaultKubeConfig());
 * ```
 *
 * @throws {KubeConfigError} when a kubeconfig file exists but cannot be parsed.
 */
export function loadDefaultKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromDefault();
  } catch (e) {
    throw new KubeConfigError(
      `could not load the default kubeconfig (KUBECONFIG=${process.env['KUBECONFIG'] ?? '<unset>'}, ` +
        `~/.kube/config or the in-cluster service account): ${e instanceof Error ? e.message : String(e)}`,
      e,
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
export function loadKubeConfigFile(path: string): KubeConfig {
  const kc = new KubeConfig();
  try {
    kc.loadFromFile(path);
  } catch (e) {
    throw new KubeConfigError(
      `could not load kubeconfig file ${path}: ${e instanceof Error ? e.message : String(e)}`,
      e,
    );
  }
  return kc;
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
 * - TLS: the cluster's CA (`certificate-authority(-data)`), client certificate and key,
 *   `tls-server-name`; verification is on (`rejectUnauthorized: true`, whatever
 *   `NODE_TLS_REJECT_UNAUTHORIZED` says) unless the cluster sets `insecure-skip-tls-verify: true`.
 * - `http://` servers are used as written (as kubectl does, e.g. `kubectl proxy`); client-node
 *   alone refuses them without `insecure-skip-tls-verify`.
 * - A cluster `proxy-url` uses client-node's proxy agent; otherwise a keep-alive agent of ours.
 * - Credentials are computed per request by client-node (`applyToHTTPSOptions`), so exec, OIDC
 *   and token-file credentials are refreshed as they expire.
 *
 * @throws {KubeConfigError} when the current context, its cluster, or the server URL is unusable.
 */
export function connectionFromKubeConfig(kc: KubeConfig, options: ConnectionOptions = {}): Connection {
  if (!(kc instanceof KubeConfig)) {
    throw new KubeConfigError(
      'connectionFromKubeConfig: kubeConfig must be a KubeConfig from @kubernetes/client-node ' +
        '(e.g. loadDefaultKubeConfig()).',
    );
  }
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
  const tlsVerify = !cluster.skipTLSVerify;
  const secure = server.protocol === 'https:';
  // client-node's applyToHTTPSOptions refuses http:// without skipTLSVerify (it builds an agent we
  // do not use). For http:// servers, ask a view of the same kubeconfig whose cluster is marked
  // insecure; TLS settings do not apply to plain HTTP anyway.
  const credentials = secure || cluster.skipTLSVerify ? kc : plainHttpView(kc, cluster.name);
  const description =
    `context "${contextName}" (cluster "${cluster.name}" at ${server.origin}${server.pathname === '/' ? '' : server.pathname}, ` +
    `user "${user?.name ?? '<none>'}")`;

  let agent: http.Agent | undefined;
  let closed = false;

  const auth = async (): Promise<RequestAuth> => {
    const opts: https.RequestOptions = { headers: {} };
    try {
      await credentials.applyToHTTPSOptions(opts);
    } catch (e) {
      throw new KubeConfigError(
        `could not obtain credentials for ${description}: ${e instanceof Error ? e.message : String(e)}. ` +
          'Check the user entry of the kubeconfig (exec plugin, OIDC provider, token file, certificates).',
        e,
      );
    }
    if (closed) {
      throw new KubeConfigError(
        `the connection to ${description} was closed (client.close()); create a new client`,
      );
    }
    agent ??= buildAgent(secure, tlsVerify, opts, cluster.proxyUrl, options);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(opts.headers ?? {})) {
      if (typeof v === 'string') headers[k] = v;
      else if (typeof v === 'number') headers[k] = String(v);
      else if (Array.isArray(v)) headers[k] = v.join(', ');
    }
    if (typeof opts.auth === 'string' && opts.auth !== '' && headers['Authorization'] === undefined) {
      headers['Authorization'] = `Basic ${Buffer.from(opts.auth).toString('base64')}`;
    }
    return { headers, agent };
  };

  return {
    server,
    tlsVerify,
    namespace: kc.getContextObject(contextName)?.namespace || 'default',
    description,
    auth,
    close(): void {
      closed = true;
      agent?.destroy();
    },
  };
}

function plainHttpView(kc: KubeConfig, clusterName: string): KubeConfig {
  const view = new KubeConfig();
  view.loadFromOptions({
    clusters: kc.getClusters().map((c) => (c.name === clusterName ? { ...c, skipTLSVerify: true } : c)),
    users: kc.getUsers(),
    contexts: kc.getContexts(),
    currentContext: kc.getCurrentContext(),
  });
  return view;
}

function buildAgent(
  secure: boolean,
  tlsVerify: boolean,
  opts: https.RequestOptions,
  proxyUrl: string | undefined,
  options: ConnectionOptions,
): http.Agent {
  if (proxyUrl !== undefined && proxyUrl !== '' && opts.agent instanceof http.Agent) {
    // client-node's proxy agents (hpagent, socks) carry the TLS options already.
    return opts.agent;
  }
  const common: http.AgentOptions = {
    keepAlive: true,
    keepAliveMsecs: 30_000,
    maxFreeSockets: options.maxFreeSockets ?? 16,
    ...(options.maxSockets !== undefined ? { maxSockets: options.maxSockets } : {}),
  };
  if (!secure) return new http.Agent(common);
  return new https.Agent({
    ...common,
    rejectUnauthorized: tlsVerify,
    ...(opts.ca !== undefined ? { ca: opts.ca } : {}),
    ...(opts.cert !== undefined ? { cert: opts.cert } : {}),
    ...(opts.key !== undefined ? { key: opts.key } : {}),
    ...(opts.pfx !== undefined ? { pfx: opts.pfx } : {}),
    ...(opts.passphrase !== undefined ? { passphrase: opts.passphrase } : {}),
    ...(opts.servername !== undefined ? { servername: opts.servername } : {}),
  });
}
