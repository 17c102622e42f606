/**
 * The REST operations of a served resource as the OpenAPI documents list them: one path per
 * collection, object and subresource, each verb with kube-apiserver's `operationId`, tag,
 * `x-kubernetes-action`, `x-kubernetes-group-version-kind` and query parameters (v1.24's: no
 * `fieldValidation`, which kubectl reads as "validate on the client" — the real v1.24 answer).
 * Rendered by `v2.ts` and `v3.ts`.
 *
 * Does not: list `watch` paths or the deprecated `/watch/` prefix.
 *
 * @module
 */
import type { ResourceType } from '../registry/types.js';

/** A query parameter. */
export interface QueryParam {
  readonly name: string;
  readonly type: 'string' | 'boolean' | 'integer';
  readonly description: string;
}

/** One operation of a path. */
export interface Operation {
  readonly method: 'get' | 'put' | 'post' | 'patch' | 'delete';
  readonly operationId: string;
  readonly tag: string;
  readonly action: 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection';
  readonly gvk: { readonly group: string; readonly version: string; readonly kind: string };
  readonly description: string;
  /** Definition name of the request body (`Patch` for patches), if any. */
  readonly body?: string;
  readonly bodyRequired: boolean;
  readonly params: readonly QueryParam[];
  /** Definition name of the 200 answer. */
  readonly response: string;
  /**
   * The media types a PATCH takes, in the order kube-apiserver lists them: strategic merge only
   * for built-in types (a CRD's paths offer JSON patch, merge patch and apply, as
   * `apiextensions-apiserver`'s OpenAPI builder writes them), which is how `kubectl apply` picks
   * a strategic or a JSON merge patch. Empty for other verbs.
   */
  readonly patchTypes: readonly string[];
  /** Answers `201` (creates, replaces) and `202` (deletes) besides `200`. */
  readonly created: boolean;
  readonly accepted: boolean;
}

/** A path and its operations. */
export interface PathOperations {
  readonly path: string;
  readonly namespaced: boolean;
  readonly named: boolean;
  readonly operations: readonly Operation[];
}

