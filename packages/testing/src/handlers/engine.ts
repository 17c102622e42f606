/**
 * The object semantics of kube-apiserver, independent of HTTP: create, get, list, update, patch,
 * server-side apply, the status subresource, generation, no-op writes, delete with preconditions,
 * propagation policies and finalizers, deletecollection. Every failure is an {@link ApiError}
 * carrying the real Status.
 *
 * Used by the HTTP handlers, the controllers (GC, namespaces, CRDs) and the test state helpers.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';

import { parse as parseYaml } from 'yaml';

import { ApplyConflictError, recordUpdate, serverSideApply } from '../apply/field-manager.js';
import { applyJsonPatch, PatchError } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch } from '../patch/strategic-merge.js';
import { omitEmptyBuiltin } from '../registry/builtins.js';
import type { ResourceType } from '../registry/types.js';
import type { FieldSelector, LabelSelector } from '../selectors.js';
import { parseFieldSelector, parseLabelSelector, SelectorError } from '../selectors.js';
import type { StatusCause } from '../status.js';
import {
  alreadyExists,
  ApiError,
  badRequest,
  conflict,
  expired,
  failure,
  internalError,
  invalid,
  invalidGeneric,
  invalidOptions,
  invalidResource,
  namespaceTerminating,
  notFound,
  resourceVersionTooLarge,
  unsupportedMediaType,
  unsupportedPatchForCustomResource,
} from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { clone, deepEqual, isObject, metaOf, rfc3339, sortKeys } from '../store/object.js';
import type { ObjectStore } from '../store/store.js';
import { objectKey } from '../store/store.js';
import { applySchemaDefaults, pruneUnknownFields, validateAgainstSchema } from '../validation/schema.js';
import { validateObjectName } from '../validation/names.js';

/** Options of a write. */
export interface WriteOptions {
  /** Field manager recorded in managedFields. */
  readonly manager: string;
  /** `dryRun=All`: everything but the commit. */
  readonly dryRun?: boolean;
  /** `status` for the status subresource, `scale` for a write through `/scale`. */
  readonly subresource?: 'status' | 'scale' | undefined;
}

/** DeleteOptions (body and query merged). */
export interface DeleteOptions {
  readonly propagationPolicy?: 'Background' | 'Foreground' | 'Orphan';
  readonly preconditions?: { uid?: string; resourceVersion?: string };
  readonly gracePeriodSeconds?: number;
  readonly dryRun?: boolean;
}

/** Result of a write: the object in the request's version and the HTTP code. */
export interface WriteResult {
  readonly code: 200 | 201;
  readonly object: KObj;
}

/** Result of a DELETE: either the object (still present) or gone. */
export type DeleteResult =
  { readonly gone: false; readonly object: KObj } | { readonly gone: true; readonly last: KObj };

/** List options as parsed from the query. */
export interface ListOptions {
  readonly labelSelector?: string | null;
  readonly fieldSelector?: string | null;
  readonly limit?: string | null;
  readonly continue?: string | null;
  readonly resourceVersion?: string | null;
  readonly resourceVersionMatch?: string | null;
}

