/**
 * kubectl's output with what differs between any two runs — and so between the two test backends —
 * replaced by placeholders, so the rest can be compared byte for byte: uids, resourceVersions,
 * timestamps, ages, the random parts of temporary paths (`kubectl edit`, `kubectl diff`) and the
 * pod-template-hash of ReplicaSets (the embedded server's hash has the real shape, not the real
 * value: see the README's `simulateDeployments`). Test support only: not exported.
 *
 * ## Example
 * ```ts
 * normalizeOutput('uid: 0c99b40d-e1fc-41b2-9a06-3522145edff6\nresourceVersion: "212"\n');
 * // 'uid: <uid>\nresourceVersion: "<rv>"\n'
 * normalizeTable('NAME   DATA   AGE\napp    1      2m32s\n');
 * // 'NAME DATA AGE\napp 1 <age>\n'
 * ```
 *
 * @module
 */

const UID = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
const RFC3339 = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g;
// `diff -u` headers: 2026-11-26 08:47:12.983081432 +0000
const DIFF_TIME = /\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? [+-]\d{4}\b/g;
const RV_YAML = /(resourceVersion: )"\d+"/g;
const RV_JSON = /("resourceVersion": ?)"\d+"/g;
const RV_ESCAPED = /(\\"resourceVersion\\": ?)\\"\d+\\"/g;
// os.MkdirTemp's random suffix: /tmp/…/LIVE-1975471303, kubectl-edit-306739618.yaml
const TEMP = /(LIVE|MERGED|kubectl-edit)-\d+/g;
const HASH_LABEL = /(pod-template-hash[=:] ?"?)[a-z0-9]{6,10}/g;
// kubectl's duration printer: 5s, 2m32s, 3h4m, 2d3h, 400d, 2y100d
const AGE = /(?<=\s|^)(?:\d+y)?(?:\d+d)?(?:\d+h)?(?:\d+m)?(?:\d+s)?(?=\s|$)/gm;

/**
 * Replaces run-specific values: uids, resourceVersions (YAML and JSON, escaped too), RFC 3339
 * times, `diff -u` header times, temporary-path suffixes, `pod-template-hash` values and the
 * `<deployment>-<hash>` names of the given Deployments' ReplicaSets.
 *
 * @param tmpDir kubectl's `TMPDIR`, replaced by `$TMPDIR`.
 * @param deployments names whose `<name>-<hash>` ReplicaSet names become `<name>-<hash>`.
 */
export function normalizeOutput(
  text: string,
  opts: { tmpDir?: string; deployments?: readonly string[] } = {},
): string {
  let out = text;
  if (opts.tmpDir !== undefined) out = out.replaceAll(opts.tmpDir, '$TMPDIR');
  out = out
    .replace(UID, '<uid>')
    .replace(RFC3339, '<time>')
    .replace(DIFF_TIME, '<time>')
    .replace(RV_YAML, '$1"<rv>"')
    .replace(RV_JSON, '$1"<rv>"')
    .replace(RV_ESCAPED, '$1\\"<rv>\\"')
    .replace(TEMP, '$1-<n>')
    .replace(HASH_LABEL, '$1<hash>');
  for (const d of opts.deployments ?? []) {
    out = out.replace(new RegExp(`\\b${d}-[a-z0-9]{6,10}\\b`, 'g'), `${d}-<hash>`);
  }
  return out;
}

/**
 * {@link normalizeOutput} for kubectl's tables: ages become `<age>` and runs of spaces one space
 * (column widths follow the values, which differ in length between runs).
 */
export function normalizeTable(text: string, opts: { deployments?: readonly string[] } = {}): string {
  return normalizeOutput(text, opts)
    .split('\n')
    .map((line) =>
      line
        .replace(AGE, (m) => (m === '' ? m : '<age>'))
        .replace(/ {2,}/g, ' ')
        .trimEnd(),
    )
    .join('\n');
}