const DRY_RUN: QueryParam = {
  name: 'dryRun',
  type: 'string',
  description:
    'When present, indicates that modifications should not be persisted. An invalid or unrecognized dryRun directive will result in an error response and no further processing of the request. Valid values are: - All: all dry run stages will be processed',
};
const FIELD_MANAGER: QueryParam = {
  name: 'fieldManager',
  type: 'string',
  description:
    'fieldManager is a name associated with the actor or entity that is making these changes. The value must be less than or 128 characters long, and only contain printable characters, as defined by https://golang.org/pkg/unicode/#IsPrint.',
};
const FORCE: QueryParam = {
  name: 'force',
  type: 'boolean',
  description:
    'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people. Force flag must be unset for non-apply patch requests.',
};
const STRATEGIC = 'application/strategic-merge-patch+json';
const PATCH_TYPES: readonly string[] = [
  'application/json-patch+json',
  'application/merge-patch+json',
  STRATEGIC,
  'application/apply-patch+yaml',
];
const LIST_PARAMS: readonly QueryParam[] = [
  ['allowWatchBookmarks', 'boolean'],
  ['continue', 'string'],
  ['fieldSelector', 'string'],
  ['labelSelector', 'string'],
  ['limit', 'integer'],
  ['resourceVersion', 'string'],
  ['resourceVersionMatch', 'string'],
  ['timeoutSeconds', 'integer'],
  ['watch', 'boolean'],
].map(([name, type]) => ({
  name: name ?? '',
  type: type as QueryParam['type'],
  description: `${name ?? ''} of the list or watch.`,
}));
const DELETE_PARAMS: readonly QueryParam[] = [
  DRY_RUN,
  {
    name: 'gracePeriodSeconds',
    type: 'integer',
    description: 'The duration in seconds before the object should be deleted.',
  },
  { name: 'orphanDependents', type: 'boolean', description: 'Deprecated: please use the PropagationPolicy.' },
  {
    name: 'propagationPolicy',
    type: 'string',
    description:
      "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  },
];

/** `CoreV1`, `AppsV1`, `NetworkingV1`, `RbacAuthorizationV1`, `ExampleComV1`. */
function groupWord(group: string, version: string): string {
  const known: Record<string, string> = { '': 'Core', 'rbac.authorization.k8s.io': 'RbacAuthorization' };
  const base =
    known[group] ??
    group
      .replace(/\.k8s\.io$/, '')
      .split(/[.-]/)
      .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
      .join('');
  return base + version.charAt(0).toUpperCase() + version.slice(1);
}

/** The tag of a group-version (`core_v1`, `apps_v1`, `networking_v1`). */
function tagOf(group: string, version: string): string {
  const base = group === '' ? 'core' : group.replace(/\.k8s\.io$/, '').replace(/\./g, '_');
  return `${base}_${version}`;
}

/**
 * The operations of a served type.
 *
 * @param type the served type.
 * @param definition its definition name (the list's is `<definition>List`).
 */
export function operationsOf(type: ResourceType, definition: string): PathOperations[] {
  const prefix = type.group === '' ? `/api/${type.version}` : `/apis/${type.group}/${type.version}`;
  const word = groupWord(type.group, type.version);
  const tag = tagOf(type.group, type.version);
  const gvk = { group: type.group, version: type.version, kind: type.kind };
  const scope = type.namespaced ? 'Namespaced' : '';
  const patchTypes = type.builtin ? PATCH_TYPES : PATCH_TYPES.filter((t) => t !== STRATEGIC);
  const base = type.namespaced
    ? `${prefix}/namespaces/{namespace}/${type.resource}`
    : `${prefix}/${type.resource}`;
  const op = (
    method: Operation['method'],
    action: Operation['action'],
    id: string,
    description: string,
    extra: Partial<Operation> = {},
  ): Operation => ({
    method,
    action,
    operationId: id,
    tag,
    gvk,
    description,
    bodyRequired: false,
    params: [],
    response: definition,
    patchTypes: method === 'patch' ? patchTypes : [],
    created: false,
    accepted: false,
    ...extra,
  });
  const can = (verb: string): boolean => type.verbs.includes(verb);
  const collection: Operation[] = [];
  if (can('list'))
    collection.push(
      op('get', 'list', `list${word}${scope}${type.kind}`, `list or watch objects of kind ${type.kind}`, {
        params: LIST_PARAMS,
        response: `${definition}List`,
      }),
    );
  if (can('create'))
    collection.push(
      op('post', 'post', `create${word}${scope}${type.kind}`, `create a ${type.kind}`, {
        body: definition,
        bodyRequired: true,
        params: [DRY_RUN, FIELD_MANAGER],
        created: true,
        accepted: true,
      }),
    );
  if (can('deletecollection'))
    collection.push(
      op(
        'delete',
        'deletecollection',
        `delete${word}Collection${scope}${type.kind}`,
        `delete collection of ${type.kind}`,
        {
          body: 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
          params: [...DELETE_PARAMS, ...LIST_PARAMS],
          response: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
        },
      ),
    );
  const object: Operation[] = [];
  if (can('get'))
    object.push(op('get', 'get', `read${word}${scope}${type.kind}`, `read the specified ${type.kind}`));
  if (can('update'))
    object.push(
      op('put', 'put', `replace${word}${scope}${type.kind}`, `replace the specified ${type.kind}`, {
        body: definition,
        bodyRequired: true,
        params: [DRY_RUN, FIELD_MANAGER],
        created: true,
      }),
    );
  if (can('delete'))
    object.push(
      op('delete', 'delete', `delete${word}${scope}${type.kind}`, `delete a ${type.kind}`, {
        body: 'io.k8s.apimachinery.pkg.apis.meta.v1.DeleteOptions',
        params: DELETE_PARAMS,
        response: 'io.k8s.apimachinery.pkg.apis.meta.v1.Status',
        accepted: true,
      }),
    );
  if (can('patch'))
    object.push(
      op(
        'patch',
        'patch',
        `patch${word}${scope}${type.kind}`,
        `partially update the specified ${type.kind}`,
        {
          body: 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
          bodyRequired: true,
          params: [DRY_RUN, FIELD_MANAGER, FORCE],
          created: true,
        },
      ),
    );
  const out: PathOperations[] = [
    { path: base, namespaced: type.namespaced, named: false, operations: collection },
    { path: `${base}/{name}`, namespaced: type.namespaced, named: true, operations: object },
  ];
  if (type.namespaced && can('list')) {
    out.push({
      path: `${prefix}/${type.resource}`,
      namespaced: false,
      named: false,
      operations: [
        op(
          'get',
          'list',
          `list${word}${type.kind}ForAllNamespaces`,
          `list or watch objects of kind ${type.kind}`,
          { params: LIST_PARAMS, response: `${definition}List` },
        ),
      ],
    });
  }
  if (type.hasStatus) {
    const id = (verb: string): string => `${verb}${word}${scope}${type.kind}Status`;
    out.push({
      path: `${base}/{name}/status`,
      namespaced: type.namespaced,
      named: true,
      operations: [
        op('get', 'get', id('read'), `read status of the specified ${type.kind}`),
        op('put', 'put', id('replace'), `replace status of the specified ${type.kind}`, {
          body: definition,
          bodyRequired: true,
          params: [DRY_RUN, FIELD_MANAGER],
          created: true,
        }),
        op('patch', 'patch', id('patch'), `partially update status of the specified ${type.kind}`, {
          body: 'io.k8s.apimachinery.pkg.apis.meta.v1.Patch',
          bodyRequired: true,
          params: [DRY_RUN, FIELD_MANAGER, FORCE],
          created: true,
        }),
      ],
    });
  }
  return out.filter((p) => p.operations.length > 0);
}
