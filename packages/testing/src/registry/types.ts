/**
 * What the server knows about one served resource in one group-version: names, scope, verbs,
 * subresources, how it is stored and converted, and its type-specific rules (validation, defaults,
 * field selectors, generation).
 *
 * @module
 */
import type { RequestUser } from '../auth.js';
import type { Authorizer } from '../rbac/authorizer.js';
import type { StatusCause } from '../status.js';
import type { Json, KObj } from '../store/object.js';

/** A JSON schema of a CRD version (`openAPIV3Schema`). */
export type JSONSchema = Json;

/** A served resource in one group-version. */
export interface ResourceType {
  readonly group: string;
  readonly version: string;
  /** `v1` or `apps/v1`. */
  readonly apiVersion: string;
  /** Lower-case plural, e.g. `configmaps`. */
  readonly resource: string;
  /** Discovery `singularName` ('' for built-ins in 1.24). */
  readonly singularName: string;
  readonly kind: string;
  readonly listKind: string;
  readonly namespaced: boolean;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
  readonly verbs: readonly string[];
  readonly hasStatus: boolean;
  /** `metadata.generation` is maintained (CRs, Deployments, CRDs). */
  readonly hasGeneration: boolean;
  /**
   * What else than the content outside `metadata`/`status` counts as a change of generation, as
   * the type's strategy `PrepareForUpdate` decides (Deployments: annotations). Wire forms.
   */
  generationChanged?(next: KObj, old: KObj): boolean;
  /** Built-in (typed) resource: strategic merge allowed, struct key order, list items without TypeMeta. */
  readonly builtin: boolean;
  /** Shared by every version of the type. */
  readonly storageKey: string;
  /** Name validation rule of `metadata.name`. */
  readonly nameRule: 'subdomain' | 'label' | 'path-segment';
  /** PUT of a missing object creates it (Leases). */
  readonly allowCreateOnUpdate: boolean;
  /** PUT without metadata.resourceVersion is allowed. */
  readonly allowUnconditionalUpdate: boolean;
  /**
   * Subresources besides `status`, as discovery lists them (`pods/log`, `deployments/scale`,
   * `namespaces/finalize`); each is served (see `http/subresources.ts`).
   */
  readonly subresources?: readonly {
    readonly name: string;
    readonly kind: string;
    readonly verbs: readonly string[];
    /** Group/version of the subresource's kind when it differs (Scale: autoscaling/v1). */
    readonly group?: string;
    readonly version?: string;
  }[];
  /** Top-level fields kept for built-ins (others are dropped silently); undefined = keep all. */
  readonly knownFields?: readonly string[];
  /** Extra field selector fields besides metadata.name/namespace. */
  readonly selectableFields: readonly string[];
  /** Discovery's `storageVersionHash`; `''` for kinds without storage (not listed). */
  readonly storageVersionHash: string;
  /** The schema of this version (custom resources). */
  readonly schema?: JSONSchema;
  /** Whether the schema keeps unknown fields at the root. */
  readonly preserveUnknownFields?: boolean;
  /** `additionalPrinterColumns` of this version (custom resources; Table answers). */
  readonly printerColumns?: readonly {
    readonly name: string;
    readonly type: string;
    readonly format?: string;
    readonly description?: string;
    readonly priority?: number;
    readonly jsonPath: string;
  }[];
  /** The owning CRD's name (custom resources). */
  readonly crd?: string;
  /** Converts a stored object to this version's wire form (sets apiVersion/kind, maps fields). */
  fromStorage(o: KObj): KObj;
  /** Converts this version's wire form to the stored form. */
  toStorage(o: KObj): KObj;
  /** Type-specific body checks answered with 400 before validation (wrong value types, MicroTime). */
  decodeCheck?(o: KObj): string | undefined;
  /** Type-specific defaults applied on create and update (mutates the object). */
  defaults?(o: KObj): void;
  /**
   * Strategy changes (`PrepareForCreate`/`PrepareForUpdate`) applied after managedFields were
   * recorded, so the writer does not own them (Namespace `spec.finalizers`/`status.phase`, CRD
   * `status.storedVersions`). `old` is the stored object's wire form on update. Mutates `o`.
   */
  prepare?(o: KObj, old: KObj | undefined): void;
  /** Type-specific validation (causes with field paths). */
  validate?(o: KObj): StatusCause[];
  /**
   * The Kind that 422 Invalid messages name, when it is not this type's own: events.k8s.io/v1 Events
   * are validated as core Events (`Event "x" is invalid`, no `group` in details; file 18).
   */
  readonly invalidKind?: { readonly group: string; readonly kind: string };
  /** Field values for field selectors. */
  fields?(o: KObj): Record<string, string>;
  /**
   * Create-only kinds answered without storage (authorization.k8s.io reviews): the response body
   * for a decoded request body (TypeMeta checked). Throws `ApiError`.
   */
  virtualCreate?(body: KObj, request: VirtualCreateRequest): KObj;
}

/** What a {@link ResourceType.virtualCreate} answer may depend on. */
export interface VirtualCreateRequest {
  /** The URL's namespace (namespaced kinds). */
  readonly namespace: string | undefined;
  /** Who asks (after impersonation). */
  readonly user: RequestUser;
  /** The server's authorizer (RBAC, or allow-all when authorization is off). */
  readonly authorizer: Authorizer;
  /** The field manager of the request (managedFields of the answer). */
  readonly manager: string;
  /** RFC 3339 seconds of now. */
  readonly now: string;
}
