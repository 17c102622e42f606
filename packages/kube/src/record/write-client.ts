/**
 * Decorators of the one `Client` a controller writes through: {@link recordingClient} tells a
 * {@link FlightRecorder} every write and its outcome, {@link dryRunClient} sends every write with
 * `dryRun=All` and logs what it would have changed. Both wrap the verbs `create`, `replace`,
 * `patch`, `apply` and `delete` and pass every other member through, so they compose with each
 * other and with whatever else wraps a client. Reads are never changed.
 *
 * The reconcile a write belongs to is known while a reconcile runs inside {@link inReconcile}
 * (an `AsyncLocalStorage` scope the Manager and replay put around every reconcile); otherwise
 * (a status write after the reconcile returned, a finalizer) it is the object's own key when it
 * is of the controller's primary kind, else its controller owner's.
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { ObservableInput } from 'rxjs';
import { from, Observable } from 'rxjs';

import type { Client } from '../client/client.js';
import type { ObjectLike } from '../client/verb-options.js';
import type { ControllerLogger } from '../controller/options.js';
import { redactSecrets } from '../ops/logging.js';
import type { ObjectRef, ResourceType } from '../types.js';
import { objectKey } from '../types.js';
import type { FlightRecorder } from './flight-recorder.js';
import type { WriteOutcome, WriteVerb } from './format.js';

/** The reconcile running in this async context. */
interface ReconcileScope {
  readonly controller: string;
  readonly key: string;
}

const scope = new AsyncLocalStorage<ReconcileScope>();

/**
 * Runs a reconcile inside a scope naming its controller and key, so the writes it makes are
 * attributed to it (by `recordingClient` and replay). Keeps the reconcile's contract: it is
 * called at once (a synchronous throw reaches the caller), its output subscribed in the scope.
 *
 * ## Example
 * ```ts
 * declare const reconcile: ControllerReconcile<KubeObject>;
 * const scoped = (request: ObjectRef, ctx: ReconcileContext<KubeObject>) =>
 *   inReconcile('copy', objectKey(request), () => reconcile(request, ctx));
 * ```
 */
export function inReconcile<R>(controller: string, key: string, reconcile: () => R): R {
  const s: ReconcileScope = { controller, key };
  const out = scope.run(s, reconcile);
  if (out === undefined || out === null) return out;
  // throws here for what is not an ObservableInput, as the caller's guard expects
  const out$ = from(out as unknown as ObservableInput<unknown>);
  return new Observable<unknown>((subscriber) => scope.run(s, () => out$.subscribe(subscriber))) as R;
}

/** The reconcile (controller, key) of the current async context, if any. */
export function currentReconcile(): ReconcileScope | undefined {
  return scope.getStore();
}

/**
 * One write as a decorator sees it: verb, object reference, subresource, patch type, body and
 * options.
 *
 * ## Example
 * ```ts
 * const describe = (w: WriteCall) => `${w.verb} ${w.ref.kind} ${objectKey(w.ref)}`;
 * ```
 */
export interface WriteCall {
  readonly verb: WriteVerb;
  readonly ref: ObjectRef;
  readonly subresource?: string;
  readonly patchType?: string;
  readonly body?: unknown;
  readonly options: Readonly<Record<string, unknown>>;
}

type Send = (options: Readonly<Record<string, unknown>>) => Promise<unknown>;

/**
 * `client` with its writes passed through `around(call, send)`: `send(options)` makes the write
 * with the given options. Every other member is `client`'s own.
 *
 * ## Example
 * ```ts
 * const logged = decorateWrites(client, async (call, send) => {
 *   console.log(call.verb, call.ref.name);
 *   return send(call.options);
 * });
 * ```
 */
