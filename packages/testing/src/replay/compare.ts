/**
 * Compares a response of the in-memory server with the response a real kube-apiserver v1.24 gave
 * (packages/testing/fixtures/kube-wire/): the parts that matter, with run-specific values (uids,
 * resourceVersions, timestamps, generated name suffixes) translated or normalised. Returns the
 * differences as readable lines; empty means "same". Test support only.
 *
 * @module
 */
import { isObject, type JsonObject } from '../apply/json-value.js';
import { inRecordedOrder } from './managed-fields-order.js';

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

/** Real → fake translations learnt while replaying a transcript. */
export class ValueMap {
  readonly resourceVersions = new Map<string, string>();
  readonly uids = new Map<string, string>();
  readonly continues = new Map<string, string>();
  readonly names = new Map<string, string>();

  /** Learns translations from a recorded body and the body our server sent for the same request. */
  learn(expected: unknown, actual: unknown): void {
    if (Array.isArray(expected) && Array.isArray(actual)) {
      const byName = (list: unknown[]): Map<string, unknown> =>
        new Map(list.map((item, i) => [nameOf(item) ?? `#${i}`, item]));
      const actualByName = byName(actual);
      expected.forEach((item, i) => this.learn(item, actualByName.get(nameOf(item) ?? `#${i}`)));
      return;
    }
    if (!isObject(expected) || !isObject(actual)) return;
    const meta = expected.metadata;
    const actualMeta = actual.metadata;
    if (isObject(meta) && isObject(actualMeta) && typeof meta.generateName === 'string') {
      if (typeof meta.name === 'string' && typeof actualMeta.name === 'string')
        this.names.set(meta.name, actualMeta.name);
    }
    for (const [key, value] of Object.entries(expected)) {
      const other = actual[key];
      if (typeof value === 'string' && typeof other === 'string' && value !== '' && other !== '') {
        if (key === 'resourceVersion') this.resourceVersions.set(value, other);
        else if (key === 'uid') this.uids.set(value, other);
        else if (key === 'continue') this.continues.set(value, other);
      } else {
        this.learn(value, other);
      }
    }
  }

  /** Translates the query values and name segments of a recorded request path. */
  path(path: string, currentResourceVersion: () => string): string {
    const url = new URL(path, 'http://replay');
    for (const [name, real] of this.names)
      url.pathname = url.pathname.replace(`/${real}`, `/${this.names.get(name) ?? real}`);
    const rv = url.searchParams.get('resourceVersion');
    if (rv !== null && rv !== '0') {
      const mapped = this.resourceVersions.get(rv);
      if (mapped !== undefined) url.searchParams.set('resourceVersion', mapped);
      else if (/^\d+$/.test(rv) && rv !== '1' && Number(rv) < 100000)
        url.searchParams.set('resourceVersion', currentResourceVersion());
    }
    const cont = url.searchParams.get('continue');
    if (cont !== null) url.searchParams.set('continue', this.continues.get(cont) ?? cont);
    // Keep the recorded encoding of everything else (URLSearchParams re-encodes spaces as '+').
    return `${url.pathname}${url.search.replace(/\+/g, '%20')}`;
  }

  /** Translates uids, resourceVersions and generated names inside a recorded request body. */
  body(body: unknown): unknown {
    if (typeof body === 'string') {
      let out = body;
      for (const [real, fake] of this.uids) out = out.split(real).join(fake);
      return out;
    }
    if (Array.isArray(body)) return body.map((b) => this.body(b));
    if (!isObject(body)) return body;
    const out: JsonObject = {};
    for (const [k, v] of Object.entries(body)) {
      // A recorded client sent back the managedFields it had read, with the real server's times;
      // the server honours a request's managedFields, so send none (it then keeps its own, which
      // is what the real server did with identical ones) rather than foreign times.
      if (k === 'managedFields') continue;
      if (k === 'resourceVersion' && typeof v === 'string') out[k] = this.resourceVersions.get(v) ?? v;
      else if (k === 'uid' && typeof v === 'string') out[k] = this.uids.get(v) ?? v;
      else if (k === 'name' && typeof v === 'string') out[k] = this.names.get(v) ?? v;
      else out[k] = this.body(v);
    }
    return out;
  }

  /** A recorded message with the learnt run-specific values replaced by ours. */
  message(text: string): string {
    let out = text;
    for (const map of [this.uids, this.names])
      for (const [real, fake] of map) out = out.split(real).join(fake);
    for (const [real, fake] of this.resourceVersions)
      out = out.replace(new RegExp(`\\b${real}\\b`, 'g'), fake);
    return out.replace(UUID, '<uid>');
  }
}

