/**
 * Kubernetes' library tests (k8s.io/apiserver/pkg/cel/library/*_test.go, master, fetched
 * 2026-11-29): each expression with the value or the runtime error Kubernetes expects.
 */
import { describe, expect, it } from 'vitest';

import { kubernetesEnvironment } from '../environment.js';

const evaluate = (expr: string): unknown => kubernetesEnvironment('crd').evaluate(expr, {}) as unknown;

const values: Record<string, [string, unknown][]> = {
  'quantity_test.go TestQuantity': [
    ['isQuantity("20")', true],
    ['isQuantity("20M")', true],
    ['isQuantity("20Mi")', true],
    ['isQuantity("20Mo")', false],
    ['isQuantity("10Mm")', false],
    ['quantity("200M") == quantity("200M")', true],
    ['quantity("200M") == quantity("0.2G") && quantity("0.2G") == quantity("200M")', true],
    [
      'quantity("2M") == quantity("0.002G") && quantity("2000k") == quantity("2M") && quantity("0.002G") == quantity("2000k")',
      true,
    ],
    ['quantity("200M") == quantity("0.3G")', false],
    ['quantity("50M").isLessThan(quantity("50Mi"))', true],
    ['quantity("50M").isLessThan(quantity("100M"))', true],
    ['quantity("100M").isLessThan(quantity("50M"))', false],
    ['quantity("50Mi").isGreaterThan(quantity("50M"))', true],
    ['quantity("150Mi").isGreaterThan(quantity("100Mi"))', true],
    ['quantity("50M").isGreaterThan(quantity("100M"))', false],
    ['quantity("200M").compareTo(quantity("0.2G"))', 0n],
    ['quantity("50M").compareTo(quantity("50Mi"))', -1n],
    ['quantity("50Mi").compareTo(quantity("50M"))', 1n],
    ['quantity("50k").add(quantity("20")) == quantity("50.02k")', true],
    ['quantity("50k").add(20).isLessThan(quantity("50020"))', false],
    ['quantity("50k").sub(quantity("20")) == quantity("49.98k")', true],
    ['quantity("50k").sub(20) == quantity("49980")', true],
    ['quantity("50k").add(20).sub(quantity("100k")).asInteger()', -49980n],
    ['quantity("50k").add(20).sub(quantity("100k")).sub(-50000).asInteger()', 20n],
    ['quantity("50k").asInteger()', 50000n],
    ['quantity("9999999999999999999999999999999999999G").isInteger()', false],
    ['quantity("50").isInteger()', true],
    ['quantity("50.703k").asApproximateFloat()', 50703],
    [
      '[quantity("9999999999999999999999999999999999999")].all(x, x.add(quantity("1")).compareTo(x.add(quantity("2"))) == -1)',
      true,
    ],
  ],
  'ip_test.go TestIP': [
    ['isIP("192.168.0.1")', true],
    ['isIP("192.168.0.1.0")', false],
    ['ip("192.168.0.1").family()', 4n],
    ['ip("0.0.0.0").isUnspecified()', true],
    ['ip("127.0.0.1").isUnspecified()', false],
    ['ip("127.0.0.1").isLoopback()', true],
    ['ip("1.2.3.4").isLoopback()', false],
    ['ip("224.0.0.1").isLinkLocalMulticast()', true],
    ['ip("224.0.1.1").isLinkLocalMulticast()', false],
    ['ip("169.254.169.254").isLinkLocalUnicast()', true],
    ['ip("192.168.0.1").isLinkLocalUnicast()', false],
    ['ip("192.168.0.1").isGlobalUnicast()', true],
    ['ip("255.255.255.255").isGlobalUnicast()', false],
    ['isIP("2001:db8::68")', true],
    ['isIP("2001:db8:::68")', false],
    ['ip("2001:db8::68").family()', 6n],
    ['ip("::").isUnspecified()', true],
    ['ip("::1").isUnspecified()', false],
    ['ip("::1").isLoopback()', true],
    ['ip("2001:db8::abcd").isLoopback()', false],
    ['ip("ff02::1").isLinkLocalMulticast()', true],
    ['ip("fd00::1").isLinkLocalMulticast()', false],
    ['ip("fe80::1").isLinkLocalUnicast()', true],
  ],
  'cidr_test.go TestCIDR': [
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.0.1"))', true],
    ['cidr("192.168.0.0/24").containsIP(ip("192.168.1.1"))', false],
    ['cidr("192.168.0.0/24").containsIP("192.168.0.1")', true],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/25"))', true],
    ['cidr("192.168.0.0/24").containsCIDR(cidr("192.168.0.0/23"))', false],
    ['cidr("2001:db8::/32").containsCIDR(cidr("2001:db8::/33"))', true],
    ['cidr("192.168.0.0/24").prefixLength()', 24n],
    ["cidr('192.168.0.0/24') == cidr('192.168.0.0/24').masked()", true],
    ["cidr('192.168.0.1/24').masked() == cidr('192.168.0.0/24')", true],
  ],
  'semver_test.go TestSemver': [
    ['isSemver("1.2.3-beta.1+build.1")', true],
    ['isSemver("")', false],
    ['isSemver("v1.0.0")', false],
    ['isSemver(" 1.0.0")', false],
    ['isSemver("1. 0.0")', false],
    ['isSemver("1.0.0 ")', false],
    ['isSemver("01.01.01")', false],
    ['isSemver("1")', false],
    ['isSemver("1.1")', false],
    ['isSemver("", true)', false],
    ['isSemver(" 1.0.0", true)', false],
    ['isSemver("1. 0.0", true)', false],
    ['isSemver("1.0.0 ", true)', false],
    ['isSemver("v1.0.0", true)', true],
    ['isSemver("01.01.01", true)', true],
    ['isSemver("1", true)', true],
    ['isSemver("1.1", true)', true],
    ['semver("v01.01", true) == semver("1.1.0")', true],
    ['semver("1.2.3") == semver("1.2.3")', true],
    ['semver("1.2.3") == semver("1.0.0")', false],
    ['semver("1.0.0").isLessThan(semver("1.2.3"))', true],
    ['semver("1.0.0").isLessThan(semver("1.0.0"))', false],
    ['semver("1.2.3").isGreaterThan(semver("1.0.0"))', true],
    ['semver("1.0.0").isGreaterThan(semver("1.0.0"))', false],
    ['semver("1.2.3").compareTo(semver("1.2.3"))', 0n],
    ['semver("1.0.0").compareTo(semver("1.2.3"))', -1n],
    ['semver("1.2.3").compareTo(semver("1.0.0"))', 1n],
    ['semver("1.2.3").major()', 1n],
    ['semver("1.2.3").minor()', 2n],
    ['semver("1.2.3").patch()', 3n],
  ],
  // not in Kubernetes' tables: equality, canonical form and isCIDR, by the same functions' Go semantics
  ours: [
    ['ip("192.168.0.1") == ip("192.168.0.1")', true],
    ['ip("192.168.0.1") == ip("192.168.0.2")', false],
    ['string(ip("2001:db8:0:0:0:0:0:68"))', '2001:db8::68'],
    ['cidr("192.168.0.1/24").ip() == ip("192.168.0.1")', true],
    ['isCIDR("192.168.0.0/24")', true],
    ['isCIDR("192.168.0.0/33")', false],
    ['isCIDR("192.168.0.0")', false],
  ],
};

const errors: [string, RegExp][] = [
  ['quantity("10Mo")', /^quantities must match the regular expression/],
  ['quantity("10Mm")', /^unable to parse quantity's suffix/],
  ['quantity("9999999999999999999999999999999999999G").asInteger()', /^cannot convert value to integer/],
  ['ip("192.168.0.1.0")', /^IP Address "192\.168\.0\.1\.0" parse error during conversion from string/],
  ['ip("::ffff:1.2.3.4")', /^IPv4-mapped IPv6 address "::ffff:1\.2\.3\.4" is not allowed/],
  ['ip("fe80::1%eth0")', /^IP address "fe80::1%eth0" with zone value is not allowed/],
  ['semver("v1.0")', /^No Major\.Minor\.Patch elements found/],
];

describe("Kubernetes' CEL libraries (library/*_test.go)", () => {
  for (const [file, cases] of Object.entries(values)) {
    it.each(cases)(`${file}: %s`, (expr, want) => {
      expect(evaluate(expr)).toEqual(want);
    });
  }
  it.each(errors)('fails: %s', (expr, message) => {
    expect(() => evaluate(expr)).toThrow(message);
  });
});
