/**
 * Stamping the children a traced reconcile writes with its trace context (KEP-5915): the
 * controller wraps the `Client` a reconcile writes through ({@link stampingClient}) so that a
 * create, and a replace, patch or server-side apply that changes the child otherwise, carries the
 * `tracing.k8s.io/traceparent` annotation of the reconcile's span. A reconcile of another
 * controller triggered by that child links to it: parent → child → grandchild is one linked trace.
 *
 * What is never stamped: writes to the reconcile's own object (it is no child), status (and
 * every other subresource) writes, deletes, JSON patches (an
 * `add` under a missing `/metadata/annotations` fails), and Leases and Events (they are not written
 * through this client). A write that changes nothing else keeps the child's annotation as it is —
 * a server-side apply of an unchanged child applies the value it already carries, so it stays a
 * no-op and the field manager keeps owning the annotation; otherwise the annotation changing on
 * every reconcile would make every write a change. To tell, the child's current state comes from
 * the controller's Store (with its own writes overlaid): a child of a kind the controller does not
 * watch (owns or watches) is stamped only by `create`.
 *
 * No OpenTelemetry here: the traceparent is a string the tracer gave (`ReconcileTrace.traceparent`).
 *
 * @module
 */
import type { Client } from '../client/client.js';
import type { ObjectLike, Patch, PatchOptions, WriteOptions } from '../client/verb-options.js';
import type { WriteTracker } from '../sink/write-tracker.js';
import type { KubeObject, ObjectRef } from '../types.js';
import { objectKey } from '../types.js';
import { showWrites } from './cache-reader.js';
import { TRACEPARENT_ANNOTATION } from './tracing.js';
import type { WatchedKinds } from './watches.js';

/** What a write names: the child's type and, when known, its namespace and name. */
export interface WriteTarget {
  readonly apiVersion?: string | undefined;
  readonly kind?: string | undefined;
  readonly metadata?: { readonly namespace?: string | undefined; readonly name?: string | undefined };
}

/**
 * The child's current state: the object, `null` when the controller watches its kind and has no
 * such object, `undefined` when it does not watch the kind (the state is unknown) — or when the
 * target is no child (the reconcile's own object): then only a create is stamped.
 */
export type CurrentChild = (target: WriteTarget) => KubeObject | null | undefined;

/** A child as the controller knows it: its Store, with the controller's own writes overlaid. */
export function currentChildOf<T extends KubeObject>(
  kinds: WatchedKinds<T>,
  tracker: WriteTracker,
): CurrentChild {
  return (target) => {
    const kind = kinds.lookup({ apiVersion: target.apiVersion ?? '', kind: target.kind ?? '' });
    if (kind === undefined) return undefined;
    const meta = target.metadata ?? {};
    const stored = kind.store.get(
      objectKey({
        name: meta.name ?? '',
        ...(meta.namespace !== undefined ? { namespace: meta.namespace } : {}),
      }),
    );
    return stored === undefined ? null : (showWrites(tracker, kind.plan.resource, [stored])[0] ?? null);
  };
}

/** Metadata the server writes, left out when telling whether a write changes a child. */
const SERVER_METADATA = new Set([
  'resourceVersion',
  'managedFields',
  'generation',
  'creationTimestamp',
  'uid',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
]);

/**
 * `client` whose create, replace, patch and apply stamp the child with `traceparent` when they
 * create it or change it otherwise; every other member is `client`'s own.
 */