export function decorateWrites<C extends Client>(
  client: C,
  around: (call: WriteCall, send: Send) => Promise<unknown>,
): C {
  const refOf = (object: ObjectLike, options: { namespace?: string }): ObjectRef => {
    const namespace = options.namespace ?? object.metadata?.namespace;
    return {
      apiVersion: object.apiVersion ?? '',
      kind: object.kind ?? '',
      ...(namespace !== undefined ? { namespace } : {}),
      name: object.metadata?.name ?? object.metadata?.generateName ?? '',
    };
  };
  type Opts = Record<string, unknown> & { subresource?: string; namespace?: string };
  const sub = (o: Opts): { subresource?: string } =>
    o.subresource !== undefined ? { subresource: o.subresource } : {};
  const verbs = {
    create: (object: ObjectLike, options: Opts = {}) =>
      around({ verb: 'create', ref: refOf(object, options), ...sub(options), body: object, options }, (o) =>
        client.create(object, o),
      ),
    replace: (object: ObjectLike, options: Opts = {}) =>
      around({ verb: 'replace', ref: refOf(object, options), ...sub(options), body: object, options }, (o) =>
        client.replace(object, o),
      ),
    apply: (object: ObjectLike, options: Opts & { fieldManager: string }) =>
      around({ verb: 'apply', ref: refOf(object, options), ...sub(options), body: object, options }, (o) =>
        client.apply(object, o as typeof options),
      ),
    patch: (ref: ObjectRef, patch: { type: string; body: unknown }, options: Opts = {}) =>
      around({ verb: 'patch', ref, ...sub(options), patchType: patch.type, body: patch.body, options }, (o) =>
        client.patch(ref, patch as Parameters<Client['patch']>[1], o),
      ),
    delete: (ref: ObjectRef, options: Opts = {}) =>
      around({ verb: 'delete', ref, options }, (o) => client.delete(ref, o)),
  };
  return new Proxy(client, {
    get(target, property, receiver) {
      if (typeof property === 'string' && Object.hasOwn(verbs, property)) {
        return verbs[property as keyof typeof verbs];
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The outcome of a write's promise, for a recording. */
function outcomeOf(result: unknown, error: unknown): WriteOutcome {
  if (error === undefined) {
    const rv = (result as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
    return typeof rv === 'string' ? { ok: true, resourceVersion: rv } : { ok: true };
  }
  const e = error as { code?: unknown; reason?: unknown; name?: unknown };
  return {
    ok: false,
    ...(typeof e.code === 'number' ? { code: e.code } : {}),
    reason: typeof e.reason === 'string' ? e.reason : typeof e.name === 'string' ? e.name : 'Error',
  };
}

/**
 * The key (`namespace/name`) a write of controller `primary` belongs to: `(events)` for an Event,
 * else the running reconcile's, else the object's own when it is of the primary kind, else its
 * controller owner's.
 */
export function writeKey(call: WriteCall, primary: ResourceType | undefined): string | undefined {
  // Events are written by the recorder's own timers (aggregation), outside any reconcile's scope:
  // one group per controller, the same in a recording and its replay.
  if (call.ref.kind === 'Event') return '(events)';
  const running = currentReconcile()?.key;
  if (running !== undefined) return running;
  if (primary !== undefined && call.ref.kind === primary.kind && call.ref.apiVersion === primary.apiVersion) {
    return objectKey(call.ref);
  }
  const refs = (call.body as { metadata?: { ownerReferences?: unknown } } | undefined)?.metadata
    ?.ownerReferences;
  if (Array.isArray(refs)) {
    const owner = (refs as { controller?: boolean; name?: string; kind?: string }[]).find(
      (r) => r.controller === true && (primary === undefined || r.kind === primary.kind),
    );
    if (owner?.name !== undefined) {
      return call.ref.namespace !== undefined ? `${call.ref.namespace}/${owner.name}` : owner.name;
    }
  }
  return undefined;
}

/** The options of a write that change its meaning (what a recording keeps). */
function meaningful(options: Readonly<Record<string, unknown>>): {
  fieldManager?: string;
  force?: boolean;
  dryRun?: boolean;
} {
  return {
    ...(typeof options['fieldManager'] === 'string' ? { fieldManager: options['fieldManager'] } : {}),
    ...(typeof options['force'] === 'boolean' ? { force: options['force'] } : {}),
    ...(options['dryRun'] === true ? { dryRun: true } : {}),
  };
}

/**
 * `client` with every write told to `recorder` after it settled: verb, object, body, options,
 * outcome, and the controller and key it belongs to.
 *
 * ## Example
 * ```ts
 * const recorder = new FlightRecorder({ file: 'run.ndjson' });
 * const recorded = recordingClient(client, recorder, { controller: 'copy', primary: configMapType });
 * ```
 */
export function recordingClient<C extends Client>(
  client: C,
  recorder: FlightRecorder,
  about: { readonly controller?: string; readonly primary?: ResourceType } = {},
): C {
  return decorateWrites(client, async (call, send) => {
    const tell = (result: unknown, error: unknown): void => {
      const key = writeKey(call, about.primary);
      const controller = currentReconcile()?.controller ?? about.controller;
      recorder.write({
        ...(controller !== undefined ? { controller } : {}),
        ...(key !== undefined ? { key } : {}),
        verb: call.verb,
        ref: call.ref,
        ...(call.subresource !== undefined ? { subresource: call.subresource } : {}),
        ...(call.patchType !== undefined ? { patchType: call.patchType } : {}),
        ...(call.body !== undefined ? { body: call.body } : {}),
        ...meaningful(call.options),
        outcome: outcomeOf(result, error),
      });
    };
    try {
      const result = await send(call.options);
      tell(result, undefined);
      return result;
    } catch (error) {
      tell(undefined, error);
      throw error;
    }
  });
}

/** Fields every write changes on the server: not what a dry run reports. */
const VOLATILE = new Set(['resourceVersion', 'managedFields', 'generation', 'creationTimestamp', 'uid']);

/** Leaf paths where `before` and `after` differ (at most `limit`), ignoring volatile metadata. */
export function changedPaths(before: unknown, after: unknown, limit = 20, path = ''): string[] {
  if (JSON.stringify(before) === JSON.stringify(after)) return [];
  const isObj = (v: unknown): v is Record<string, unknown> =>
    v !== null && typeof v === 'object' && !Array.isArray(v);
  if (!isObj(before) || !isObj(after)) return [path === '' ? '.' : path];
  const out: string[] = [];
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  for (const k of keys) {
    if (path === '.metadata' && VOLATILE.has(k)) continue;
    for (const p of changedPaths(before[k], after[k], limit - out.length, `${path}.${k}`)) {
      if (out.length >= limit) return out;
      out.push(p);
    }
  }
  return out;
}

/**
 * `client` with every write sent with `dryRun=All` (validated, admitted and defaulted by the API
 * server, never persisted) and logged at info: what it would create or delete, and for updates
 * which fields would change (paths only for a Secret), comparing the object before with the dry
 * run's answer.
 *
 * ## Example
 * ```ts
 * declare const configMap: KubeObject;
 * const dry = dryRunClient(client, { info: (message, fields) => console.log(message, fields) });
 * await dry.apply(configMap, { fieldManager: 'copy' }); // logs "dry run: would apply ConfigMap ns/a (1 field)"
 * ```
 */
export function dryRunClient<C extends Client>(client: C, log: ControllerLogger): C {
  return decorateWrites(client, async (call, send) => {
    const what = `${call.ref.kind} ${objectKey(call.ref)}${call.subresource !== undefined ? `/${call.subresource}` : ''}`;
    const secret = call.ref.kind === 'Secret';
    let before: unknown;
    if (call.verb !== 'create' && call.verb !== 'delete') {
      try {
        before = await client.get(call.ref);
      } catch {
        before = undefined;
      }
    }
    const result = await send({ ...call.options, dryRun: true });
    const fields: Record<string, unknown> = { dryRun: true, verb: call.verb, object: what };
    if (call.verb === 'create' || call.verb === 'delete' || before === undefined) {
      log.info?.(`dry run: would ${call.verb === 'delete' ? 'delete' : 'create'} ${what}`, fields);
      return result;
    }
    const paths = changedPaths(before, result);
    fields['changes'] = secret
      ? paths
      : Object.fromEntries(paths.map((p) => [p, redactSecrets(valueAt(result, p))]));
    log.info?.(
      paths.length === 0
        ? `dry run: ${call.verb} ${what} would change nothing`
        : `dry run: would ${call.verb} ${what} (${paths.length} field${paths.length === 1 ? '' : 's'})`,
      fields,
    );
    return result;
  });
}

function valueAt(value: unknown, path: string): unknown {
  let v = value;
  for (const k of path.split('.').slice(1)) v = (v as Record<string, unknown> | undefined)?.[k];
  return v;
}