function nameOf(item: unknown): string | undefined {
  if (!isObject(item) || !isObject(item.metadata)) return undefined;
  const { name, namespace } = item.metadata;
  return typeof name === 'string' ? `${typeof namespace === 'string' ? namespace : ''}/${name}` : undefined;
}

/** Normalises values that differ on every run: uids, timestamps. */
function normalise(value: unknown, map: ValueMap): unknown {
  if (typeof value === 'string') {
    if (TIME.test(value)) return '<time>';
    return map.message(value);
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, map));
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  // Keys too: FieldsV1 spells owner references as `k:{"uid":"…"}`.
  for (const [k, v] of Object.entries(value)) out[map.message(k)] = normalise(v, map);
  return out;
}

const show = (v: unknown): string => (v === undefined ? 'absent' : JSON.stringify(v));

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b));
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (!isObject(v)) return v;
  const out: JsonObject = {};
  for (const k of Object.keys(v).sort()) out[k] = sortKeys(v[k]);
  return out;
}

/** Compares two values after normalisation; adds `where: expected X, got Y` when they differ. */
function eq(diffs: string[], where: string, expected: unknown, actual: unknown, map: ValueMap): void {
  const e = normalise(expected, map);
  const a = normalise(actual, map);
  if (!same(e, a)) diffs.push(`${where}: expected ${show(e)}, got ${show(a)}`);
}

function presence(diffs: string[], where: string, expected: unknown, actual: unknown): void {
  if ((expected === undefined) !== (actual === undefined)) {
    diffs.push(`${where}: expected ${expected === undefined ? 'absent' : 'present'}, got ${show(actual)}`);
  }
}

const MANAGED_KEYS = ['manager', 'operation', 'apiVersion', 'subresource', 'fieldsType', 'fieldsV1'];

/** Compares a Kubernetes object (or PartialObjectMetadata). */
export function compareObject(
  diffs: string[],
  where: string,
  expected: JsonObject,
  actual: unknown,
  map: ValueMap,
): void {
  if (!isObject(actual)) {
    diffs.push(`${where}: expected an object, got ${show(actual)}`);
    return;
  }
  eq(diffs, `${where}.kind`, expected.kind, actual.kind, map);
  eq(diffs, `${where}.apiVersion`, expected.apiVersion, actual.apiVersion, map);
  const em = isObject(expected.metadata) ? expected.metadata : {};
  const am = isObject(actual.metadata) ? actual.metadata : {};
  for (const key of [
    'name',
    'namespace',
    'generateName',
    'labels',
    'annotations',
    'finalizers',
    'ownerReferences',
    'generation',
    'deletionGracePeriodSeconds',
  ]) {
    if (key === 'name' && typeof em.generateName === 'string' && typeof em.name === 'string') {
      const ok =
        typeof am.name === 'string' &&
        am.name.startsWith(em.generateName) &&
        am.name.length === em.name.length;
      if (!ok)
        diffs.push(
          `${where}.metadata.name: expected ${em.generateName} + 5 characters, got ${show(am.name)}`,
        );
      continue;
    }
    eq(diffs, `${where}.metadata.${key}`, em[key], am[key], map);
  }
  for (const key of ['uid', 'resourceVersion', 'creationTimestamp', 'deletionTimestamp']) {
    presence(diffs, `${where}.metadata.${key}`, em[key], am[key]);
  }
  const project = (entries: unknown): unknown =>
    Array.isArray(entries)
      ? (entries as unknown[]).map((e: unknown) =>
          isObject(e) ? Object.fromEntries(MANAGED_KEYS.filter((k) => k in e).map((k) => [k, e[k]])) : e,
        )
      : entries;
  // their order depends on times in seconds, which a replay cannot reproduce (managed-fields-order.ts)
  const managedFields = inRecordedOrder(em.managedFields, am.managedFields);
  eq(diffs, `${where}.metadata.managedFields`, project(em.managedFields), project(managedFields), map);
  for (const key of new Set([...Object.keys(expected), ...Object.keys(actual)])) {
    if (key === 'kind' || key === 'apiVersion' || key === 'metadata') continue;
    eq(diffs, `${where}.${key}`, expected[key], actual[key], map);
  }
}