/** A list result in storage form. */
export interface ListResult {
  readonly resourceVersion: number;
  readonly items: KObj[];
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** Parsed selectors of a list or watch. */
export interface Selectors {
  readonly label: LabelSelector;
  readonly field: FieldSelector;
}

/** Hooks the controllers install. */
export interface EngineHooks {
  /** Called after an object was removed from the store. */
  onRemoved?(type: ResourceType, last: KObj): void;
  /** Called after an object got a deletionTimestamp (finalizers pending). */
  onTerminating?(type: ResourceType, obj: KObj): void;
  /** Type-specific changes when an object starts terminating (CRDs: the Terminating condition). */
  onMarkDeleting?(type: ResourceType, obj: KObj): void;
  /** Finalizers a type adds on DELETE (CRDs: customresourcecleanup). */
  deleteFinalizers?(type: ResourceType, obj: KObj): string[];
  /** Extra validation of a type (CRDs). */
  validate?(type: ResourceType, obj: KObj, old: KObj | undefined): StatusCause[];
}

/** Engine configuration. */
export interface EngineConfig {
  readonly namespaceLifecycle: boolean;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** How long a list snapshot stays readable for continue tokens (ms). */
  readonly continueTokenTtlMs: number;
}

const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

const CREATE_RESET_META = [
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'generation',
  'selfLink',
] as const;

const KNOWN_META = new Set([
  'name',
  'generateName',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

/** Decoded continue token. */
interface ContinueToken {
  readonly rv: number;
  readonly start: string;
}

/** Encodes a continue token exactly like the real server (unpadded base64url JSON). */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64url');
}

function decodeContinue(token: string): ContinueToken {
  const fail = (why: string): never => {
    throw new ApiError(badRequest(`invalid continue token: continue key is not valid: ${why}`));
  };
  if (!/^[A-Za-z0-9_\-+/]*={0,2}$/.test(token)) return fail('illegal base64 data');
  // Go reports the offending byte itself ('\u0081'), not a UTF-8 replacement character: read bytes as latin1
  const text = Buffer.from(token, 'base64url').toString('latin1');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail(`invalid character '${jsonFirstBad(text)}' looking for beginning of value`);
  }
  if (!isObject(parsed) || parsed['v'] !== 'meta.k8s.io/v1') {
    return fail('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  const rv = parsed['rv'];
  const start = parsed['start'];
  if (typeof rv !== 'number' || !Number.isInteger(rv) || typeof start !== 'string' || start === '') {
    return fail('incorrect encoded start resourceVersion (version meta.k8s.io/v1)');
  }
  return { rv, start };
}

function jsonFirstBad(text: string): string {
  const c = text.codePointAt(0) ?? 0;
  return c < 0x20 || c > 0x7e ? `\\u${c.toString(16).padStart(4, '0')}` : String.fromCodePoint(c);
}

/** Parses a resourceVersion query/body value like the real server (non-numeric → 500). */
export function parseResourceVersion(value: string, prefix = ''): number {
  if (!/^\d+$/.test(value)) {
    throw new ApiError(
      internalError(`${prefix}strconv.ParseUint: parsing ${JSON.stringify(value)}: invalid syntax`),
    );
  }
  return Number(value);
}

/** The object semantics. */
export class Engine {
  hooks: EngineHooks = {};

  constructor(
    readonly store: ObjectStore,
    readonly config: EngineConfig,
  ) {}

  /** RFC 3339 seconds of now. */
  nowIso(): string {
    return rfc3339(this.config.now());
  }

  /** Key of an object of a type. */
  keyOf(type: ResourceType, namespace: string | undefined, name: string): string {
    return objectKey(type.namespaced ? namespace : undefined, name);
  }

  /** Converts a stored object to the type's wire form. */
  present(type: ResourceType, stored: KObj): KObj {
    const wire = type.fromStorage(stored);
    return type.builtin ? wire : (sortKeys(wire) as KObj);
  }

  /** The stored object or 404. */
  getStored(type: ResourceType, namespace: string | undefined, name: string): KObj {
    const o = this.store.get(type.storageKey, this.keyOf(type, namespace, name));
    if (!o) throw new ApiError(notFound(type, name));
    return o;
  }

  // ---------------------------------------------------------------- decoding

  /** Parses a JSON (or YAML) request body into an object; 400 like the real decoder. */
  decode(type: ResourceType, body: Buffer, yaml = false): KObj {
    const text = body.toString('utf8');
    const unrecognized = (why: string): never => {
      const snippet = text.length === 0 ? '<empty>' : text.length > 30 ? `${text.slice(0, 30)} ...` : text;
      throw new ApiError(
        badRequest(
          `the object provided is unrecognized (must be of type ${type.kind}): couldn't get version/kind; json parse error: ${why} (${snippet})`,
        ),
      );
    };
    let value: unknown;
    if (text.trim() === '') return unrecognized('unexpected end of JSON input');
    try {
      value = yaml ? parseYaml(text) : JSON.parse(text);
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      const pos = /at position (\d+)/.exec(msg);
      const atEnd =
        /end of (JSON )?input|Unterminated|Unexpected end/i.test(msg) ||
        (pos !== null && Number(pos[1]) >= text.length);
      return unrecognized(atEnd ? 'unexpected end of JSON input' : msg);
    }
    if (!isObject(value)) {
      return unrecognized(
        `json: cannot unmarshal ${Array.isArray(value) ? 'array' : typeof value} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`,
      );
    }
    const meta = value['metadata'];
    if (meta !== undefined && meta !== null && !isObject(meta)) {
      throw new ApiError(
        badRequest(
          `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: json: cannot unmarshal ${typeof meta} into Go struct field ${type.kind}.metadata of type v1.ObjectMeta`,
        ),
      );
    }
    const obj = value as KObj;
    obj.metadata = isObject(meta) ? meta : {};
    return obj;
  }

  /** 400 when the body's kind/apiVersion do not match the URL; fills them in when absent. */
  checkTypeMeta(type: ResourceType, obj: KObj): void {
    const kind =
      typeof obj['kind'] === 'string'
        ? obj['kind']
        : obj['kind'] === undefined
          ? undefined
          : JSON.stringify(obj['kind']);
    const apiVersion =
      typeof obj['apiVersion'] === 'string'
        ? obj['apiVersion']
        : obj['apiVersion'] === undefined
          ? undefined
          : JSON.stringify(obj['apiVersion']);
    if (kind !== undefined && kind !== '' && kind !== type.kind) {
      const v = typeof apiVersion === 'string' && apiVersion !== '' ? apiVersion : type.apiVersion;
      const version = v.includes('/') ? v.split('/')[1] : v;
      throw new ApiError(
        badRequest(
          `${String(kind)} in version "${version ?? ''}" cannot be handled as a ${type.kind}: converting (${version ?? ''}.${String(kind)}) to (${type.group === '' ? 'core' : (type.group.split('.')[0] ?? '')}.${type.kind}): unknown conversion`,
        ),
      );
    }
    if (apiVersion !== undefined && apiVersion !== '' && apiVersion !== type.apiVersion) {
      throw new ApiError(
        badRequest(
          `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: no kind "${type.kind}" is registered for version "${String(apiVersion)}" in scheme "pkg/runtime/scheme.go:100"`,
        ),
      );
    }
    const msg = type.decodeCheck?.(obj);
    if (msg !== undefined) throw new ApiError(badRequest(msg));
    obj['kind'] = type.kind;
    obj['apiVersion'] = type.apiVersion;
  }

  /** 400 when the body's namespace differs from the URL's; sets it otherwise. */
  checkNamespace(type: ResourceType, obj: KObj, namespace: string | undefined): void {
    const ns = obj.metadata.namespace;
    if (!type.namespaced) {
      delete obj.metadata.namespace;
      return;
    }
    if (ns !== undefined && ns !== '' && ns !== namespace) {
      throw new ApiError(
        badRequest('the namespace of the provided object does not match the namespace sent on the request'),
      );
    }
    if (namespace !== undefined) obj.metadata.namespace = namespace;
  }

  /** Drops unknown top-level and metadata fields (no strict field validation in 1.24). */
  private sanitize(type: ResourceType, obj: KObj): KObj {
    const out: KObj = { kind: obj['kind'], apiVersion: obj['apiVersion'], metadata: {} };
    for (const [k, v] of Object.entries(obj.metadata))
      if (KNOWN_META.has(k) && v !== undefined && v !== null) out.metadata[k] = v;
    for (const [k, v] of Object.entries(obj)) {
      if (k === 'kind' || k === 'apiVersion' || k === 'metadata') continue;
      if (type.knownFields && !type.knownFields.includes(k)) continue;
      out[k] = v;
    }
    if (type.builtin) {
      // CRD schemas are free-form JSON (a property may be called `data`): only metadata there.
      if (type.kind === 'CustomResourceDefinition') omitEmptyBuiltin({ metadata: out.metadata }, type.kind);
      else omitEmptyBuiltin(out, type.kind);
    }
    if (type.schema) return this.applySchema(type, out);
    return out;
  }

  private applySchema(type: ResourceType, obj: KObj): KObj {
    const schema = type.schema ?? {};
    const { kind, apiVersion, metadata, ...rest } = obj;
    let body: unknown = rest;
    if (!type.preserveUnknownFields) body = pruneUnknownFields(body, schema);
    body = applySchemaDefaults(body, schema);
    return { ...(isObject(body) ? body : {}), kind, apiVersion, metadata };
  }

  /** Validation: name, labels, type rules, schema, hooks. Throws 422. */
  private validate(type: ResourceType, obj: KObj, old: KObj | undefined): void {
    const causes: StatusCause[] = [];
    if (!old) causes.push(...validateObjectName(obj.metadata.name, type.nameRule, obj.metadata.generateName));
    causes.push(...(type.validate?.(obj) ?? []));
    if (type.schema) {
      const { kind: _k, apiVersion: _a, metadata: _m, ...rest } = obj;
      causes.push(...validateAgainstSchema(rest, type.schema, ''));
    }
    causes.push(...(this.hooks.validate?.(type, obj, old) ?? []));
    if (causes.length > 0) throw new ApiError(invalid(type.invalidKind ?? type, obj.metadata.name, causes));
  }

  private checkNamespaceForCreate(type: ResourceType, namespace: string | undefined, name: string): void {
    if (!type.namespaced || !this.config.namespaceLifecycle || namespace === undefined) return;
    const ns = this.store.get('/namespaces', namespace);
    if (!ns) throw new ApiError(notFound({ group: '', resource: 'namespaces' }, namespace));
    const phase = (ns['status'] as Json | undefined)?.['phase'];
    if (ns.metadata.deletionTimestamp || phase === 'Terminating') {
      throw new ApiError(namespaceTerminating(type, name, namespace));
    }
  }

  // ---------------------------------------------------------------- create

  /**
   * Creates an object from its wire form (TypeMeta already checked). `applied` marks a create by
   * server-side apply (managedFields already computed).
   */
  create(
    type: ResourceType,
    namespace: string | undefined,
    body: KObj,
    opts: WriteOptions,
    applied = false,
  ): WriteResult {
    this.checkNamespace(type, body, namespace);
    const obj = this.sanitize(type, body);
    for (const k of CREATE_RESET_META) delete obj.metadata[k];
    if (type.hasStatus && !type.builtin) delete obj['status'];
    if (type.hasStatus && type.builtin && type.resource !== 'namespaces') delete obj['status'];
    const nameForErrors = obj.metadata.name ?? obj.metadata.generateName ?? '';
    if (!obj.metadata.name && obj.metadata.generateName) {
      obj.metadata.name = this.generateName(type, namespace, obj.metadata.generateName);
    }
    type.defaults?.(obj);
    this.validate(type, obj, undefined);
    const name = obj.metadata.name ?? '';
    this.checkNamespaceForCreate(type, namespace, name || nameForErrors);
    const key = this.keyOf(type, namespace, name);
    if (this.store.get(type.storageKey, key)) throw new ApiError(alreadyExists(type, name));
    const now = this.nowIso();
    obj.metadata.uid = randomUUID();
    obj.metadata.creationTimestamp = now;
    if (type.hasGeneration) obj.metadata.generation = 1;
    if (!applied) {
      delete obj.metadata.managedFields;
      obj.metadata.managedFields = recordUpdate(undefined, obj, {
        manager: opts.manager,
        apiVersion: type.apiVersion,
        now,
      });
    }
    // strategy changes after the field manager ran: not owned by the writer
    type.prepare?.(obj, undefined);
    if (Array.isArray(obj.metadata.managedFields) && obj.metadata.managedFields.length === 0)
      delete obj.metadata.managedFields;
    const stored = type.toStorage(obj);
    if (opts.dryRun) {
      stored.metadata.resourceVersion = String(this.store.resourceVersion);
      return { code: 201, object: this.present(type, stored) };
    }
    this.store.create(type.storageKey, key, stored);
    return { code: 201, object: this.present(type, stored) };
  }

  private generateName(type: ResourceType, namespace: string | undefined, prefix: string): string {
    const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
    for (let attempt = 0; attempt < 8; attempt++) {
      let s = '';
      for (let i = 0; i < 5; i++)
        s += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)] ?? 'x';
      const name = base + s;
      if (!this.store.get(type.storageKey, this.keyOf(type, namespace, name))) return name;
    }
    return base + 'zzzzz';
  }

  // ---------------------------------------------------------------- update

  /** PUT (main resource or /status). */
  update(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: KObj,
    opts: WriteOptions,
  ): WriteResult {
    if (body.metadata.name !== undefined && body.metadata.name !== name) {
      throw new ApiError(
        badRequest(
          `the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`,
        ),
      );
    }
    body.metadata.name = name;
    this.checkNamespace(type, body, namespace);
    const key = this.keyOf(type, namespace, name);
    const old = this.store.get(type.storageKey, key);
    const rvText = body.metadata.resourceVersion;
    if (rvText !== undefined && rvText !== '') parseResourceVersion(rvText);
    if (!old) {
      if (type.allowCreateOnUpdate && opts.subresource === undefined) {
        delete body.metadata.resourceVersion;
        return this.create(type, namespace, body, opts);
      }
      throw new ApiError(notFound(type, name));
    }
    if ((rvText === undefined || rvText === '') && !type.allowUnconditionalUpdate) {
      throw new ApiError(
        invalidResource(type, name, [
          {
            reason: 'FieldValueInvalid',
            message: 'Invalid value: 0x0: must be specified for an update',
            field: 'metadata.resourceVersion',
          },
        ]),
      );
    }
    if (rvText !== undefined && rvText !== '' && rvText !== old.metadata.resourceVersion) {
      throw new ApiError(conflict(type, name));
    }
    const candidate = this.sanitize(type, body);
    return this.commitUpdate(type, key, old, candidate, opts, undefined);
  }

  /**
   * Turns a full candidate (wire form) into the next stored state and writes it, applying the
   * status-subresource rules, finalizer rules, validation, no-op detection, generation and
   * managedFields. `applied` carries managedFields computed by server-side apply.
   */
  private commitUpdate(
    type: ResourceType,
    key: string,
    old: KObj,
    candidate: KObj,
    opts: WriteOptions,
    appliedManagedFields: unknown[] | undefined,
  ): WriteResult {
    const oldWire = type.fromStorage(old);
    let next: KObj;
    if (type.hasStatus && opts.subresource === 'status') {
      next = clone(oldWire);
      if (candidate['status'] === undefined) delete next['status'];
      else next['status'] = clone(candidate['status']);
    } else {
      next = candidate;
      if (type.hasStatus) {
        if (oldWire['status'] === undefined) delete next['status'];
        else next['status'] = clone(oldWire['status']);
      }
      const m = next.metadata;
      const om = oldWire.metadata;
      m.name = om.name;
      if (om.namespace !== undefined) m.namespace = om.namespace;
      else delete m.namespace;
      m.uid = om.uid;
      m.creationTimestamp = om.creationTimestamp;
      if (om.generateName !== undefined && m.generateName === undefined) m.generateName = om.generateName;
      for (const k of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'generation'] as const) {
        if (om[k] !== undefined) m[k] = om[k] as never;
        else delete m[k];
      }
      if (!Array.isArray(m.managedFields)) m.managedFields = om.managedFields;
    }
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    type.defaults?.(next);
    type.prepare?.(next, oldWire);
    if (oldWire.metadata.deletionTimestamp) {
      const before = new Set(oldWire.metadata.finalizers ?? []);
      const added = (next.metadata.finalizers ?? []).filter((f) => !before.has(f));
      if (added.length > 0) {
        const msg = `Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f) => JSON.stringify(f)).join(', ')}}`;
        const cause = { reason: 'FieldValueForbidden', message: msg, field: 'metadata.finalizers' };
        // Quirk 4, copied: v1.24 validates ObjectMeta twice on update (validateCommonFields and the
        // strategy), so the cause is listed twice; the message shows it once (ToAggregate dedupes).
        throw new ApiError(invalid(type.invalidKind ?? type, next.metadata.name, [cause, { ...cause }]));
      }
    }
    this.validate(type, next, old);
    if (Array.isArray(next.metadata.finalizers) && next.metadata.finalizers.length === 0)
      delete next.metadata.finalizers;
    const strip = (o: KObj): KObj => {
      const c: KObj = { ...o, metadata: { ...o.metadata } };
      delete c.metadata.managedFields;
      delete c.metadata.resourceVersion;
      return c;
    };
    const sameContent = deepEqual(strip(next), strip(oldWire));
    const now = this.nowIso();
    if (appliedManagedFields) {
      next.metadata.managedFields = appliedManagedFields;
      if (
        sameContent &&
        deepEqual(withoutTimes(appliedManagedFields), withoutTimes(oldWire.metadata.managedFields))
      ) {
        return { code: 200, object: this.present(type, old) };
      }
    } else {
      if (sameContent) return { code: 200, object: this.present(type, old) };
      const prevForFm: KObj = { ...oldWire };
      const nextForFm: KObj = {
        ...next,
        metadata: { ...next.metadata, managedFields: oldWire.metadata.managedFields },
      };
      const mf = recordUpdate(prevForFm, nextForFm, {
        manager: opts.manager,
        apiVersion: type.apiVersion,
        now,
        ...(opts.subresource ? { subresource: opts.subresource } : {}),
      });
      next.metadata.managedFields = mf;
    }
    if (Array.isArray(next.metadata.managedFields) && next.metadata.managedFields.length === 0)
      delete next.metadata.managedFields;
    if (type.hasGeneration && !sameContent) {
      const specChanged = !deepEqual(contentOf(next), contentOf(oldWire));
      const gen = typeof oldWire.metadata.generation === 'number' ? oldWire.metadata.generation : 1;
      next.metadata.generation = specChanged ? gen + 1 : gen;
    }
    const stored = type.toStorage(next);
    if (opts.dryRun) return { code: 200, object: this.present(type, stored) };
    if (stored.metadata.deletionTimestamp && !(stored.metadata.finalizers?.length ?? 0)) {
      // the last finalizer went away: the object is removed; DELETED carries the previous state
      const response = this.present(type, stored);
      this.removeNow(type, key, clone(old));
      return { code: 200, object: response };
    }
    this.store.update(type.storageKey, key, stored);
    return { code: 200, object: this.present(type, stored) };
  }

