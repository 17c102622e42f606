/**
 * A kubeconfig user's credentials for one request, computed as client-go computes them: a bearer
 * token (or a token file re-read every minute), basic auth, client certificates (inline or by
 * file), an exec credential plugin (cached until it expires), impersonation headers, and
 * `auth-provider` plugins through `@kubernetes/client-node`, imported only when a user has one
 * (client-node alone implements oidc and the cloud providers' legacy plugins).
 *
 * What it does not do: build agents or send requests (connection.ts), or log: no token leaves
 * this file except in the headers it returns.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';

import { KubeConfigError } from '../errors.js';
import { ExecCredentialPlugin } from './exec-credential.js';
import type { Clock, ExecCredential } from './exec-credential.js';
import type { Cluster, User } from './kubeconfig.js';

/** What one request carries: headers, and the client certificate when the user has one. */
export interface Credentials {
  readonly headers: Record<string, string>;
  readonly cert?: string | Buffer;
  readonly key?: string | Buffer;
}

export type { Clock };

/** Matches no cached credential: `invalidate` of a credential this source did not hand out. */
const PLUGIN_CREDENTIAL_UNKNOWN: ExecCredential = Object.freeze({});

/** client-go re-reads a token file at most once a minute (`transport.NewCachedFileTokenSource`). */
export const TOKEN_FILE_REREAD_MS = 60_000;

/** A client-node `KubeConfig`, as much of it as the auth-provider path uses. */
export interface AuthProviderHost {
  applyToHTTPSOptions(opts: { headers?: Record<string, unknown> }): Promise<void>;
}

/**
 * The credentials of one request, computed afresh per request; `refresh` (when the user's
 * credential can be refreshed: an exec plugin) forgets the credential a request answered 401
 * carried and returns `true`: the next call runs the plugin again.
 */
export interface CredentialSource {
  (): Promise<Credentials>;
  readonly refresh?: (used: Credentials) => boolean;
}

/**
 * The credential source of one user. `authProviderHost` is the caller's client-node `KubeConfig`
 * when the kubeconfig came as one (so its plugin caches survive), else built on first use.
 */