/** Compares a list (`*List`, `PartialObjectMetadataList`): metadata shape and items. */
function compareList(
  diffs: string[],
  expected: JsonObject,
  actual: JsonObject,
  map: ValueMap,
  unsorted: boolean,
): void {
  eq(diffs, 'kind', expected.kind, actual.kind, map);
  eq(diffs, 'apiVersion', expected.apiVersion, actual.apiVersion, map);
  const em = isObject(expected.metadata) ? expected.metadata : {};
  const am = isObject(actual.metadata) ? actual.metadata : {};
  presence(diffs, 'metadata.resourceVersion', em.resourceVersion, am.resourceVersion);
  const nonEmpty = (v: unknown): boolean => typeof v === 'string' && v !== '';
  if (nonEmpty(em.continue) !== nonEmpty(am.continue)) {
    diffs.push(
      `metadata.continue: expected ${nonEmpty(em.continue) ? 'a token' : 'none'}, got ${show(am.continue)}`,
    );
  }
  eq(diffs, 'metadata.remainingItemCount', em.remainingItemCount, am.remainingItemCount, map);
  const ei = Array.isArray(expected.items) ? expected.items : [];
  const ai = Array.isArray(actual.items) ? actual.items : [];
  const names = (items: unknown[]): string[] => items.map((i) => nameOf(i) ?? '?');
  const en = names(ei).map((n) => map.message(n));
  const an = names(ai);
  if (unsorted ? !same([...en].sort(), [...an].sort()) : !same(en, an)) {
    diffs.push(`items: expected ${show(en)}, got ${show(an)}`);
    return;
  }
  const byName = new Map(ai.map((i) => [nameOf(i), i]));
  ei.forEach((item, i) => {
    if (isObject(item))
      compareObject(diffs, `items[${i}]`, item, byName.get(map.message(nameOf(item) ?? '')), map);
  });
}

/** Groups the issue asks the fake to serve (others are real-cluster extras). */
const SERVED_GROUPS = new Set([
  '',
  'apps',
  'coordination.k8s.io',
  'events.k8s.io',
  'apiextensions.k8s.io',
  'example.com',
]);
/** Resources the issue asks for; their subresources are checked too. */
const SERVED_RESOURCES = new Set([
  'namespaces',
  'configmaps',
  'secrets',
  'pods',
  'services',
  'serviceaccounts',
  'events',
  'deployments',
  'leases',
  'customresourcedefinitions',
  'widgets',
]);

/** Discovery documents: every recorded (possibly trimmed) entry of an emulated type must be served the same way. */
function compareDiscovery(diffs: string[], expected: JsonObject, actual: JsonObject, map: ValueMap): void {
  for (const key of ['kind', 'apiVersion', 'groupVersion', 'name', 'versions', 'preferredVersion']) {
    if (key === 'versions' && expected.kind === 'APIVersions') continue;
    eq(diffs, key, expected[key], actual[key], map);
  }
  if (expected.kind === 'APIVersions')
    presence(
      diffs,
      'serverAddressByClientCIDRs',
      expected.serverAddressByClientCIDRs,
      actual.serverAddressByClientCIDRs,
    );
  if (Array.isArray(expected.resources)) {
    const ours = new Map(
      (Array.isArray(actual.resources) ? actual.resources : []).filter(isObject).map((r) => [r.name, r]),
    );
    for (const r of expected.resources.filter(isObject)) {
      if (!SERVED_RESOURCES.has(String(r.name).split('/')[0] ?? '')) continue;
      const mine = ours.get(r.name);
      if (mine === undefined) {
        diffs.push(`resources: ${String(r.name)} is not served`);
        continue;
      }
      for (const key of ['singularName', 'namespaced', 'kind', 'shortNames', 'group', 'version']) {
        eq(diffs, `resources[${String(r.name)}].${key}`, r[key], mine[key], map);
      }
      const verbs = (v: unknown): unknown => (Array.isArray(v) ? [...(v as string[])].sort() : v);
      eq(diffs, `resources[${String(r.name)}].verbs`, verbs(r.verbs), verbs(mine.verbs), map);
      presence(
        diffs,
        `resources[${String(r.name)}].storageVersionHash`,
        r.storageVersionHash,
        mine.storageVersionHash,
      );
    }
  }
  if (Array.isArray(expected.groups)) {
    const ours = new Map(
      (Array.isArray(actual.groups) ? actual.groups : []).filter(isObject).map((g) => [g.name, g]),
    );
    for (const g of expected.groups.filter(isObject)) {
      if (!SERVED_GROUPS.has(String(g.name))) continue;
      const mine = ours.get(g.name);
      if (mine === undefined) diffs.push(`groups: ${String(g.name)} is not served`);
      else
        eq(
          diffs,
          `groups[${String(g.name)}].preferredVersion`,
          g.preferredVersion,
          mine.preferredVersion,
          map,
        );
    }
  }
}

