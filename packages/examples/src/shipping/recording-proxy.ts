/**
 * A recording HTTP proxy for tests: sits between an operator's client and an API server, forwards
 * every request unchanged (watch streams included, byte for byte), and records what was asked and
 * what was answered — the request log `@rxkube/testing`'s API server does not keep. With it a test
 * can count 401/403 answers and list which (group, resource, verb) an operator actually used.
 *
 * What it does not do: TLS (it speaks plain HTTP on both sides), rewrite anything, or buffer.
 *
 * @module
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';

/** One request as the Kubernetes authorizer would see it, and its answer. */
export interface RecordedRequest {
  readonly method: string;
  /** Path and query, as sent. */
  readonly url: string;
  /** HTTP status of the answer (the first line; a watch answers 200 and then streams). */
  readonly status: number;
  /** The authorizer's verb: get, list, watch, create, update, patch, delete, deletecollection. */
  readonly verb: string;
  /** `undefined` for non-resource requests (discovery, /version, /openapi). */
  readonly resource?: {
    readonly group: string;
    readonly version: string;
    readonly resource: string;
    readonly subresource?: string;
    readonly namespace?: string;
    readonly name?: string;
  };
}

/** What {@link parseKubeRequest} finds in a method and URL. */
export type KubeRequestAttributes = Pick<RecordedRequest, 'verb' | 'resource'>;

/**
 * The authorizer attributes of a request, like kube-apiserver's RequestInfoFactory: resource
 * paths `/api/v1/…` and `/apis/<group>/<version>/…` (namespaced or not, with name and
 * subresource), `watch=true` and the legacy `/watch/` prefix; anything else is a non-resource
 * request whose verb is the lower-case method.
 *
 * ## Example
 * ```ts
 * parseKubeRequest('PATCH', '/apis/example.com/v1/namespaces/a/widgets/w/status');
 * // { verb: 'patch', resource: { group: 'example.com', version: 'v1', resource: 'widgets',
 * //   subresource: 'status', namespace: 'a', name: 'w' } }
 * ```
 */
export function parseKubeRequest(method: string, url: string): KubeRequestAttributes {
  const parsed = new URL(url, 'http://proxy.invalid');
  let parts = parsed.pathname.split('/').filter((p) => p !== '');
  const m = method.toUpperCase();
  let group: string;
  let version: string;
  if (parts[0] === 'api' && parts.length >= 2) {
    group = '';
    version = parts[1] ?? '';
    parts = parts.slice(2);
  } else if (parts[0] === 'apis' && parts.length >= 3) {
    group = parts[1] ?? '';
    version = parts[2] ?? '';
    parts = parts.slice(3);
  } else {
    return { verb: m.toLowerCase() };
  }
  if (parts.length === 0) return { verb: m.toLowerCase() };
  let legacyWatch = false;
  if (parts[0] === 'watch') {
    legacyWatch = true;
    parts = parts.slice(1);
  }
  let namespace: string | undefined;
  // namespaces/<ns>/<resource>… except namespaces/<name>/{status,finalize} (the Namespace's own subresources)
  if (
    parts[0] === 'namespaces' &&
    parts.length >= 3 &&
    !(parts.length === 3 && (parts[2] === 'status' || parts[2] === 'finalize'))
  ) {
    namespace = parts[1];
    parts = parts.slice(2);
  }
  const [resource = '', name, subresource] = parts;
  const watch = legacyWatch || /^(1|true)$/i.test(parsed.searchParams.get('watch') ?? '');
  let verb: string;
  if (m === 'GET' || m === 'HEAD') verb = watch ? 'watch' : name === undefined ? 'list' : 'get';
  else if (m === 'POST') verb = 'create';
  else if (m === 'PUT') verb = 'update';
  else if (m === 'PATCH') verb = 'patch';
  else if (m === 'DELETE') verb = name === undefined ? 'deletecollection' : 'delete';
  else verb = m.toLowerCase();
  return {
    verb,
    resource: {
      group,
      version,
      resource,
      ...(subresource !== undefined ? { subresource } : {}),
      ...(namespace !== undefined ? { namespace } : {}),
      ...(name !== undefined ? { name } : {}),
    },
  };
}

/** A running {@link startRecordingProxy}. */
export interface RecordingProxy {
  /** `http://127.0.0.1:PORT`: point a kubeconfig's cluster `server` here. */
  readonly url: string;
  /** Every request answered so far, in the order the answers started. */
  readonly requests: readonly RecordedRequest[];
  /** Stops listening and cuts every connection (open watches included). Idempotent. */
  close(): Promise<void>;
}

/**
 * Starts a proxy on a free loopback port forwarding to `target` (an `http://` API server URL).
 *
 * ## Example
 * ```ts
 * const proxy = await startRecordingProxy(server.url);
 * // … run an operator whose kubeconfig points at proxy.url …
 * expect(proxy.requests.filter((r) => r.status === 403)).toEqual([]);
 * await proxy.close();
 * ```
 */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const upstream = new URL(target);
  if (upstream.protocol !== 'http:') {
    throw new Error(
      `startRecordingProxy: target ${target} must be an http:// URL (the proxy does not speak TLS)`,
    );
  }
  const agent = new Agent({ keepAlive: true });
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  const handler = (req: IncomingMessage, res: ServerResponse): void => {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const up = httpRequest(
      {
        agent,
        host: upstream.hostname,
        port: upstream.port,
        method,
        path: url,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        const status = answer.statusCode ?? 0;
        requests.push({ method, url, status, ...parseKubeRequest(method, url) });
        res.writeHead(status, answer.headers);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    up.on('error', () => {
      if (!res.headersSent) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`recording proxy: ${method} ${url}: upstream ${target} failed`);
      } else res.destroy();
    });
    // A client that goes away (an unsubscribed watch) ends the upstream request too.
    res.on('close', () => up.destroy());
    req.pipe(up);
  };
  const server: Server = createServer(handler);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  let closing: Promise<void> | undefined;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      (closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
        agent.destroy();
      })),
  };
}
