/**
 * Kubernetes' URL library (`library/urls.go`): `url`, `isURL`, `getScheme`, `getHost`,
 * `getHostname`, `getPort`, `getEscapedPath`, `getQuery`. Go's `url.ParseRequestURI` accepts an
 * absolute URL or an absolute path; so does this.
 *
 * @module
 */
import type { Environment } from '@marcbachmann/cel-js';

import { evaluationError } from './errors.js';

/** A parsed URL with Go's field meanings (`Host` keeps the port; `Hostname` drops brackets). */
export class KubeURL {
  /** @param scheme scheme.  @param host host[:port].  @param path escaped path.  @param query raw query. */
  constructor(
    readonly scheme: string,
    readonly host: string,
    readonly path: string,
    readonly query: string,
  ) {}

  static parse(s: string): KubeURL | undefined {
    // Go's url.ParseRequestURI: no control characters; an absolute path or a scheme
    if ([...s].some((c) => c.charCodeAt(0) < 0x20 || c.charCodeAt(0) === 0x7f)) return undefined;
    if (s.startsWith('/')) {
      const [p = '', q = ''] = s.split('#')[0]?.split('?') ?? [];
      return new KubeURL('', '', escapePath(p), q);
    }
    const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):(\/\/([^/?#]*))?([^?#]*)(\?([^#]*))?/.exec(s);
    if (!m) return undefined;
    const authority = m[3] ?? '';
    const host = authority.slice(authority.lastIndexOf('@') + 1);
    if (/\s/.test(host)) return undefined;
    // a port is digits after the host's last colon (brackets around an IPv6 host)
    const afterHost = host.startsWith('[') ? host.slice(host.indexOf(']') + 1) : host;
    if (host.startsWith('[') && !host.includes(']')) return undefined;
    const colon = afterHost.indexOf(':');
    if (colon >= 0 && !/^:\d*$/.test(afterHost.slice(colon))) return undefined;
    return new KubeURL(m[1] ?? '', host, escapePath(m[4] ?? ''), m[6] ?? '');
  }

  get hostname(): string {
    const h = this.host;
    if (h.startsWith('[')) return h.slice(1, h.indexOf(']'));
    return h.replace(/:\d*$/, '');
  }

  get port(): string {
    const h = this.host;
    const m = /:(\d*)$/.exec(h.startsWith('[') ? h.slice(h.indexOf(']')) : h);
    return m?.[1] ?? '';
  }
}

/** Go's `URL.EscapedPath`: characters a path may not hold are percent-encoded. */
function escapePath(p: string): string {
  return p.replace(/[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/g, (c) => encodeURIComponent(c));
}

/** Registers the URL library. */
export function registerUrl(env: Environment): Environment {
  return env
    .registerType('kubernetes.URL', KubeURL)
    .registerFunction('url(string): kubernetes.URL', (s: string) => {
      const u = KubeURL.parse(s);
      if (!u)
        throw evaluationError(
          `URL parse error during conversion from string: parse "${s}": invalid URI for request`,
        );
      return u;
    })
    .registerFunction('isURL(string): bool', (s: string) => KubeURL.parse(s) !== undefined)
    .registerFunction('kubernetes.URL.getScheme(): string', (u: KubeURL) => u.scheme)
    .registerFunction('kubernetes.URL.getHost(): string', (u: KubeURL) => u.host)
    .registerFunction('kubernetes.URL.getHostname(): string', (u: KubeURL) => u.hostname)
    .registerFunction('kubernetes.URL.getPort(): string', (u: KubeURL) => u.port)
    .registerFunction('kubernetes.URL.getEscapedPath(): string', (u: KubeURL) => u.path)
    .registerFunction('kubernetes.URL.getQuery(): map<string, list<string>>', (u: KubeURL) => {
      const out = new Map<string, string[]>();
      for (const [k, v] of new URLSearchParams(u.query)) out.set(k, [...(out.get(k) ?? []), v]);
      return out;
    });
}