/** Compares a Table (`as=Table`): columns and the name of each row. */
function compareTable(diffs: string[], expected: JsonObject, actual: JsonObject, map: ValueMap): void {
  eq(diffs, 'kind', expected.kind, actual.kind, map);
  eq(diffs, 'apiVersion', expected.apiVersion, actual.apiVersion, map);
  const cols = (t: JsonObject): unknown =>
    Array.isArray(t.columnDefinitions)
      ? t.columnDefinitions.filter(isObject).map((c) => [c.name, c.type])
      : undefined;
  eq(diffs, 'columnDefinitions', cols(expected), cols(actual), map);
  const rows = (t: JsonObject): unknown =>
    Array.isArray(t.rows)
      ? t.rows
          .filter(isObject)
          .map((r) => [
            Array.isArray(r.cells) ? r.cells.slice(0, -1) : r.cells,
            isObject(r.object) ? r.object.kind : r.object,
          ])
      : undefined;
  eq(diffs, 'rows (cells without age, object kind)', rows(expected), rows(actual), map);
}

/** Compares a `metav1.Status`: everything, the message after translating run-specific values. */
function compareStatus(diffs: string[], expected: JsonObject, actual: JsonObject, map: ValueMap): void {
  for (const key of ['kind', 'apiVersion', 'metadata', 'status', 'reason', 'code', 'details']) {
    eq(diffs, key, expected[key], actual[key], map);
  }
  if (typeof expected.message === 'string') {
    const e = map.message(expected.message);
    const a = typeof actual.message === 'string' ? actual.message.replace(UUID, '<uid>') : actual.message;
    if (e !== a) diffs.push(`message: expected ${show(e)}, got ${show(a)}`);
  } else {
    presence(diffs, 'message', expected.message, actual.message);
  }
}

/** Compares a whole non-watch response body by its kind. */
export function compareBody(
  expected: unknown,
  actual: unknown,
  map: ValueMap,
  opts: { unsorted: boolean; trimmed?: boolean },
): string[] {
  const diffs: string[] = [];
  if (typeof expected === 'string') {
    if (typeof actual !== 'string') diffs.push(`body: expected text ${show(expected)}, got ${show(actual)}`);
    else if (expected.includes('\n')) {
      const el = expected.trim().split('\n');
      const al = actual.trim().split('\n');
      eq(diffs, 'body (first line)', el[0], al[0], map);
      eq(diffs, 'body (last line)', el[el.length - 1], al[al.length - 1], map);
    } else if (expected !== actual) diffs.push(`body: expected ${show(expected)}, got ${show(actual)}`);
    return diffs;
  }
  if (!isObject(expected)) return diffs;
  if (!isObject(actual)) return [`body: expected JSON ${String(expected.kind)}, got ${show(actual)}`];
  const kind = typeof expected.kind === 'string' ? expected.kind : '';
  if (kind === 'Status') compareStatus(diffs, expected, actual, map);
  else if (kind === 'Table') compareTable(diffs, expected, actual, map);
  else if (['APIVersions', 'APIResourceList', 'APIGroupList', 'APIGroup'].includes(kind))
    compareDiscovery(diffs, expected, actual, map);
  else if (kind.endsWith('List') && Array.isArray(expected.items)) {
    if (opts.trimmed === true) {
      eq(diffs, 'kind', expected.kind, actual.kind, map);
      presence(diffs, 'metadata', expected.metadata, actual.metadata);
    } else compareList(diffs, expected, actual, map, opts.unsorted);
  } else if (isObject(expected.metadata)) compareObject(diffs, 'body', expected, actual, map);
  else {
    for (const key of Object.keys(expected)) presence(diffs, key, expected[key], actual[key]);
  }
  return diffs;
}

/** Response headers that must match: Content-Type always; the others when the recording has them. */
export function compareHeaders(expected: Record<string, string>, actual: Headers): string[] {
  const diffs: string[] = [];
  const check = (name: string, exact: boolean): void => {
    const e = expected[name];
    const a = actual.get(name) ?? undefined;
    if (e === undefined) return;
    if (a === undefined) diffs.push(`header ${name}: expected ${show(e)}, absent`);
    else if (exact && e !== a) diffs.push(`header ${name}: expected ${show(e)}, got ${show(a)}`);
  };
  check('Content-Type', true);
  check('Cache-Control', true);
  check('Warning', true);
  check('Retry-After', true);
  check('X-Content-Type-Options', true);
  return diffs;
}
