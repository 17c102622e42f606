/**
 * `applyChildren`: declarative owned children. The reconcile says which children should exist;
 * this server-side applies them with a controller reference to the owner and deletes the owned
 * children that are no longer wanted (Metacontroller's and roperator's model).
 *
 * What it does not do: watch children (that is `controller({ owns })`), wait for them to be ready,
 * or touch objects the owner does not control.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

import type { ApiResource } from '../client/api-resource.js';
import type { Client } from '../client/client.js';
import type { ObjectLike } from '../client/verb-options.js';
import { labelMatcher } from '../reflector/label-selector.js';
import { isConflict, isNotFound } from '../errors.js';
import type { KubeObject, ObjectMeta, ObjectRef, ResourceType } from '../types.js';
import { ownerReferenceOf, setControllerReference } from './set-controller-reference.js';

/**
 * Options of {@link applyChildren}.
 *
 * ## Example
 * ```ts
 * const options: ApplyChildrenOptions = {
 *   fieldManager: 'widget-operator',
 *   childTypes: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
 *   labelSelector: 'app.kubernetes.io/managed-by=widget-operator',
 * };
 * await applyChildren(client, widget, [configMapFor(widget)], options);
 * ```
 */
export interface ApplyChildrenOptions {
  /** The manager named in the children's `managedFields`, e.g. `widget-operator`. */
  readonly fieldManager: string;
  /**
   * The kinds whose owned objects are pruned when not desired. A desired child of another kind is
   * applied but never pruned.
   */
  readonly childTypes: readonly ResourceType[];
  /**
   * Take over fields other managers own (default `true`, as the Kubernetes docs recommend for
   * controllers on the objects they manage). `false`: a conflict fails that child with 409.
   */
  readonly force?: boolean;
  /** Narrows the lists of existing children (e.g. `app.kubernetes.io/managed-by=my-operator`). */
  readonly labelSelector?: string;
  /**
   * The objects of a kind that exist now in `namespace` (the owner's, for a namespaced kind of a
   * namespaced owner; else `undefined`: every one), from a cache: no LIST is sent for a kind it
   * answers. `undefined` for a kind
   * the cache does not hold (then it is listed). `ctx.applyChildren` passes the owned Stores.
   */
  readonly existing?: (
    type: ResourceType,
    namespace: string | undefined,
  ) => readonly { readonly metadata: ObjectMeta }[] | undefined;
}

/**
 * What {@link applyChildren} did.
 *
 * ## Example
 * ```ts
 * const result: ApplyChildrenResult = await applyChildren(client, widget, [configMapFor(widget)], { fieldManager: 'widget-operator', childTypes: [configMapType] });
 * log.info({ applied: result.applied.length, pruned: result.pruned.map((r) => r.name) }, 'children applied');
 * ```
 */
export interface ApplyChildrenResult {
  /** Children created or changed (a new resourceVersion). */
  readonly applied: readonly ObjectRef[];
  /** Children applied without any change (same resourceVersion as before). */
  readonly unchanged: readonly ObjectRef[];
  /** Owned children deleted because they are no longer desired. */
  readonly pruned: readonly ObjectRef[];
  /** Every desired child as the server returned it from the apply, in `desired` order. */
  readonly objects: readonly KubeObject[];
}

/**
 * Some desired children could not be applied. Nothing was pruned (an old child is never removed
 * while its replacement may be missing); the children that were applied stay applied.
 *
 * ## Example
 * ```ts
 * if (e instanceof ApplyChildrenError) for (const f of e.failures) log.error({ err: f.error, child: f.child.name }, 'child not applied');
 * ```
 */
export class ApplyChildrenError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'ApplyChildrenError' as const;
  override readonly name = 'ApplyChildrenError';
  /** Each child that failed and why. */
  readonly failures: readonly { readonly child: ObjectRef; readonly error: unknown }[];
  /** What was applied before the failures were known. */
  readonly result: ApplyChildrenResult;

  /** @param owner the owner's key.  @param failures what failed.  @param result what succeeded. */
  constructor(
    owner: string,
    failures: readonly { readonly child: ObjectRef; readonly error: unknown }[],
    result: ApplyChildrenResult,
  ) {
    super(
      `applyChildren of ${owner}: ${String(failures.length)} child(ren) failed, so nothing was pruned:\n` +
        failures.map((f) => `  - ${refText(f.child)}: ${errorText(f.error)}`).join('\n'),
      { cause: failures[0]?.error },
    );
    this.failures = failures;
    this.result = result;
  }
}