export function credentialSource(
  user: User | null,
  cluster: Cluster,
  options: { clock?: Clock; authProviderHost?: AuthProviderHost } = {},
): CredentialSource {
  const clock = options.clock ?? Date;
  const fixed: Record<string, string> = {};
  if (user?.impersonateUser !== undefined) fixed['Impersonate-User'] = user.impersonateUser;
  if (user?.impersonateUid !== undefined) fixed['Impersonate-Uid'] = user.impersonateUid;
  const groups = user?.impersonateGroups ?? [];
  const extra = Object.entries(user?.impersonateUserExtra ?? {});
  const withImpersonation = (h: Record<string, string>): Record<string, string> => {
    const out = { ...h, ...fixed };
    // Node joins repeated headers given as arrays; one value per group is what the API server
    // reads, and it accepts the comma-joined form for Impersonate-Group too (it splits headers).
    if (groups.length > 0) out['Impersonate-Group'] = groups.join(', ');
    for (const [k, vs] of extra)
      out[`Impersonate-Extra-${encodeURIComponent(k)}`] = vs.map(encodeURIComponent).join(', ');
    return out;
  };

  if (user === null) return () => Promise.resolve({ headers: withImpersonation({}) });

  const certSource = clientCertificate(user);
  const hasToken = user.token !== undefined || user.tokenFile !== undefined;
  const hasBasic = user.username !== undefined || user.password !== undefined;
  const hasCert = user.certData !== undefined || user.certFile !== undefined;

  // client-go (plugin/pkg/client/auth/exec): an explicit token, basic auth or client
  // certificate wins over the exec plugin, which then never runs.
  if (user.exec !== undefined && !hasToken && !hasBasic && !hasCert) {
    const plugin = new ExecCredentialPlugin(user.exec, cluster, clock);
    const from = new WeakMap<Credentials, ExecCredential>();
    const source = async (): Promise<Credentials> => {
      const c = await plugin.credential();
      const headers = withImpersonation(c.token !== undefined ? { Authorization: `Bearer ${c.token}` } : {});
      const creds: Credentials =
        c.cert !== undefined && c.key !== undefined ? { headers, cert: c.cert, key: c.key } : { headers };
      from.set(creds, c);
      return creds;
    };
    return Object.assign(source, {
      refresh: (used: Credentials): boolean => {
        plugin.invalidate(from.get(used) ?? PLUGIN_CREDENTIAL_UNKNOWN);
        return true;
      },
    });
  }

  if (user.authProvider !== undefined && !hasToken && !hasBasic) {
    let host: Promise<AuthProviderHost> | undefined;
    return async () => {
      host ??=
        options.authProviderHost !== undefined
          ? Promise.resolve(options.authProviderHost)
          : clientNodeHost(user, cluster);
      const opts: { headers: Record<string, unknown> } = { headers: {} };
      await (await host).applyToHTTPSOptions(opts);
      const headers: Record<string, string> = {};
      const auth = opts.headers['Authorization'] ?? opts.headers['authorization'];
      if (typeof auth === 'string') headers['Authorization'] = auth;
      return { headers: withImpersonation(headers), ...(await certSource()) };
    };
  }

  let token = user.token;
  let readAt = Number.NEGATIVE_INFINITY;
  const tokenFile = user.tokenFile;
  const basic =
    hasBasic && !hasToken
      ? `Basic ${Buffer.from(`${user.username ?? ''}:${user.password ?? ''}`).toString('base64')}`
      : undefined;
  return async () => {
    if (tokenFile !== undefined && clock.now() - readAt >= TOKEN_FILE_REREAD_MS) {
      try {
        token = (await readFile(tokenFile, 'utf8')).trim();
        readAt = clock.now();
      } catch (e) {
        // client-go keeps the last token it read when a re-read fails
        if (token === undefined) {
          throw new KubeConfigError(
            `could not read the token file ${tokenFile} of user "${user.name}": ` +
              `${e instanceof Error ? e.message : String(e)}`,
            e,
          );
        }
      }
    }
    const headers: Record<string, string> = {};
    if (token !== undefined && token !== '') headers['Authorization'] = `Bearer ${token}`;
    else if (basic !== undefined) headers['Authorization'] = basic;
    return { headers: withImpersonation(headers), ...(await certSource()) };
  };
}

/** The user's client certificate and key (PEM), read once; files are read on first use. */
function clientCertificate(user: User): () => Promise<{ cert?: string | Buffer; key?: string | Buffer }> {
  if (user.certData === undefined && user.certFile === undefined) return () => Promise.resolve({});
  let pair: Promise<{ cert: string | Buffer; key: string | Buffer }> | undefined;
  return () =>
    (pair ??= (async () => {
      const read = async (data: string | undefined, file: string | undefined, what: string) => {
        if (data !== undefined) return data;
        if (file === undefined) {
          throw new KubeConfigError(
            `user "${user.name}" has a client certificate but no ${what}: set client-${what}-data or client-${what}`,
          );
        }
        try {
          return await readFile(file);
        } catch (e) {
          throw new KubeConfigError(
            `could not read the client ${what} file ${file} of user "${user.name}": ` +
              `${e instanceof Error ? e.message : String(e)}`,
            e,
          );
        }
      };
      return {
        cert: await read(user.certData, user.certFile, 'certificate'),
        key: await read(user.keyData, user.keyFile, 'key'),
      };
    })().catch((e: unknown) => {
      pair = undefined;
      throw e;
    }));
}

/**
 * A client-node `KubeConfig` holding this one user, for its auth-provider plugins. The import is
 * lazy: the watch path never loads client-node's generated API unless a kubeconfig needs it.
 */
async function clientNodeHost(user: User, cluster: Cluster): Promise<AuthProviderHost> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: cluster.name, server: cluster.server, skipTLSVerify: true }],
    users: [
      { name: user.name, ...(user.authProvider !== undefined ? { authProvider: user.authProvider } : {}) },
    ],
    contexts: [{ name: 'auth-provider', cluster: cluster.name, user: user.name }],
    currentContext: 'auth-provider',
  });
  return kc;
}
