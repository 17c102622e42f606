/**
 * The option and result types of the Engine's operations, and the hooks the controllers install.
 *
 * @module
 */
import type { ResourceType } from '../registry/types.js';
import type { FieldSelector, LabelSelector } from '../selectors.js';
import type { StatusCause } from '../status.js';
import type { KObj } from '../store/object.js';

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