  /**
   * Stores a controller's write (garbage collector, namespace controller, CRD status) as an
   * ordinary `Update` by `manager`, so managedFields change as on the real server: the fields it
   * changed move to its entry, and a manager that only removed fields gets no entry (file 14).
   * `next` is in storage form; nothing happens when the object is gone.
   */
  controllerUpdate(
    type: ResourceType,
    key: string,
    next: KObj,
    manager: string,
    subresource?: 'status',
  ): void {
    const old = this.store.get(type.storageKey, key);
    if (!old) return;
    const oldWire = type.fromStorage(old);
    const nextWire = type.fromStorage(next);
    const managedFields = recordUpdate(
      oldWire,
      { ...nextWire, metadata: { ...nextWire.metadata, managedFields: oldWire.metadata.managedFields } },
      {
        manager,
        apiVersion: type.apiVersion,
        now: this.nowIso(),
        ...(subresource ? { subresource } : {}),
      },
    );
    if (managedFields.length > 0) next.metadata.managedFields = managedFields;
    else delete next.metadata.managedFields;
    this.store.update(type.storageKey, key, next);
  }

  /** Removes an object now (DELETED with `last` at the new revision) and runs the removal hook. */
  removeNow(type: ResourceType, key: string, last: KObj): KObj {
    const ev = this.store.remove(type.storageKey, key, last);
    this.hooks.onRemoved?.(type, ev.object);
    return ev.object;
  }

