/**
 * Ordering of resourceVersions, as KEP-5504 ("Comparable Resource Versions",
 * kubernetes/enhancements keps/sig-api-machinery/5504-comparable-resource-version) specifies it:
 * a resourceVersion is a decimal integer without leading zeros; a longer one is greater, one of
 * equal length compares character by character. kube-apiserver's are etcd revisions, and so are
 * the embedded server's. Anything else (an aggregated server's own scheme) is not comparable.
 *
 * @module
 */

const DECIMAL = /^(0|[1-9][0-9]*)$/;

/**
 * `-1`, `0` or `1` as `a` is older than, the same as or newer than `b`; `undefined` when either
 * is not a decimal integer (no order is known).
 */
export function compareResourceVersions(
  a: string | undefined,
  b: string | undefined,
): -1 | 0 | 1 | undefined {
  if (a === undefined || b === undefined || !DECIMAL.test(a) || !DECIMAL.test(b)) return undefined;
  if (a.length !== b.length) return a.length < b.length ? -1 : 1;
  return a === b ? 0 : a < b ? -1 : 1;
}