export function stampingClient(client: Client, traceparent: string, current: CurrentChild): Client {
  const create = (body: ObjectLike, options?: WriteOptions) =>
    client.create(options?.subresource === undefined ? stamped(body, traceparent) : body, options);
  const replace = (body: ObjectLike, options?: WriteOptions) =>
    client.replace(options?.subresource === undefined ? replaced(body, traceparent, current) : body, options);
  const apply = (body: ObjectLike, options: WriteOptions & { fieldManager: string }) =>
    client.apply(options.subresource === undefined ? applied(body, traceparent, current) : body, options);
  const patch = (ref: ObjectRef, p: Patch, options?: PatchOptions) =>
    client.patch(
      ref,
      options?.subresource === undefined ? patched(ref, p, traceparent, current) : p,
      options,
    );
  const overrides: Partial<Record<keyof Client, unknown>> = { create, replace, apply, patch };
  return new Proxy(client, {
    get(target, property, receiver) {
      if (typeof property === 'string' && property in overrides) return overrides[property as keyof Client];
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** `body` with the annotation set to `value`. */
function stamped<B extends ObjectLike>(body: B, value: string): B {
  const metadata = (body.metadata ?? {}) as { annotations?: Record<string, string> };
  return {
    ...body,
    metadata: { ...metadata, annotations: { ...metadata.annotations, [TRACEPARENT_ANNOTATION]: value } },
  };
}

/** The annotation `object` carries, if any. */
function carried(object: unknown): string | undefined {
  const annotations = (object as { metadata?: { annotations?: Record<string, unknown> } } | undefined)
    ?.metadata?.annotations;
  const value = annotations?.[TRACEPARENT_ANNOTATION];
  return typeof value === 'string' ? value : undefined;
}

/** A PUT: stamped unless it equals the child apart from status, server metadata and the annotation. */
function replaced(body: ObjectLike, traceparent: string, current: CurrentChild): ObjectLike {
  const now = current(body);
  if (now === undefined) return body;
  if (now !== null && sameContent(body, now)) return body;
  return stamped(body, traceparent);
}

/**
 * A server-side apply: the applied configuration owns the annotation. Unchanged (every applied
 * field already has its value): it applies the value the child carries, so the apply is a no-op.
 */
function applied(
  body: ObjectLike,
  traceparent: string,
  current: CurrentChild,
  target: WriteTarget = body,
): ObjectLike {
  const now = current(target);
  if (now === undefined) return body;
  if (now !== null && contains(now, body)) {
    const kept = carried(now);
    return kept === undefined ? body : stamped(body, kept);
  }
  return stamped(body, traceparent);
}

function patched(ref: ObjectRef, patch: Patch, traceparent: string, current: CurrentChild): Patch {
  if (patch.type === 'json') return patch;
  const target: WriteTarget = {
    apiVersion: ref.apiVersion,
    kind: ref.kind,
    metadata: { name: ref.name, ...(ref.namespace !== undefined ? { namespace: ref.namespace } : {}) },
  };
  if (patch.type === 'apply') {
    const body = patch.body as ObjectLike;
    const out = applied(body, traceparent, current, target);
    return out === body ? patch : { type: 'apply', body: out };
  }
  // merge / strategic (the latter read as a merge patch: close enough to tell a change)
  const now = current(target);
  if (now === undefined) return patch;
  // absent from the Store (not seen yet): a patch that succeeds is taken as a change
  if (now !== null && sameContent(mergePatch(now, patch.body), now)) return patch;
  return { type: patch.type, body: stamped(patch.body as ObjectLike, traceparent) };
}

/** RFC 7386: `patch` merged into `target` (`null` removes a field). */
function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isRecord(patch)) return patch;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete out[name];
    else out[name] = mergePatch(out[name], value);
  }
  return out;
}

/**
 * What a write may change: the object without its type, status, server metadata and the
 * annotation, a Secret's `stringData` folded into `data` (as the server stores it).
 */
function content(object: unknown): Record<string, unknown> {
  if (!isRecord(object)) return {};
  // apiVersion and kind are the write's address; a Secret's stringData is stored as data
  const { status: _status, metadata, apiVersion: _apiVersion, kind: _kind, stringData, ...rest } = object;
  if (isRecord(stringData)) {
    const data: Record<string, unknown> = isRecord(rest['data']) ? { ...rest['data'] } : {};
    for (const [name, value] of Object.entries(stringData)) {
      data[name] = typeof value === 'string' ? Buffer.from(value, 'utf8').toString('base64') : value;
    }
    rest['data'] = data;
  }
  const meta: Record<string, unknown> = {};
  if (isRecord(metadata)) {
    for (const [name, value] of Object.entries(metadata)) {
      if (SERVER_METADATA.has(name)) continue;
      if (name === 'annotations' && isRecord(value)) {
        const { [TRACEPARENT_ANNOTATION]: _stamp, ...others } = value;
        if (Object.keys(others).length > 0) meta[name] = others;
        continue;
      }
      meta[name] = value;
    }
  }
  return { ...rest, metadata: meta };
}

function sameContent(a: unknown, b: unknown): boolean {
  return deepEqual(content(a), content(b));
}

/** Whether every field `applied` sets has that value in `object` (lists item by item). */
function contains(object: unknown, applied: unknown): boolean {
  return covers(content(object), content(applied));
}

function covers(have: unknown, want: unknown): boolean {
  if (Array.isArray(want)) {
    return (
      Array.isArray(have) && have.length === want.length && want.every((item, i) => covers(have[i], item))
    );
  }
  if (isRecord(want)) {
    if (!isRecord(have)) return false;
    return Object.entries(want).every(([name, value]) => covers(have[name], value));
  }
  return have === want;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (!isRecord(a) || !isRecord(b) || Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual(a[k], b[k]));
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
