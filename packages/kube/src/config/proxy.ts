/**
 * Proxies as client-go honours them: the cluster's `proxy-url` when set (http, https or
 * socks5), else `HTTPS_PROXY` / `HTTP_PROXY` with `NO_PROXY` from the environment (Go's
 * `http.ProxyFromEnvironment` with client-go's CIDR support, `utilnet.NewProxierWithNoProxyCIDR`),
 * never for localhost or a loopback address. HTTP(S) proxies are reached with `CONNECT` by an agent
 * of ours; socks5 goes through `@kubernetes/client-node`'s agent, imported only then.
 *
 * What it does not do: authenticate to the API server (credentials.ts) or log the proxy's
 * credentials (a `user:password@` in a proxy URL becomes a `Proxy-Authorization` header only).
 *
 * @module
 */
import type * as http from 'node:http';
import type * as https from 'node:https';
import { isIP } from 'node:net';
import type { Duplex } from 'node:stream';
import type * as tls from 'node:tls';

import { KubeConfigError } from '../errors.js';

// The builtin through process.getBuiltinModule, not an ESM import: importing node:http as an ES
// module runs every lazy getter of its exports, which loads Node's bundled undici (~35 ms at start).
const nodeHttp = process.getBuiltinModule('node:http');
const nodeHttps = process.getBuiltinModule('node:https');
// node:tls likewise (its ES namespace costs ~1.5 ms; the CommonJS module is loaded by https anyway)
const nodeTls = process.getBuiltinModule('node:tls');

/**
 * The proxy for requests to `server`, or undefined for a direct connection.
 * @throws {KubeConfigError} when the proxy URL is malformed or of an unsupported scheme.
 */
export function proxyFor(
  server: URL,
  proxyUrl: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): URL | undefined {
  let raw = proxyUrl;
  let from = 'proxy-url';
  if (raw === undefined || raw === '') {
    if (isLoopback(server.hostname)) return undefined;
    const get = (name: string): string | undefined => env[name] ?? env[name.toLowerCase()];
    raw = server.protocol === 'https:' ? get('HTTPS_PROXY') : get('HTTP_PROXY');
    from = server.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
    if (raw === undefined || raw === '') return undefined;
    if (noProxyMatches(server, get('NO_PROXY') ?? '')) return undefined;
    // Go reads a proxy without a scheme as http://
    if (!/^[a-z0-9+.-]+:\/\//i.test(raw)) raw = `http://${raw}`;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch (e) {
    throw new KubeConfigError(`${from} ${JSON.stringify(redact(raw))} is not a URL`, e);
  }
  if (!['http:', 'https:', 'socks5:'].includes(url.protocol)) {
    throw new KubeConfigError(
      `${from} ${redact(raw)} uses ${url.protocol}; client-go supports http, https and socks5 proxies`,
    );
  }
  return url;
}

function redact(raw: string): string {
  return raw.replace(/\/\/[^@/]*@/, '//<credentials>@');
}

function isLoopback(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  return h === 'localhost' || h === '::1' || (isIP(h) === 4 && h.startsWith('127.'));
}

/** Go's `NO_PROXY` rules: `*`, host names (with or without a leading dot: subdomains too), IPs, CIDRs, each optionally with a port. */
export function noProxyMatches(server: URL, noProxy: string): boolean {
  const host = server.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = server.port || (server.protocol === 'https:' ? '443' : '80');
  for (let entry of noProxy.split(',').map((s) => s.trim().toLowerCase())) {
    if (entry === '') continue;
    if (entry === '*') return true;
    if (entry.includes('/')) {
      if (inCidr(host, entry)) return true;
      continue;
    }
    let entryPort: string | undefined;
    const m = /^(.*?)(?::(\d+))?$/.exec(
      entry.startsWith('[') ? entry.replace(/^\[(.*)\](.*)$/, '$1$2') : entry,
    );
    if (m && isIP(entry) !== 6 && m[2] !== undefined) {
      entry = m[1] ?? entry;
      entryPort = m[2];
    }
    if (entryPort !== undefined && entryPort !== port) continue;
    if (isIP(entry) !== 0) {
      if (entry === host) return true;
      continue;
    }
    const bare = entry.startsWith('.') ? entry.slice(1) : entry;
    if (host === bare || host.endsWith(`.${bare}`)) return true;
  }
  return false;
}

function inCidr(host: string, cidr: string): boolean {
  const [net, bitsRaw] = cidr.split('/');
  const bits = Number(bitsRaw);
  if (net === undefined || isIP(host) === 0 || isIP(net) !== isIP(host) || !Number.isInteger(bits))
    return false;
  const toBits = (ip: string): bigint => {
    if (isIP(ip) === 4) return ip.split('.').reduce((n, p) => (n << 8n) + BigInt(Number(p)), 0n);
    const [head = '', tail = ''] = ip.split('::');
    const h = head ? head.split(':') : [];
    const t = tail ? tail.split(':') : [];
    const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
    return groups.reduce((n, g) => (n << 16n) + BigInt(parseInt(g || '0', 16)), 0n);
  };
  const width = isIP(host) === 4 ? 32 : 128;
  if (bits < 0 || bits > width) return false;
  const shift = BigInt(width - bits);
  return toBits(host) >> shift === toBits(net) >> shift;
}

type ConnectCallback = (err: Error | null, socket?: Duplex) => void;

/**
 * An agent that reaches the server through an HTTP(S) proxy's `CONNECT` tunnel, then speaks TLS
 * (or plain HTTP) to the server through it, keeping connections alive like a direct agent.
 */
export function tunnelAgent(proxy: URL, secure: boolean, options: https.AgentOptions): http.Agent {
  const proxyAuth =
    proxy.username !== ''
      ? `Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')}`
      : undefined;
  const open = (
    target: { host?: string | null | undefined; port?: number | string | null | undefined },
    cb: ConnectCallback,
    then: (s: Duplex) => Duplex,
  ): void => {
    const authority = `${target.host?.includes(':') === true ? `[${target.host}]` : (target.host ?? '')}:${String(target.port ?? (secure ? 443 : 80))}`;
    const req = (proxy.protocol === 'https:' ? nodeHttps : nodeHttp).request({
      host: proxy.hostname.replace(/^\[|\]$/g, ''),
      port: proxy.port || (proxy.protocol === 'https:' ? 443 : 80),
      method: 'CONNECT',
      path: authority,
      agent: false,
      headers: { Host: authority, ...(proxyAuth !== undefined ? { 'Proxy-Authorization': proxyAuth } : {}) },
    });
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        cb(
          new Error(
            `proxy ${proxy.host} refused CONNECT ${authority}: ${String(res.statusCode)} ${res.statusMessage ?? ''}`,
          ),
        );
        return;
      }
      cb(null, then(socket));
    });
    req.once('error', (e) => cb(new Error(`proxy ${proxy.host}: ${e.message}`)));
    req.end();
  };
  if (secure) {
    class Tunnel extends nodeHttps.Agent {
      override createConnection(
        o: tls.ConnectionOptions & { host?: string },
        cb: ConnectCallback,
      ): undefined {
        open(o, cb, (socket) => nodeTls.connect({ ...o, socket }));
        return undefined;
      }
    }
    return new Tunnel(options);
  }
  class PlainTunnel extends nodeHttp.Agent {
    override createConnection(o: { host?: string; port?: number }, cb: ConnectCallback): undefined {
      open(o, cb, (socket) => socket);
      return undefined;
    }
  }
  return new PlainTunnel(options);
}
