/**
 * Kubernetes' IP and CIDR libraries (`library/ip.go`, `library/cidr.go`): `ip`, `isIP`,
 * `family`, `isUnspecified`, `isLoopback`, `isLinkLocalMulticast`, `isLinkLocalUnicast`,
 * `isGlobalUnicast`, `cidr`, `isCIDR`, `containsIP`, `containsCIDR`, `prefixLength`, `masked`,
 * `ip()` of a CIDR, `string()`. As Kubernetes: no zones, no IPv4-mapped IPv6, no leading zeros.
 *
 * @module
 */
import type { Environment } from '@marcbachmann/cel-js';

import { evaluationError } from './errors.js';

/** An IPv4 or IPv6 address as a number of `family === 4 ? 32 : 128` bits. */
export class IP {
  /** @param family 4 or 6.  @param bits the address. */
  constructor(
    readonly family: 4 | 6,
    readonly bits: bigint,
  ) {}

  get width(): bigint {
    return this.family === 4 ? 32n : 128n;
  }

  toString(): string {
    if (this.family === 4) return [24n, 16n, 8n, 0n].map((s) => String((this.bits >> s) & 255n)).join('.');
    const groups = Array.from({ length: 8 }, (_, i) => (this.bits >> BigInt((7 - i) * 16)) & 0xffffn);
    // RFC 5952: the longest run (≥ 2) of zero groups becomes ::
    let best = -1;
    let bestLen = 1;
    for (let i = 0; i < 8;) {
      let j = i;
      while (j < 8 && groups[j] === 0n) j++;
      if (j - i > bestLen) [best, bestLen] = [i, j - i];
      i = j === i ? i + 1 : j;
    }
    const hex = groups.map((g) => g.toString(16));
    if (best < 0) return hex.join(':');
    return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLen).join(':')}`;
  }
}

/** A CIDR: an address and a prefix length. */
export class CIDR {
  /** @param ip the address as written.  @param prefix the prefix length. */
  constructor(
    readonly ip: IP,
    readonly prefix: bigint,
  ) {}

  contains(ip: IP): boolean {
    if (ip.family !== this.ip.family) return false;
    const shift = this.ip.width - this.prefix;
    return ip.bits >> shift === this.ip.bits >> shift;
  }

  masked(): CIDR {
    const shift = this.ip.width - this.prefix;
    return new CIDR(new IP(this.ip.family, (this.ip.bits >> shift) << shift), this.prefix);
  }

  toString(): string {
    return `${this.ip.toString()}/${this.prefix}`;
  }
}

function parseV4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(p) || Number(p) > 255) return undefined;
    v = (v << 8n) | BigInt(p);
  }
  return v;
}

function parseV6(s: string): bigint | undefined {
  if (!/^[0-9a-fA-F:.]+$/.test(s)) return undefined;
  const halves = s.split('::');
  if (halves.length > 2) return undefined;
  const groups = (h: string): bigint[] | undefined => {
    if (h === '') return [];
    const out: bigint[] = [];
    const parts = h.split(':');
    for (const [i, p] of parts.entries()) {
      if (i === parts.length - 1 && p.includes('.')) {
        const v4 = parseV4(p);
        if (v4 === undefined) return undefined;
        out.push(v4 >> 16n, v4 & 0xffffn);
      } else if (/^[0-9a-fA-F]{1,4}$/.test(p)) out.push(BigInt(`0x${p}`));
      else return undefined;
    }
    return out;
  };
  const head = groups(halves[0] ?? '');
  const tail = halves.length === 2 ? groups(halves[1] ?? '') : [];
  if (!head || !tail) return undefined;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  return [...head, ...Array<bigint>(missing).fill(0n), ...tail].reduce((a, g) => (a << 16n) | g, 0n);
}

/** Parses an address as Kubernetes' `ip()` does; returns the error text on failure. */
export function parseIP(s: string): IP | string {
  if (s.includes('%')) return `IP address "${s}" with zone value is not allowed`;
  const v4 = parseV4(s);
  if (v4 !== undefined) return new IP(4, v4);
  const v6 = parseV6(s);
  if (v6 === undefined)
    return `IP Address "${s}" parse error during conversion from string: ParseAddr("${s}"): unable to parse IP`;
  if (v6 >> 32n === 0xffffn) return `IPv4-mapped IPv6 address "${s}" is not allowed`;
  return new IP(6, v6);
}

/** Parses a prefix as Kubernetes' `cidr()` does; returns the error text on failure. */
export function parseCIDR(s: string): CIDR | string {
  const slash = s.lastIndexOf('/');
  const ip =
    slash < 0
      ? `network address parse error during conversion from string: netip.ParsePrefix("${s}"): no '/'`
      : parseIP(s.slice(0, slash));
  if (typeof ip === 'string') return ip;
  const len = s.slice(slash + 1);
  if (!/^(0|[1-9][0-9]*)$/.test(len) || BigInt(len) > ip.width)
    return `network address parse error during conversion from string: netip.ParsePrefix("${s}"): bad bits after slash: "${len}"`;
  return new CIDR(ip, BigInt(len));
}

const must = <T>(v: T | string): T => {
  if (typeof v === 'string') throw evaluationError(v);
  return v;
};

/** Registers the IP and CIDR libraries. */
export function registerIP(env: Environment): Environment {
  const v4 = (ip: IP, base: number, len: number): boolean =>
    ip.family === 4 && ip.bits >> BigInt(32 - len) === BigInt(base) >> BigInt(32 - len);
  const v6 = (ip: IP, base: bigint, len: number): boolean =>
    ip.family === 6 && ip.bits >> BigInt(128 - len) === base >> BigInt(128 - len);
  return env
    .registerType('net.IP', IP)
    .registerType('net.CIDR', CIDR)
    .registerFunction('ip(string): net.IP', (s: string) => must(parseIP(s)))
    .registerOperator('net.IP == net.IP', (a: IP, b: IP) => a.family === b.family && a.bits === b.bits)
    .registerOperator(
      'net.CIDR == net.CIDR',
      (a: CIDR, b: CIDR) => a.prefix === b.prefix && a.ip.family === b.ip.family && a.ip.bits === b.ip.bits,
    )
    .registerFunction('isIP(string): bool', (s: string) => typeof parseIP(s) !== 'string')
    .registerFunction('string(net.IP): string', (ip: IP) => ip.toString())
    .registerFunction('net.IP.family(): int', (ip: IP) => BigInt(ip.family))
    .registerFunction('net.IP.isUnspecified(): bool', (ip: IP) => ip.bits === 0n)
    .registerFunction(
      'net.IP.isLoopback(): bool',
      (ip: IP) => v4(ip, 0x7f000000, 8) || (ip.family === 6 && ip.bits === 1n),
    )
    .registerFunction(
      'net.IP.isLinkLocalMulticast(): bool',
      (ip: IP) => v4(ip, 0xe0000000, 24) || v6(ip, 0xff02n << 112n, 16),
    )
    .registerFunction(
      'net.IP.isLinkLocalUnicast(): bool',
      (ip: IP) => v4(ip, 0xa9fe0000, 16) || v6(ip, 0xfe80n << 112n, 10),
    )
    .registerFunction(
      'net.IP.isGlobalUnicast(): bool',
      (ip: IP) =>
        ip.bits !== 0n &&
        !v4(ip, 0xffffffff, 32) &&
        !v4(ip, 0x7f000000, 8) &&
        !(ip.family === 6 && ip.bits === 1n) &&
        !v4(ip, 0xe0000000, 4) &&
        !v6(ip, 0xffn << 120n, 8) &&
        !v4(ip, 0xa9fe0000, 16) &&
        !v6(ip, 0xfe80n << 112n, 10),
    )
    .registerFunction('cidr(string): net.CIDR', (s: string) => must(parseCIDR(s)))
    .registerFunction('isCIDR(string): bool', (s: string) => typeof parseCIDR(s) !== 'string')
    .registerFunction('string(net.CIDR): string', (c: CIDR) => c.toString())
    .registerFunction('net.CIDR.containsIP(net.IP): bool', (c: CIDR, ip: IP) => c.contains(ip))
    .registerFunction('net.CIDR.containsIP(string): bool', (c: CIDR, s: string) =>
      c.contains(must(parseIP(s))),
    )
    .registerFunction(
      'net.CIDR.containsCIDR(net.CIDR): bool',
      (c: CIDR, o: CIDR) => o.prefix >= c.prefix && c.contains(o.ip),
    )
    .registerFunction('net.CIDR.containsCIDR(string): bool', (c: CIDR, s: string) => {
      const o = must(parseCIDR(s));
      return o.prefix >= c.prefix && c.contains(o.ip);
    })
    .registerFunction('net.CIDR.ip(): net.IP', (c: CIDR) => c.ip)
    .registerFunction('net.CIDR.masked(): net.CIDR', (c: CIDR) => c.masked())
    .registerFunction('net.CIDR.prefixLength(): int', (c: CIDR) => c.prefix);
}