interface Existing {
  readonly ref: ObjectRef;
  readonly meta: ObjectMeta;
  readonly prunable: boolean;
}

/**
 * Server-side applies `desired` as children of `owner`, then deletes the children `owner`
 * controls (of `childTypes`) that are not in `desired`.
 *
 * ## Example
 * ```ts
 * const config: ConfigMap = {
 *   apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `${widget.metadata.name}-config` }, data: { size: '3' },
 * };
 * const result = await applyChildren(client, widget, [config], {
 *   fieldManager: 'widget-operator', childTypes: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
 * });
 * result.applied; result.pruned;
 * ```
 *
 * ## Semantics
 * - Children are matched by API group, kind, namespace and name (the version does not matter).
 * - A namespaced child without a namespace gets the owner's. Every child gets a controller
 *   reference to `owner` ({@link setControllerReference}); a child controlled by another object
 *   → `AlreadyOwnedError`, a cross-namespace child → `InvalidArgumentError`. All checks run before
 *   the first write, so bad input writes nothing.
 * - Existing children come from `options.existing` (a cache: `ctx.applyChildren` reads the owned
 *   Stores), else are listed (metadata only, the owner's namespace when it is namespaced, every
 *   namespace when cluster-scoped); "owned" means a controller reference with the owner's uid —
 *   objects merely labelled, or owned by a former owner of the same name, are left alone.
 * - Applies one child at a time, in order, as `fieldManager` (force by default). A child whose
 *   resourceVersion does not change is reported `unchanged`.
 * - Re-applying is skipped — no request — when the existing child (from the cache or the list)
 *   still has the resourceVersion and uid this client's last apply of the same body (same field
 *   manager and force) returned: nothing wrote it since, so the apply could change nothing but,
 *   on a real server, the `managedFields` time of a server-defaulted atomic list (a LimitRange
 *   `Container` item), which moves its resourceVersion. Any other write to the child (another
 *   manager, a drift) changes its resourceVersion, and the next call applies again. The memo is
 *   per client connection, bounded (the 10,000 children applied last), and starts empty (the first
 *   call after a restart applies). So applying the same desired set twice writes nothing.
 * - Any failed apply → {@link ApplyChildrenError} with every failure, and no pruning.
 * - Prunes with `propagationPolicy: Background` and a uid precondition, so a child deleted and
 *   re-created meanwhile (a new uid) is not deleted; already-gone (404), re-created (409) and
 *   already-terminating children are skipped and not reported.
 *
 * @param client the API client.  @param owner the owner as read from the server or the Store.
 * @param desired every child that should exist.  @param options field manager, prunable kinds.
 */
