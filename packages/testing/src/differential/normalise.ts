/**
 * Makes two answers to the same request comparable — one from the embedded server, one from a real
 * kube-apiserver — by replacing what differs on every run (uids, resourceVersions, continue tokens,
 * timestamps, generated name suffixes, Go pointer addresses, Table ages), also inside messages, and
 * lists the differences that remain as readable lines. Test support only.
 *
 * @module
 */

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;
const POINTER = /0xc[0-9a-f]+/g;
/** A resourceVersion inside a message or an embedded JSON document. */
const EMBEDDED_RV = /(resourceVersion\\*"?:\\*"?|ResourceVersion: |resource version: )\d+/g;
const AGE = /^\d+(s|m|h|d)(\d+(s|m|h))?$/;
/** `generateName` + 5 characters of the apiserver's alphabet. */
const GENERATED_SUFFIX = '[bcdfghjklmnpqrstvwxz2456789]{5}';

function generateNamesOf(v: unknown, out: Set<string>): void {
  if (Array.isArray(v)) {
    for (const x of v) generateNamesOf(x, out);
    return;
  }
  if (typeof v !== 'object' || v === null) return;
  for (const [k, x] of Object.entries(v)) {
    if (k === 'generateName' && typeof x === 'string' && x !== '') out.add(x);
    else generateNamesOf(x, out);
  }
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Replaces run-specific values. `resourceVersion` and `continue` keys become `<rv>`/`<continue>`,
 * RFC 3339 times `<time>`, uuids `<uid>`, `<generateName>` + suffix `<generateName><gen>`,
 * `0xc…` pointers `0x…`, Table age cells `<age>`.
 */
export function normalise(value: unknown, generateNames: readonly string[] = []): unknown {
  const generated = generateNames.map((g) => new RegExp(`${escapeRegExp(g)}${GENERATED_SUFFIX}`, 'g'));
  const text = (s: string): string => {
    let out = s
      .replace(UUID, '<uid>')
      .replace(TIME, '<time>')
      .replace(POINTER, '0x…')
      .replace(EMBEDDED_RV, '$1<rv>');
    generated.forEach((re, i) => {
      out = out.replace(re, `${generateNames[i] ?? ''}<gen>`);
    });
    return out;
  };
  const walk = (v: unknown, key: string | undefined, inCells: boolean): unknown => {
    if (typeof v === 'string') {
      if (key === 'resourceVersion' && v !== '') return '<rv>';
      if (key === 'continue' && v !== '') return '<continue>';
      if (inCells && AGE.test(v)) return '<age>';
      return text(v);
    }
    if (Array.isArray(v)) return v.map((x) => walk(x, undefined, inCells || key === 'cells'));
    if (typeof v !== 'object' || v === null) return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) out[text(k)] = walk(x, k, false);
    return out;
  };
  return walk(value, undefined, false);
}

/** The generateName values of both answers (to normalise the generated suffixes alike). */
export function generateNames(...values: unknown[]): string[] {
  const out = new Set<string>();
  for (const v of values) generateNamesOf(v, out);
  return [...out];
}

const show = (v: unknown): string => {
  const s = v === undefined ? 'absent' : JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
};

/**
 * The differences between two normalised values, one line per differing path (key order ignored),
 * `real` first. Empty when they are the same.
 */
export function differences(real: unknown, embedded: unknown, path = ''): string[] {
  if (JSON.stringify(real) === JSON.stringify(embedded)) return [];
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (Array.isArray(real) && Array.isArray(embedded)) {
    if (real.length !== embedded.length)
      return [
        `${path || '.'}: ${String(real.length)} items (real) vs ${String(embedded.length)} (embedded): real ${show(real)} | embedded ${show(embedded)}`,
      ];
    return real.flatMap((x, i) => differences(x, embedded[i], `${path}[${String(i)}]`));
  }
  if (isObj(real) && isObj(embedded)) {
    const keys = [...new Set([...Object.keys(real), ...Object.keys(embedded)])].sort();
    return keys.flatMap((k) => differences(real[k], embedded[k], path === '' ? k : `${path}.${k}`));
  }
  return [`${path || '.'}: real ${show(real)} | embedded ${show(embedded)}`];
}
