/**
 * The option and result types of the Engine's operations, and the hooks the controllers install.
 *
 * @module
 */
import type { ShardSelector } from '../shard-selector.js';
import type { RequestUser } from '../auth.js';
import type { ResourceType } from '../registry/types.js';
import type { FieldSelector, LabelSelector } from '../selectors.js';
import type { StatusCause } from '../status.js';
import type { KObj } from '../store/object.js';
import type { ObjectStore } from '../store/store.js';

/** Options of a write. */
export interface WriteOptions {
  /** Field manager recorded in managedFields. */
  readonly manager: string;
  /** `dryRun=All`: everything but the commit. */
  readonly dryRun?: boolean;
  /** `status` for the status subresource, `scale` for a write through `/scale`. */
  readonly subresource?: 'status' | 'scale' | undefined;
  /** Who writes (admission and the RBAC escalation check); absent for the server's own writes. */
  readonly user?: RequestUser | undefined;
  /** A PUT creating the object (create on update). */
  readonly createOnUpdate?: boolean;
  /**
   * The managedFields the field manager computed in the request's version — a create, PUT or
   * JSON/merge patch in a non-storage version of a CRD, whose entry names that version and its
   * fields (`admission/conversion.ts`): recorded as they are, not recomputed in the storage
   * version.
   */
  readonly managedFields?: readonly unknown[];
}

/** A create or update as the registry's checks and admission see it. */
export interface WriteAttributes {
  readonly operation: 'CREATE' | 'UPDATE';
  readonly type: ResourceType;
  /** The object's namespace (`undefined` for cluster-scoped kinds). */
  readonly namespace: string | undefined;
  readonly name: string;
  readonly subresource: string | undefined;
  /** The object about to be stored (wire form). */
  readonly object: KObj;
  /** The stored object's wire form (updates). */
  readonly oldObject: KObj | undefined;
  /** The requesting user; `undefined` for the server's own writes (controllers), never checked. */
  readonly user: RequestUser | undefined;
  /**
   * A create by a PUT or a server-side apply PATCH: authorized for `patch`/`update` only, so it
   * also needs `create` (the patch and update handlers' `withAuthorization`).
   */
  readonly createOnUpdate: boolean;
  /** `dryRun=All`: admission must not change other objects (quota usage). */
  readonly dryRun?: boolean;
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
  /** KEP-5866 `shardSelector`. */
  readonly shardSelector?: string | null;
}

/** A list result in storage form. */
export interface ListResult {
  readonly resourceVersion: number;
  readonly items: KObj[];
  readonly continue?: string;
  readonly remainingItemCount?: number;
  /** KEP-5866: the shard selector applied, echoed in `metadata.shardInfo`. */
  readonly shardInfo?: { readonly selector: string };
}

/** Parsed selectors of a list or watch. */
export interface Selectors {
  readonly label: LabelSelector;
  readonly field: FieldSelector;
  /** KEP-5866 `shardSelector`, when given. */
  readonly shard?: ShardSelector;
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
  /** Extra validation of a type (CRDs; RBAC roleRef immutability). `old` is the stored form. */
  validate?(type: ResourceType, obj: KObj, old: KObj | undefined): StatusCause[];
  /**
   * The registry's own checks before validation (RBAC escalation prevention,
   * `pkg/registry/rbac/<kind>/policybased`). Throws `ApiError`.
   */
  beforeValidate?(write: WriteAttributes): void;
  /** Validating admission: after validation, before the object is stored. Throws `ApiError`. */
  admit?(write: WriteAttributes): void;
}

/** Engine configuration. */
export interface EngineConfig {
  readonly namespaceLifecycle: boolean;
  /** Milliseconds since the epoch. */
  readonly now: () => number;
  /** How long a list snapshot stays readable for continue tokens (ms). */
  readonly continueTokenTtlMs: number;
}

/**
 * What the verb files (create, update, patch, delete, list, commit-update, validate-write) need of
 * the `Engine`: `Engine` implements it and they name this instead of the class, so that imports go
 * one way, engine.ts → verb file (docs/design.md, "Layers": no import cycles).
 */
export interface EngineCore {
  hooks: EngineHooks;
  readonly store: ObjectStore;
  readonly config: EngineConfig;
  nowIso(): string;
  keyOf(type: ResourceType, namespace: string | undefined, name: string): string;
  present(type: ResourceType, stored: KObj): KObj;
  etcdKey(type: ResourceType, namespace: string | undefined, name: string): string;
  getStored(type: ResourceType, namespace: string | undefined, name: string): KObj;
  checkNamespace(type: ResourceType, obj: KObj, namespace: string | undefined): void;
  create(
    type: ResourceType,
    namespace: string | undefined,
    body: KObj,
    opts: WriteOptions,
    applied?: boolean,
  ): WriteResult;
  commitUpdate(
    type: ResourceType,
    key: string,
    old: KObj,
    candidate: KObj,
    opts: WriteOptions,
    appliedManagedFields: unknown[] | undefined,
    requestedManagedFields?: unknown,
  ): WriteResult;
  controllerUpdate(
    type: ResourceType,
    key: string,
    next: KObj,
    manager: string,
    subresource?: 'status',
  ): void;
  removeNow(type: ResourceType, key: string, last: KObj): KObj;
  selectors(
    type: ResourceType,
    labelSelector: string | null | undefined,
    fieldSelector: string | null | undefined,
    shardSelector?: string | null,
  ): Selectors;
  matches(type: ResourceType, sel: Selectors, o: KObj): boolean;
  isExpired(rv: number): boolean;
}