export async function applyChildren(
  client: Pick<Client, 'discovery' | 'apply' | 'delete' | 'list'>,
  owner: KubeObject,
  desired: readonly ObjectLike[],
  options: ApplyChildrenOptions,
): Promise<ApplyChildrenResult> {
  const op = 'applyChildren';
  const ownerRef = ownerReferenceOf(owner, op);
  const ownerNs = owner.metadata.namespace || undefined;
  const ownerKey = `${ownerRef.kind} ${ownerNs ? `${ownerNs}/` : ''}${ownerRef.name}`;
  if (typeof options.fieldManager !== 'string' || options.fieldManager === '') {
    throw new InvalidArgumentError(
      op,
      'options.fieldManager',
      options.fieldManager,
      'must be a non-empty string',
    );
  }
  const childTypes: readonly ResourceType[] = options.childTypes;
  const rawChildTypes: unknown = options.childTypes;
  if (!Array.isArray(rawChildTypes)) {
    throw new InvalidArgumentError(
      op,
      'options.childTypes',
      options.childTypes,
      'must be an array of { apiVersion, kind }',
    );
  }

  // 1. Resolve every kind involved; prepare the desired children (all checks before any write).
  const resources = new Map<string, ApiResource>();
  const resolve = async (t: ResourceType): Promise<ApiResource> => {
    const r = await client.discovery.resolve(t);
    resources.set(groupKind(r.group, r.kind), r);
    return r;
  };
  const prunable = new Set<string>();
  for (const t of childTypes) {
    const r = await resolve(t);
    prunable.add(groupKind(r.group, r.kind));
  }
  const prepared: { key: string; ref: ObjectRef; body: KubeObject }[] = [];
  const seen = new Set<string>();
  for (const [i, child] of desired.entries()) {
    const at = `desired[${String(i)}]`;
    if (typeof child?.apiVersion !== 'string' || typeof child.kind !== 'string') {
      throw new InvalidArgumentError(op, `${at}`, child, 'must have apiVersion and kind');
    }
    const name = child.metadata?.name;
    if (typeof name !== 'string' || name === '') {
      throw new InvalidArgumentError(
        op,
        `${at}.metadata.name`,
        name,
        'must be set: children are applied by name',
      );
    }
    const r = await resolve({ apiVersion: child.apiVersion, kind: child.kind });
    let namespace = child.metadata?.namespace || undefined;
    if (r.namespaced && namespace === undefined) {
      if (ownerNs === undefined) {
        throw new InvalidArgumentError(
          op,
          `${at}.metadata.namespace`,
          namespace,
          `must be set: ${child.kind} is namespaced and the owner ${ownerKey} is cluster-scoped, so there is no namespace to default to`,
        );
      }
      namespace = ownerNs;
    }
    const body = setControllerReference(owner, {
      ...child,
      metadata: { ...child.metadata, ...(namespace !== undefined ? { namespace } : {}) },
    });
    const key = objectId(r.group, r.kind, namespace, name);
    if (seen.has(key)) {
      throw new InvalidArgumentError(
        op,
        `${at}.metadata.name`,
        name,
        `must be unique: ${child.kind} ${namespace !== undefined ? `${namespace}/` : ''}${name} is desired twice`,
      );
    }
    seen.add(key);
    prepared.push({
      key,
      ref: {
        apiVersion: child.apiVersion,
        kind: child.kind,
        ...(namespace !== undefined ? { namespace } : {}),
        name,
      },
      body,
    });
  }

  // 2. What exists for every kind involved: from the cache when given, else a LIST (metadata only).
  const existing = new Map<string, Existing>();
  const selected = options.labelSelector !== undefined ? labelMatcher(options.labelSelector) : undefined;
  for (const [gk, r] of resources) {
    const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
    const cached = options.existing?.(
      { apiVersion, kind: r.kind },
      r.namespaced && ownerNs !== undefined ? ownerNs : undefined,
    );
    const items =
      cached !== undefined
        ? cached.filter(
            (o) =>
              (!r.namespaced || ownerNs === undefined || o.metadata.namespace === ownerNs) &&
              (selected === undefined || selected(o.metadata.labels)),
          )
        : ((
            await client.list<{ metadata: ObjectMeta }>(
              { apiVersion, kind: r.kind },
              {
                metadataOnly: true,
                ...(r.namespaced && ownerNs !== undefined ? { namespace: ownerNs } : {}),
                ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
              },
            )
          ).items ?? []);
    for (const item of items) {
      const meta = item.metadata;
      const name = meta.name ?? '';
      const namespace = meta.namespace || undefined;
      const controller = (meta.ownerReferences ?? []).find((o) => o.controller === true);
      existing.set(objectId(r.group, r.kind, namespace, name), {
        ref: { apiVersion, kind: r.kind, ...(namespace !== undefined ? { namespace } : {}), name },
        meta,
        prunable: prunable.has(gk) && controller?.uid === ownerRef.uid,
      });
    }
  }
  for (const p of prepared) {
    const refs = existing.get(p.key)?.meta.ownerReferences;
    // throws AlreadyOwnedError when the live object has another controller
    if (refs)
      setControllerReference(owner, { ...p.body, metadata: { ...p.body.metadata, ownerReferences: refs } });
  }

  // 3. Apply, one at a time.
  const applied: ObjectRef[] = [];
  const unchanged: ObjectRef[] = [];
  const objects: KubeObject[] = [];
  const failures: { child: ObjectRef; error: unknown }[] = [];
  const force = options.force ?? true;
  const memo = appliedMemo(client);
  for (const p of prepared) {
    const live = existing.get(p.key)?.meta;
    const sent = appliedKey(p.body, options.fieldManager, force);
    const last = memo.get(p.key);
    if (
      last !== undefined &&
      live !== undefined &&
      last.sent === sent &&
      live.resourceVersion === last.object.metadata.resourceVersion &&
      live.uid === last.object.metadata.uid
    ) {
      // Nothing wrote the child since this body was applied: applying it again changes nothing
      // but, on a real server, the managedFields time of a defaulted atomic list (README).
      memo.touch(p.key, last);
      unchanged.push(p.ref);
      objects.push(last.object);
      continue;
    }
    try {
      const out = await client.apply(p.body, { fieldManager: options.fieldManager, force });
      const before = live?.resourceVersion;
      (before !== undefined && out.metadata.resourceVersion === before ? unchanged : applied).push(p.ref);
      objects.push(out);
      memo.touch(p.key, { sent, object: out });
    } catch (error) {
      memo.delete(p.key);
      failures.push({ child: p.ref, error });
    }
  }
  if (failures.length > 0)
    throw new ApplyChildrenError(ownerKey, failures, { applied, unchanged, pruned: [], objects });

  // 4. Prune owned children that are not desired.
  const pruned: ObjectRef[] = [];
  for (const [key, e] of existing) {
    if (!e.prunable || seen.has(key) || e.meta.deletionTimestamp) continue;
    try {
      await client.delete(e.ref, {
        propagationPolicy: 'Background',
        ...(e.meta.uid !== undefined ? { preconditions: { uid: e.meta.uid } } : {}),
      });
      pruned.push(e.ref);
      memo.delete(key);
    } catch (error) {
      if (isNotFound(error) || isConflict(error)) continue;
      throw error;
    }
  }
  return { applied, unchanged, pruned, objects };
}

