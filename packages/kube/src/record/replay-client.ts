/**
 * The dry-run sink of a replay: a `Client` that answers reads from the replayed state (the objects
 * the recorded watch events carried, as of the virtual time), and records writes instead of
 * sending them. A write that matches the next recorded write of the same verb and object is
 * answered as the server answered it then (its `resourceVersion`, or its error), so the
 * controller's write tracking sees what it saw when recorded; any other write is answered with the
 * object as it is, changed by nothing.
 *
 * @module
 */
import type { SchedulerLike } from 'rxjs';

import type { ApiResource } from '../client/api-resource.js';
import { makeApiResource } from '../client/api-resource.js';
import type { Client } from '../client/client.js';
import type { ListOptions, ObjectList } from '../client/verb-options.js';
import { KubeApiError } from '../errors.js';
import { labelMatcher } from '../selector/label-selector.js';
import type { KubeObject, ObjectRef, ResourceType, WatchEvent } from '../types.js';
import type { RecordedResource, RecordedWrite, WriteOutcome } from './format.js';
import { redactForRecord } from './redact.js';
import type { WriteCall } from './write-client.js';
import { currentReconcile, decorateWrites, writeKey } from './write-client.js';

/** Kinds Kubernetes serves cluster-scoped, for a replay whose header did not resolve them. */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'ClusterRole',
  'ClusterRoleBinding',
  'CustomResourceDefinition',
  'StorageClass',
  'PriorityClass',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
  'APIService',
]);

const groupOf = (apiVersion: string): string => (apiVersion.includes('/') ? apiVersion.split('/')[0]! : '');
const idOf = (type: ResourceType, namespace: string | undefined, name: string): string =>
  JSON.stringify([groupOf(type.apiVersion), type.kind, namespace ?? '', name]);

/**
 * One write a replay's controllers made: what a recording's `write` line holds (without `type`),
 * and its place among the replay's reconciles and writes (`seq`).
 *
 * ## Example
 * ```ts
 * const line = (w: ReplayWrite) => `${w.t}ms ${w.verb} ${w.ref.kind} ${w.ref.name}`;
 * ```
 */
export type ReplayWrite = Omit<RecordedWrite, 'type'> & { readonly seq: number };

/** The objects as of the replay's virtual time, and the writes made against them. */
export class ReplayState {
  private readonly objects = new Map<string, KubeObject>();
  /** The objects with the replay's successful writes applied over the delivered ones. */
  private readonly after = new Map<string, KubeObject>();
  /** Recorded writes not yet matched, by `verb ref subresource`. */
  private readonly recorded = new Map<string, RecordedWrite[]>();
  readonly writes: ReplayWrite[] = [];
  private seq = 0;

  constructor(
    private readonly resources: readonly RecordedResource[],
    recordedWrites: readonly RecordedWrite[],
    private readonly scheduler: SchedulerLike,
    private readonly t0: number,
  ) {
    for (const w of recordedWrites) {
      const id = matchId(w.verb, w.ref, w.subresource);
      const list = this.recorded.get(id) ?? [];
      list.push(w);
      this.recorded.set(id, list);
    }
  }

  /** Applies a delivered watch event to the state. */
  deliver(event: WatchEvent<KubeObject>): void {
    if (!('object' in event)) return;
    const o = event.object;
    const id = idOf(o as ResourceType, o.metadata.namespace, o.metadata.name ?? '');
    if (event.type === 'Delete') {
      this.objects.delete(id);
      this.after.delete(id);
    } else {
      this.objects.set(id, o);
      this.after.set(id, o);
    }
  }

  /**
   * The final state: each object as last delivered, with the replay's successful writes since
   * merged over it (creates and applies added, merge patches merged, deletes removed; JSON
   * patches are not applied). Sorted by kind, namespace and name.
   */
  final(): KubeObject[] {
    return [...this.after.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o);
  }

  /** The next sequence number (orders writes and reconciles of one replay). */
  next(): number {
    return this.seq++;
  }

  resolve(type: ResourceType): ApiResource {
    const known = this.resources.find((r) => r.apiVersion === type.apiVersion && r.kind === type.kind);
    const [group, version] = type.apiVersion.includes('/')
      ? (type.apiVersion.split('/') as [string, string])
      : ['', type.apiVersion];
    return makeApiResource({
      group,
      version,
      kind: type.kind,
      plural: known?.plural ?? `${type.kind.toLowerCase()}s`,
      namespaced: known?.namespaced ?? !CLUSTER_SCOPED.has(type.kind),
      verbs: ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'],
      subresources: known?.subresources ?? ['status'],
      shortNames: [],
    });
  }