  // ---------------------------------------------------------------- patch

  /** PATCH with any supported content type (apply included). */
  patch(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    contentType: string,
    body: Buffer,
    opts: WriteOptions & { force?: boolean; fieldManagerGiven: boolean },
  ): WriteResult {
    const ct = contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const kinds = [
      'application/merge-patch+json',
      'application/json-patch+json',
      'application/strategic-merge-patch+json',
      'application/apply-patch+yaml',
    ];
    if (!kinds.includes(ct)) throw new ApiError(unsupportedMediaType());
    if (ct === 'application/strategic-merge-patch+json' && !type.builtin)
      throw new ApiError(unsupportedPatchForCustomResource());
    if (ct === 'application/apply-patch+yaml') return this.apply(type, namespace, name, body, opts);
    const text = body.toString('utf8');
    let patch: unknown;
    try {
      patch = JSON.parse(text);
    } catch (e) {
      throw new ApiError(badRequest(e instanceof Error ? e.message : String(e)));
    }
    const key = this.keyOf(type, namespace, name);
    const old = this.store.get(type.storageKey, key);
    if (!old) throw new ApiError(notFound(type, name));
    const oldWire = type.fromStorage(old);
    let patched: unknown;
    try {
      if (ct === 'application/json-patch+json') patched = applyJsonPatch(oldWire, patch);
      else if (ct === 'application/merge-patch+json') patched = applyMergePatch(oldWire, patch);
      else patched = applyStrategicMergePatch(oldWire, patch, { group: type.group, kind: type.kind });
    } catch (e) {
      if (e instanceof PatchError) {
        throw new ApiError(e.kind === 'invalid' ? invalidGeneric() : badRequest(e.message));
      }
      throw e;
    }
    if (!isObject(patched)) throw new ApiError(invalidGeneric());
    const candidate = patched as KObj;
    candidate.metadata = isObject(candidate.metadata) ? candidate.metadata : {};
    this.checkTypeMeta(type, candidate);
    const rv = candidate.metadata.resourceVersion;
    if (rv !== undefined && rv !== old.metadata.resourceVersion) {
      parseResourceVersion(rv);
      throw new ApiError(conflict(type, name));
    }
    if (candidate.metadata.name !== name) {
      throw new ApiError(
        badRequest(
          `the name of the object (${String(candidate.metadata.name)}) does not match the name on the URL (${name})`,
        ),
      );
    }
    this.checkNamespace(type, candidate, namespace);
    return this.commitUpdate(type, key, old, this.sanitize(type, candidate), opts, undefined);
  }

