import { describe, expect, it } from 'vitest';

import { KubeConfigError } from '../errors.js';
import { noProxyMatches, proxyFor } from './proxy.js';

describe('proxyFor (net/http ProxyFromEnvironment, apimachinery NewProxierWithNoProxyCIDR)', () => {
  const remote = new URL('https://10.1.2.3:6443');

  it("prefers the cluster's proxy-url to the environment", () => {
    expect(proxyFor(remote, 'socks5://s:1080', { HTTPS_PROXY: 'http://env:3128' })?.href).toBe(
      'socks5://s:1080',
    );
  });

  it('reads HTTP_PROXY for http:// servers, HTTPS_PROXY for https://, upper case first', () => {
    const env = { HTTPS_PROXY: 'http://a:1', https_proxy: 'http://b:1', HTTP_PROXY: 'http://c:1' };
    expect(proxyFor(remote, undefined, env)?.host).toBe('a:1');
    expect(proxyFor(new URL('http://10.1.2.3:8080'), undefined, env)?.host).toBe('c:1');
  });

  it('never proxies localhost or loopback addresses unless proxy-url says so', () => {
    const env = { HTTPS_PROXY: 'http://a:1' };
    for (const s of [
      'https://127.0.0.1:6443',
      'https://127.9.9.9',
      'https://[::1]:6443',
      'https://localhost:6443',
    ]) {
      expect(proxyFor(new URL(s), undefined, env)).toBeUndefined();
    }
    expect(proxyFor(new URL('https://127.0.0.1:6443'), 'http://a:1', env)?.host).toBe('a:1');
  });

  it('refuses a proxy of another scheme, without echoing its credentials', () => {
    expect(() => proxyFor(remote, 'ftp://u:secret@p:21')).toThrow(KubeConfigError);
    expect(() => proxyFor(remote, 'ftp://u:secret@p:21')).toThrow(
      /proxy-url ftp:\/\/<credentials>@p:21 uses ftp:/,
    );
  });
});

describe('noProxyMatches', () => {
  const m = (server: string, noProxy: string): boolean => noProxyMatches(new URL(server), noProxy);

  it('matches *, names and their subdomains, with or without a leading dot', () => {
    expect(m('https://api.corp.example', '*')).toBe(true);
    expect(m('https://api.corp.example', 'corp.example')).toBe(true);
    expect(m('https://api.corp.example', '.corp.example')).toBe(true);
    expect(m('https://corp.example', '.corp.example')).toBe(true);
    expect(m('https://notcorp.example', 'corp.example')).toBe(false);
  });

  it('matches IPs and CIDRs, v4 and v6', () => {
    expect(m('https://10.1.2.3:6443', '10.1.2.3')).toBe(true);
    expect(m('https://10.1.2.3:6443', '10.0.0.0/8')).toBe(true);
    expect(m('https://11.1.2.3:6443', '10.0.0.0/8')).toBe(false);
    expect(m('https://[fd00::5]:6443', 'fd00::/64')).toBe(true);
    expect(m('https://[fd01::5]:6443', 'fd00::/64')).toBe(false);
  });

  it('honours a port on an entry', () => {
    expect(m('https://api.corp.example:6443', 'api.corp.example:6443')).toBe(true);
    expect(m('https://api.corp.example:443', 'api.corp.example:6443')).toBe(false);
    expect(m('https://api.corp.example', 'api.corp.example:443')).toBe(true);
  });
});
