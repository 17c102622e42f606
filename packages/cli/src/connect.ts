/**
 * The CLI's connection: an explicit `--kubeconfig`, else the default kubeconfig (`KUBECONFIG`,
 * `~/.kube/config`, in-cluster) — refusing clearly when there is none, and checking that the
 * server answers before the operator starts.
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeClient, loadDefaultKubeConfig, loadKubeConfigFile } from '@rxkube/kube';
import { isUnauthorized } from '@rxkube/kube/client';
import type { Kubeconfig } from '@rxkube/kube/config';

import { CliError } from './errors.js';

const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Where a kubeconfig would come from, or `undefined` when there is none.
 *
 * ## Example
 * ```ts
 * kubeconfigSource(process.env); // 'KUBECONFIG=/tmp/kubeconfig'
 * ```
 */
export function kubeconfigSource(
  env: Readonly<Record<string, string | undefined>> = process.env,
  exists: (path: string) => boolean = existsSync,
): string | undefined {
  const list = env['KUBECONFIG'];
  if (list !== undefined && list !== '') {
    const found = list.split(delimiter).filter((p) => p !== '' && exists(p));
    return found.length > 0 ? `KUBECONFIG=${found.join(delimiter)}` : undefined;
  }
  const home = join(env['HOME'] ?? homedir(), '.kube', 'config');
  if (exists(home)) return home;
  if (env['KUBERNETES_SERVICE_HOST'] !== undefined && exists(IN_CLUSTER_TOKEN))
    return 'in-cluster service account';
  return undefined;
}

/**
 * A client for `--kubeconfig` or the default kubeconfig, after checking the server answers.
 *
 * ## Example
 * ```ts
 * const { client, server } = await connect({ kubeconfig: undefined });
 * ```
 * @throws {CliError} `NoKubeconfig` when no kubeconfig exists; `Unauthenticated` when the server
 *   answers 401 (it was reached: the credentials are wrong); `Unreachable` when it does not answer
 *   discovery (connection refused, DNS, TLS, 403).
 */
export async function connect(options: {
  readonly kubeconfig?: string | undefined;
  readonly env?: Readonly<Record<string, string | undefined>>;
}): Promise<{ client: KubeClient; server: string }> {
  let kc: Kubeconfig;
  if (options.kubeconfig !== undefined) {
    if (!existsSync(options.kubeconfig)) {
      throw new CliError('NoKubeconfig', `--kubeconfig ${options.kubeconfig} does not exist`);
    }
    kc = loadKubeConfigFile(options.kubeconfig);
  } else {
    const source = kubeconfigSource(options.env ?? process.env);
    if (source === undefined) {
      const list = (options.env ?? process.env)['KUBECONFIG'];
      throw new CliError(
        'NoKubeconfig',
        `no kubeconfig found: ${list ? `none of KUBECONFIG=${list} exists` : 'KUBECONFIG is not set'}, ` +
          '~/.kube/config does not exist and this is not a pod with a service account. ' +
          'Set KUBECONFIG, pass --kubeconfig PATH, or add --embedded to run against an in-memory API server.',
      );
    }
    kc = loadDefaultKubeConfig();
  }
  const server = kc.getCurrentCluster()?.server ?? '<no server in the current context>';
  const client = KubeClient.fromKubeConfig(kc);
  try {
    await client.discovery.resources('v1');
  } catch (error) {
    client.close();
    const context = kc.getCurrentContext();
    if (isUnauthorized(error)) {
      throw new CliError(
        'Unauthenticated',
        `the API server at ${server} (context ${context}) rejected the credentials of user ` +
          `"${kc.getCurrentUser()?.name ?? '?'}" (401 Unauthorized): the server was reached, so this is ` +
          'an authentication problem — an expired or wrong token, a client certificate it does not trust, ' +
          'or a failing exec/OIDC plugin. Refresh the credentials in the kubeconfig (e.g. log in again).',
        { cause: error },
      );
    }
    throw new CliError(
      'Unreachable',
      `cannot reach the API server at ${server} (context ${context}): ` +
        `${error instanceof Error ? error.message : String(error)}. ` +
        'Check that the cluster is running and the kubeconfig points at it, or use --embedded.',
      { cause: error },
    );
  }
  return { client, server };
}