  /** Server-side apply (`application/apply-patch+yaml`). */
  private apply(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    body: Buffer,
    opts: WriteOptions & { force?: boolean; fieldManagerGiven: boolean },
  ): WriteResult {
    if (!opts.fieldManagerGiven) {
      throw new ApiError(
        invalidOptions('PatchOptions', [
          {
            reason: 'FieldValueRequired',
            message: 'Required value: is required for apply patch',
            field: 'fieldManager',
          },
        ]),
      );
    }
    const applied = this.decode(type, body, true);
    this.checkTypeMeta(type, applied);
    if (applied.metadata.name !== undefined && applied.metadata.name !== name) {
      throw new ApiError(
        badRequest(
          `the name of the object (${applied.metadata.name}) does not match the name on the URL (${name})`,
        ),
      );
    }
    applied.metadata.name = name;
    this.checkNamespace(type, applied, namespace);
    const key = this.keyOf(type, namespace, name);
    const old = this.store.get(type.storageKey, key);
    const now = this.nowIso();
    const fmOpts = {
      manager: opts.manager,
      force: opts.force ?? false,
      apiVersion: type.apiVersion,
      now,
      ...(opts.subresource ? { subresource: opts.subresource } : {}),
    };
    let merged: Record<string, unknown>;
    try {
      merged = serverSideApply(old ? type.fromStorage(old) : undefined, applied, fmOpts);
    } catch (e) {
      if (e instanceof ApplyConflictError) throw new ApiError(applyConflict(e.conflicts));
      if (e instanceof PatchError)
        throw new ApiError(e.kind === 'invalid' ? invalidGeneric() : badRequest(e.message));
      throw e;
    }
    const candidate = merged as KObj;
    candidate.metadata = isObject(candidate.metadata) ? candidate.metadata : {};
    if (!old) {
      if (opts.subresource) throw new ApiError(notFound(type, name));
      return this.create(type, namespace, candidate, opts, true);
    }
    const mf = Array.isArray(candidate.metadata.managedFields) ? candidate.metadata.managedFields : [];
    const rv = applied.metadata.resourceVersion;
    if (rv !== undefined && rv !== old.metadata.resourceVersion) throw new ApiError(conflict(type, name));
    return this.commitUpdate(type, key, old, this.sanitize(type, candidate), opts, mf);
  }