/** What was last applied to a child, and the child as that apply returned it. */
interface Applied {
  /** The body, field manager and force as sent ({@link appliedKey}). */
  readonly sent: string;
  readonly object: KubeObject;
}

/** Children remembered per client (see {@link appliedMemo}); the least recently used go first. */
const APPLIED_MEMO_SIZE = 10_000;

/** A bounded map of the last apply per child, least recently used first. */
class AppliedMemo {
  private readonly entries = new Map<string, Applied>();
  get(key: string): Applied | undefined {
    return this.entries.get(key);
  }
  touch(key: string, applied: Applied): void {
    this.entries.delete(key);
    this.entries.set(key, applied);
    if (this.entries.size > APPLIED_MEMO_SIZE) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }
  delete(key: string): void {
    this.entries.delete(key);
  }
}

const memos = new WeakMap<object, AppliedMemo>();

/**
 * The memo of `client`'s connection. Keyed by its `discovery`, which lives as long as the
 * connection, whatever wraps the client per reconcile (the trace stamp, a write tracker) — so a
 * memo is per cluster and goes with the client.
 */
function appliedMemo(client: Pick<Client, 'discovery'>): AppliedMemo {
  const owner = client.discovery as object;
  let memo = memos.get(owner);
  if (memo === undefined) {
    memo = new AppliedMemo();
    memos.set(owner, memo);
  }
  return memo;
}

/** The apply as sent, as canonical JSON (keys sorted): equal bodies give equal keys. */
function appliedKey(body: KubeObject, fieldManager: string, force: boolean): string {
  return JSON.stringify([fieldManager, force, body], (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

function groupKind(group: string, kind: string): string {
  return group ? `${kind}.${group}` : kind;
}

function objectId(group: string, kind: string, namespace: string | undefined, name: string): string {
  return `${groupKind(group, kind)} ${namespace ? `${namespace}/` : ''}${name}`;
}

function refText(r: ObjectRef): string {
  return `${r.kind} ${r.namespace ? `${r.namespace}/` : ''}${r.name}`;
}

function errorText(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