  get(ref: ObjectRef): KubeObject | undefined {
    return this.objects.get(idOf(ref, ref.namespace, ref.name));
  }

  list(type: ResourceType, options: ListOptions): KubeObject[] {
    const matches = options.labelSelector !== undefined ? labelMatcher(options.labelSelector) : () => true;
    return [...this.objects.values()].filter(
      (o) =>
        groupOf(o.apiVersion ?? '') === groupOf(type.apiVersion) &&
        o.kind === type.kind &&
        (options.namespace === undefined || o.metadata.namespace === options.namespace) &&
        matches(o.metadata.labels),
    );
  }

  /** Records a write and answers it (see the module doc). */
  write(call: WriteCall, about: { controller: string; primary: ResourceType }): Promise<unknown> {
    const match = matchId(call.verb, call.ref, call.subresource);
    const matched = this.recorded.get(match)?.shift();
    const outcome: WriteOutcome = matched?.outcome ?? { ok: true };
    const key = writeKey(call, about.primary);
    const fieldManager = call.options['fieldManager'];
    this.writes.push({
      seq: this.next(),
      t: this.scheduler.now() - this.t0,
      controller: currentReconcile()?.controller ?? about.controller,
      ...(key !== undefined ? { key } : {}),
      verb: call.verb,
      ref: call.ref,
      ...(call.subresource !== undefined ? { subresource: call.subresource } : {}),
      ...(call.patchType !== undefined ? { patchType: call.patchType } : {}),
      ...(call.body !== undefined ? { body: redactForRecord(call.body, call.ref) } : {}),
      ...(typeof fieldManager === 'string' ? { fieldManager } : {}),
      ...(call.options['force'] === true ? { force: true } : {}),
      outcome,
    });
    if (!outcome.ok) return Promise.reject(this.error(call, outcome));
    const current = this.get(call.ref);
    const id = idOf(call.ref, call.ref.namespace, call.ref.name);
    if (call.verb === 'delete') {
      this.after.delete(id);
      return Promise.resolve({ apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success' });
    }
    const body = (call.patchType === 'json' ? {} : (call.body ?? {})) as Record<string, unknown>;
    const merged = merge(current ?? {}, body) as KubeObject;
    const written = this.after.get(id);
    this.after.set(id, {
      ...(merge(written ?? current ?? {}, body) as KubeObject),
      apiVersion: call.ref.apiVersion,
      kind: call.ref.kind,
    });
    const rv = outcome.resourceVersion ?? current?.metadata.resourceVersion ?? '0';
    return Promise.resolve({
      ...merged,
      apiVersion: call.ref.apiVersion,
      kind: call.ref.kind,
      metadata: { ...merged.metadata, name: call.ref.name, resourceVersion: rv },
    });
  }

  private error(call: WriteCall, outcome: Extract<WriteOutcome, { ok: false }>): KubeApiError {
    const r = this.resolve(call.ref);
    const code = outcome.code ?? 500;
    return new KubeApiError({
      httpStatus: code,
      method: call.verb === 'create' ? 'POST' : call.verb === 'delete' ? 'DELETE' : 'PATCH',
      url: `replay://${r.path({ ...(call.ref.namespace !== undefined ? { namespace: call.ref.namespace } : {}), name: call.ref.name })}`,
      target: {
        verb: call.verb === 'replace' ? 'update' : call.verb === 'apply' ? 'patch' : call.verb,
        group: r.group,
        resource: r.plural,
      },
      status: {
        apiVersion: 'v1',
        kind: 'Status',
        metadata: {},
        status: 'Failure',
        code,
        reason: outcome.reason,
        message: `replayed: the recorded write failed with ${code} ${outcome.reason}`,
      },
    });
  }

  /** A 404 of `get`, as the API server words it. */
  notFound(ref: ObjectRef): KubeApiError {
    return this.error({ verb: 'patch', ref, options: {} }, { ok: false, code: 404, reason: 'NotFound' });
  }
}

function matchId(verb: string, ref: ObjectRef, subresource: string | undefined): string {
  return JSON.stringify([
    verb,
    groupOf(ref.apiVersion),
    ref.kind,
    ref.namespace ?? '',
    ref.name,
    subresource ?? '',
  ]);
}

/** JSON merge patch (RFC 7386) of `patch` onto `target`, as a new value. */
function merge(target: unknown, patch: unknown): unknown {
  const isObj = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObj(patch)) return structuredClone(patch);
  const out: Record<string, unknown> = isObj(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v);
  }
  return out;
}