  // ---------------------------------------------------------------- read

  /** Parses selectors (400 on bad input). */
  selectors(
    type: ResourceType,
    labelSelector: string | null | undefined,
    fieldSelector: string | null | undefined,
  ): Selectors {
    try {
      return {
        label: parseLabelSelector(labelSelector ?? ''),
        field: parseFieldSelector(fieldSelector ?? '', [
          'metadata.name',
          'metadata.namespace',
          ...type.selectableFields,
        ]),
      };
    } catch (e) {
      if (e instanceof SelectorError) throw new ApiError(badRequest(e.message));
      throw e;
    }
  }

  /** Whether a stored object matches selectors. */
  matches(type: ResourceType, sel: Selectors, o: KObj): boolean {
    if (!sel.label.empty && !sel.label.matches(metaOf(o).labels)) return false;
    if (sel.field.empty) return true;
    const fields: Record<string, string> = {
      'metadata.name': o.metadata.name ?? '',
      'metadata.namespace': o.metadata.namespace ?? '',
      ...(type.fields?.(o) ?? {}),
    };
    return sel.field.matches(fields);
  }

  /** LIST with selectors, pagination, resourceVersion semantics. Items in storage form. */
  list(type: ResourceType, namespace: string | undefined, q: ListOptions): ListResult {
    const sel = this.selectors(type, q.labelSelector, q.fieldSelector);
    const rvText = q.resourceVersion ?? undefined;
    const match = q.resourceVersionMatch ?? undefined;
    if (match && (rvText === undefined || rvText === '')) {
      throw new ApiError(
        invalidOptions('ListOptions', [
          {
            reason: 'FieldValueForbidden',
            message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
            field: 'resourceVersionMatch',
          },
        ]),
      );
    }
    if (match && match !== 'Exact' && match !== 'NotOlderThan') {
      throw new ApiError(
        invalidOptions('ListOptions', [
          {
            reason: 'FieldValueNotSupported',
            message: `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
            field: 'resourceVersionMatch',
          },
        ]),
      );
    }
    let limit = 0;
    if (q.limit) {
      const n = Number(q.limit);
      if (Number.isInteger(n) && n > 0) limit = n;
    }
    const current = this.store.resourceVersion;
    let atRv = current;
    let start: string | undefined;
    let fromCache = false;
    if (q.continue) {
      const tok = decodeContinue(q.continue);
      start = tok.start;
      if (tok.rv === -1) atRv = current;
      else {
        atRv = tok.rv;
        if (this.isExpired(atRv)) {
          throw new ApiError(
            expired(
              'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
              { continue: encodeContinue(-1, tok.start) },
            ),
          );
        }
      }
    } else if (rvText !== undefined && rvText !== '') {
      const rv = parseResourceVersion(
        rvText,
        'resourceVersion: Invalid value: ' + JSON.stringify(rvText) + ': ',
      );
      if (rv > current) throw new ApiError(resourceVersionTooLarge(rv, current), { 'Retry-After': '1' });
      if (match === 'Exact') {
        if (this.isExpired(rv))
          throw new ApiError(expired('The resourceVersion for the provided list is too old.'));
        atRv = rv;
      } else if (rv === 0) {
        fromCache = true;
      }
    }
    if (fromCache) limit = 0;
    let state: Map<string, KObj> | undefined;
    if (atRv !== current) {
      const s = this.store.stateAt(type.storageKey, atRv);
      if (s === 'expired')
        throw new ApiError(expired('The resourceVersion for the provided list is too old.'));
      state = s;
    }
    const keys = state ? [...state.keys()].sort() : this.store.sortedKeys(type.storageKey);
    const get = (k: string): KObj | undefined => (state ? state.get(k) : this.store.get(type.storageKey, k));
    const prefix = type.namespaced && namespace !== undefined ? `${namespace}/` : '';
    let i = prefix ? lowerBound(keys, prefix) : 0;
    if (start !== undefined) i = Math.max(i, lowerBound(keys, prefix + start));
    const items: KObj[] = [];
    const hasSelector = !sel.label.empty || !sel.field.empty;
    let lastKey: string | undefined;
    for (; i < keys.length; i++) {
      const k = keys[i] ?? '';
      if (prefix && !k.startsWith(prefix)) break;
      if (limit > 0 && items.length >= limit) break;
      const o = get(k);
      if (!o) continue;
      lastKey = k;
      if (hasSelector && !this.matches(type, sel, o)) continue;
      items.push(o);
    }
    // anything left (matching) after this page?
    let more = false;
    let remaining = 0;
    if (limit > 0 && lastKey !== undefined && !hasSelector) {
      const end = prefix ? lowerBound(keys, prefix.slice(0, -1) + '0') : keys.length;
      remaining = Math.max(0, end - i);
      more = remaining > 0;
    } else if (limit > 0 && lastKey !== undefined) {
      for (let j = i; j < keys.length; j++) {
        const k = keys[j] ?? '';
        if (prefix && !k.startsWith(prefix)) break;
        const o = get(k);
        if (!o) continue;
        if (hasSelector) {
          if (this.matches(type, sel, o)) {
            more = true;
            break;
          }
        } else {
          more = true;
          remaining++;
        }
      }
    }
    if (!more) return { resourceVersion: atRv, items };
    const tokenStart = (lastKey ?? '').slice(prefix.length) + '\u0000';
    const result: ListResult = { resourceVersion: atRv, items, continue: encodeContinue(atRv, tokenStart) };
    return hasSelector ? result : { ...result, remainingItemCount: remaining };
  }

  /** Whether reads at `rv` are no longer possible (compacted, or superseded longer than the TTL ago). */
  isExpired(rv: number): boolean {
    if (rv < this.store.compactedRevision) return true;
    return false;
  }

  // ---------------------------------------------------------------- delete

  /** DELETE of one object. */
  delete(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    opts: DeleteOptions,
    gcEnabled: boolean,
  ): DeleteResult {
    const key = this.keyOf(type, namespace, name);
    const old = this.store.get(type.storageKey, key);
    if (!old) throw new ApiError(notFound(type, name));
    const pre = opts.preconditions;
    if (pre?.uid !== undefined && pre.uid !== old.metadata.uid) {
      throw new ApiError(
        failure(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${type.kind} "${name}": the UID in the precondition (${pre.uid}) does not match the UID in record (${old.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
          { name, group: type.group, kind: type.kind },
        ),
      );
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw new ApiError(
        failure(
          409,
          'Conflict',
          `Operation cannot be fulfilled on ${type.kind} "${name}": the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${old.metadata.resourceVersion ?? ''}). The object might have been modified`,
          { name, group: type.group, kind: type.kind },
        ),
      );
    }
    if (old.metadata.deletionTimestamp) return { gone: false, object: this.present(type, old) };
    const finalizers = [...(old.metadata.finalizers ?? [])];
    const policy = opts.propagationPolicy ?? 'Background';
    const extra =
      type.resource === 'namespaces' && type.group === ''
        ? undefined
        : policy === 'Foreground'
          ? 'foregroundDeletion'
          : policy === 'Orphan'
            ? 'orphan'
            : undefined;
    const hasDependents = this.store.dependentsOf(old.metadata.uid ?? '').length > 0;
    if (extra && (hasDependents || gcEnabled) && !finalizers.includes(extra)) finalizers.push(extra);
    const isNamespace = type.group === '' && type.resource === 'namespaces' && this.config.namespaceLifecycle;
    for (const f of this.hooks.deleteFinalizers?.(type, old) ?? [])
      if (!finalizers.includes(f)) finalizers.push(f);
    if (finalizers.length === 0 && !isNamespace) {
      if (opts.dryRun) return { gone: true, last: old };
      const last = this.removeNow(type, key, clone(old));
      return { gone: true, last };
    }
    const next = clone(old);
    next.metadata.deletionTimestamp = this.nowIso();
    if (!isNamespace) next.metadata.deletionGracePeriodSeconds = 0;
    if (finalizers.length > 0) next.metadata.finalizers = finalizers;
    if (type.hasGeneration)
      next.metadata.generation =
        (typeof next.metadata.generation === 'number' ? next.metadata.generation : 1) + 1;
    if (isNamespace) {
      const status = isObject(next['status']) ? next['status'] : {};
      status['phase'] = 'Terminating';
      next['status'] = status;
    }
    this.hooks.onMarkDeleting?.(type, next);
    if (opts.dryRun) return { gone: false, object: this.present(type, next) };
    this.store.update(type.storageKey, key, next);
    this.hooks.onTerminating?.(type, next);
    return { gone: false, object: this.present(type, next) };
  }

  // ---------------------------------------------------------------- scale, finalize

  /**
   * A write of `spec.replicas` through the `scale` subresource (autoscaling/v1 Scale): 409 on a
   * stale `resourceVersion`, 422 for a negative count; recorded with `subresource: scale`.
   */
  updateScale(
    type: ResourceType,
    namespace: string | undefined,
    name: string,
    replicas: number,
    resourceVersion: string | undefined,
    opts: WriteOptions,
  ): WriteResult {
    const key = this.keyOf(type, namespace, name);
    const old = this.getStored(type, namespace, name);
    if (resourceVersion !== undefined && resourceVersion !== '') {
      parseResourceVersion(resourceVersion);
      if (resourceVersion !== old.metadata.resourceVersion) throw new ApiError(conflict(type, name));
    }
    const candidate = clone(type.fromStorage(old));
    const spec = isObject(candidate['spec']) ? candidate['spec'] : {};
    spec['replicas'] = replicas;
    candidate['spec'] = spec;
    return this.commitUpdate(type, key, old, candidate, { ...opts, subresource: 'scale' }, undefined);
  }

  /**
   * `PUT namespaces/{name}/finalize`: sets `spec.finalizers` only. When a terminating namespace is
   * left without finalizers it is removed at once; its DELETED event shows the state before
   * (file 20: `spec.finalizers: [kubernetes]`).
   */
  finalizeNamespace(type: ResourceType, name: string, finalizers: readonly string[], manager: string): KObj {
    const old = this.getStored(type, undefined, name);
    const next = clone(old);
    const spec = isObject(next['spec']) ? next['spec'] : {};
    if (finalizers.length > 0) spec['finalizers'] = [...finalizers];
    else delete spec['finalizers'];
    next['spec'] = spec;
    if (deepEqual(next, old)) return this.present(type, old);
    if (
      old.metadata.deletionTimestamp &&
      finalizers.length === 0 &&
      !(old.metadata.finalizers?.length ?? 0)
    ) {
      const response = this.present(type, next);
      this.removeNow(type, name, clone(old));
      return response;
    }
    this.controllerUpdate(type, name, next, manager);
    const stored = this.store.get(type.storageKey, name);
    return this.present(type, stored ?? next);
  }

  /** Removes a finalizer from an object (controller `manager`); removes the object when none remain. */
  removeFinalizer(type: ResourceType, key: string, finalizer: string, manager: string): void {
    const cur = this.store.get(type.storageKey, key);
    if (!cur || !(cur.metadata.finalizers ?? []).includes(finalizer)) return;
    const next = clone(cur);
    const rest = (next.metadata.finalizers ?? []).filter((f) => f !== finalizer);
    if (rest.length > 0) next.metadata.finalizers = rest;
    else delete next.metadata.finalizers;
    if (next.metadata.deletionTimestamp && rest.length === 0) {
      this.removeNow(type, key, clone(cur));
      return;
    }
    this.controllerUpdate(type, key, next, manager);
  }
}

function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] ?? '') < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function contentOf(o: KObj): Json {
  const { metadata: _m, status: _s, ...rest } = o;
  return rest;
}

function withoutTimes(mf: unknown): unknown {
  if (!Array.isArray(mf)) return [];
  return mf.map((e: unknown) => (isObject(e) ? { ...e, time: undefined } : e));
}

/** 409 for server-side apply conflicts, message formatted like the real one. */
export function applyConflict(
  conflicts: readonly { manager: string; field: string }[],
): ReturnType<typeof failure> {
  const n = conflicts.length;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.field]);
  let body: string;
  if (n === 1) {
    const c = conflicts[0];
    body = `conflict with "${c?.manager ?? ''}": ${c?.field ?? ''}`;
  } else {
    body = [...byManager.entries()]
      .map(([m, fs]) =>
        fs.length === 1
          ? `conflict with "${m}": ${fs[0] ?? ''}`
          : `conflicts with "${m}":\n${fs.map((f) => `- ${f}`).join('\n')}`,
      )
      .join('\n');
  }
  return failure(409, 'Conflict', `Apply failed with ${String(n)} conflict${n === 1 ? '' : 's'}: ${body}`, {
    causes: conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with "${c.manager}"`,
      field: c.field,
    })),
  });
}