/**
 * A `Client` over a {@link ReplayState} for controller `about.controller`: reads from the state,
 * writes recorded (see the module doc).
 */
export function replayClient(
  state: ReplayState,
  about: { controller: string; primary: ResourceType },
): Client {
  const base: Client = {
    discovery: { resolve: (type: ResourceType) => Promise.resolve(state.resolve(type)) },
    get: <T = Record<string, unknown>>(ref: ObjectRef): Promise<T> => {
      const o = state.get(ref);
      return o === undefined ? Promise.reject(state.notFound(ref)) : Promise.resolve(structuredClone(o) as T);
    },
    list: <T extends KubeObject = KubeObject>(type: ResourceType, options: ListOptions = {}) =>
      Promise.resolve<ObjectList<T>>({
        apiVersion: type.apiVersion,
        kind: `${type.kind}List`,
        metadata: { resourceVersion: '0' },
        items: state.list(type, options).map((o) => structuredClone(o) as T),
      }),
    create: () => Promise.reject(new Error('unreachable: decorated')),
    replace: () => Promise.reject(new Error('unreachable: decorated')),
    patch: () => Promise.reject(new Error('unreachable: decorated')),
    apply: () => Promise.reject(new Error('unreachable: decorated')),
    delete: () => Promise.reject(new Error('unreachable: decorated')),
  };
  return decorateWrites(base, (call) => state.write(call, about));
}

/**
 * A client to run a module's `setup` with before a replay (its registrations are what replay
 * needs): discovery answered from the recording, reads find nothing (404), writes are refused
 * (403) — so `mgr.ensureCrd` resolves `undefined` at once instead of installing anything.
 *
 * ## Example
 * ```ts
 * declare const recording: Recording;
 * declare function setup(mgr: Manager): Promise<void>;
 * const mgr = new Manager({ client: setupClient(recording) as KubeClient, name: recording.header.name, logLevel: 'silent' });
 * await setup(mgr);
 * const report = await replay(recording, mgr.registered);
 * ```
 */
export function setupClient(recording: {
  readonly header: { readonly resources?: readonly RecordedResource[] };
}): Client {
  const state = new ReplayState(recording.header.resources ?? [], [], { now: () => 0 } as SchedulerLike, 0);
  const refused = (verb: string, ref: ObjectRef): Promise<never> =>
    Promise.reject(
      new KubeApiError({
        httpStatus: 403,
        method: 'PATCH',
        url: `replay://setup`,
        target: { verb, resource: state.resolve(ref).plural },
        status: {
          apiVersion: 'v1',
          kind: 'Status',
          metadata: {},
          status: 'Failure',
          code: 403,
          reason: 'Forbidden',
          message: 'replay: setup writes nothing',
        },
      }),
    );
  const refOf = (o: {
    apiVersion?: string;
    kind?: string;
    metadata?: { name?: string; namespace?: string };
  }): ObjectRef => ({
    apiVersion: o.apiVersion ?? '',
    kind: o.kind ?? '',
    name: o.metadata?.name ?? '',
  });
  return {
    discovery: { resolve: (type: ResourceType) => Promise.resolve(state.resolve(type)) },
    get: (ref: ObjectRef) => Promise.reject(state.notFound(ref)),
    list: (type: ResourceType) =>
      Promise.resolve({
        apiVersion: type.apiVersion,
        kind: `${type.kind}List`,
        metadata: { resourceVersion: '0' },
        items: [],
      }),
    create: (o: Parameters<typeof refOf>[0]) => refused('create', refOf(o)),
    replace: (o: Parameters<typeof refOf>[0]) => refused('update', refOf(o)),
    apply: (o: Parameters<typeof refOf>[0]) => refused('patch', refOf(o)),
    patch: (ref: ObjectRef) => refused('patch', ref),
    delete: (ref: ObjectRef) => refused('delete', ref),
  };
}
