/**
 * `Accept: application/json;as=Table;g=meta.k8s.io;v=v1` answers (what `kubectl get` asks for):
 * a `meta.k8s.io/v1` Table with column definitions and one row per object, shaped like
 * kube-apiserver v1.24's (packages/testing/fixtures/kube-wire/12-crd-lifecycle.json and
 * 16-metadata-only.json).
 *
 * Columns: a custom resource's `additionalPrinterColumns` after `Name` (or `Name`, `Age` when it
 * declares none), ConfigMap's printer (`Name`, `Data`, `Age`), Namespace's (`Name`, `Status`,
 * `Age`), the printers of `pkg/printers/internalversion/printers.go` for the other built-ins
 * (`printers/`: column definitions recorded from a real server, cells computed, wide ones
 * included), and the default table convertor's `Name`, `Created At` for CustomResourceDefinitions.
 * `includeObject`: `Metadata` (default, a PartialObjectMetadata), `None` (null) or `Object`.
 *
 * Table watches are built from it in `handlers/watch.ts`.
 *
 * @module
 */
import type { ResourceType } from '../registry/types.js';
import { ApiError, badRequest } from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { isObject, typedObjectMeta } from '../store/object.js';
import { recordedColumns } from './printers/columns.js';
import type { TableColumn } from './printers/columns.js';
import type { RowPrinter } from './printers/core.js';
import {
  endpointsRow,
  eventRow,
  leaseRow,
  podRow,
  pvcRow,
  secretRow,
  serviceAccountRow,
  serviceRow,
} from './printers/core.js';
import { hpaRow, ingressRow, networkPolicyRow, pdbRow } from './printers/network.js';
import {
  cronJobRow,
  daemonSetRow,
  deploymentRow,
  jobRow,
  replicaSetRow,
  statefulSetRow,
} from './printers/workloads.js';
import { age } from './printers/duration.js';

// The cells' vocabulary lives with the printers, which table.ts assembles (no import back).
export type { TableColumn } from './printers/columns.js';
export { age, humanDuration } from './printers/duration.js';

/** A column and how to compute its cell. */
interface Printer {
  readonly column: TableColumn;
  cell(o: KObj, now: number): unknown;
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated. More info: http://kubernetes.io/docs/user-guide/identifiers#names';

const CREATION_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata';

const CONFIGMAP_DATA_DESCRIPTION =
  "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not overlap with the keys in the BinaryData field, this is enforced during validation process.";

const NAMESPACE_PHASE_DESCRIPTION =
  'Phase is the current lifecycle phase of the namespace. More info: https://kubernetes.io/docs/tasks/administer-cluster/namespaces/';

const column = (name: string, type: string, description: string, format = ''): TableColumn => ({
  name,
  type,
  format,
  description,
  priority: 0,
});

const NAME: Printer = {
  column: column('Name', 'string', NAME_DESCRIPTION, 'name'),
  cell: (o) => o.metadata.name ?? '',
};

const AGE: Printer = {
  column: column('Age', 'string', CREATION_DESCRIPTION),
  cell: (o, now) => age(o.metadata.creationTimestamp, now),
};

/**
 * Reads a simple JSONPath (`.spec.size`, `.status.conditions[0].type`, and the filter printer
 * columns use for conditions: `.status.conditions[?(@.type=="Ready")].status`, first match);
 * undefined when absent.
 */
export function readJsonPath(o: unknown, path: string): unknown {
  const trimmed = path.trim().replace(/^\{(.*)\}$/, '$1');
  const parts = trimmed.match(/\[\?\([^)]*\)\]|\[\d+\]|[^.[\]]+/g) ?? [];
  let cur: unknown = o;
  for (const part of parts) {
    if (part.startsWith('[?(')) {
      const m =
        /^\[\?\(@((?:\.[A-Za-z0-9_-]+)+)\s*==\s*(?:"([^"]*)"|'([^']*)'|(-?\d+(?:\.\d+)?)|(true|false))\)\]$/.exec(
          part,
        );
      if (m === null || !Array.isArray(cur)) return undefined;
      const key = m[1] ?? '';
      const want: unknown =
        m[2] ??
        m[3] ??
        (m[4] !== undefined ? Number(m[4]) : m[5] !== undefined ? m[5] === 'true' : undefined);
      cur = cur.find((item) => readJsonPath(item, key) === want);
    } else if (part.startsWith('[')) {
      const i = Number(part.slice(1, -1));
      cur = Array.isArray(cur) ? cur[i] : undefined;
    } else cur = isObject(cur) ? cur[part] : undefined;
    if (cur === undefined || cur === null) return undefined;
  }
  return cur;
}

/** A custom resource column from `additionalPrinterColumns`. */
export interface PrinterColumnSpec {
  readonly name: string;
  readonly type: string;
  readonly format?: string;
  readonly description?: string;
  readonly priority?: number;
  readonly jsonPath: string;
}

function crPrinter(c: PrinterColumnSpec): Printer {
  return {
    column: {
      name: c.name,
      type: c.type,
      format: c.format ?? '',
      description: c.description ?? `Custom resource definition column (in JSONPath format): ${c.jsonPath}`,
      priority: c.priority ?? 0,
    },
    cell: (o, now) => {
      const v = readJsonPath(o, c.jsonPath);
      if (v === undefined) return null;
      if (c.type === 'date') return typeof v === 'string' ? age(v, now) : null;
      if (c.type === 'integer') return typeof v === 'number' ? Math.trunc(v) : null;
      if (c.type === 'number') return typeof v === 'number' ? v : null;
      if (c.type === 'boolean') return typeof v === 'boolean' ? v : null;
      return typeof v === 'string' ? v : JSON.stringify(v);
    },
  };
}

/** The row printers of built-in kinds, by `group/resource` (the recorded columns' key). */
const BUILTIN_ROWS: Readonly<Record<string, RowPrinter>> = {
  '/pods': podRow,
  '/services': serviceRow,
  '/secrets': secretRow,
  '/serviceaccounts': serviceAccountRow,
  '/events': eventRow,
  '/persistentvolumeclaims': pvcRow,
  '/endpoints': endpointsRow,
  'coordination.k8s.io/leases': leaseRow,
  'apps/deployments': deploymentRow,
  'apps/replicasets': replicaSetRow,
  'apps/statefulsets': statefulSetRow,
  'apps/daemonsets': daemonSetRow,
  'batch/jobs': jobRow,
  'batch/cronjobs': cronJobRow,
  'networking.k8s.io/ingresses': ingressRow,
  'networking.k8s.io/networkpolicies': networkPolicyRow,
  'policy/poddisruptionbudgets': pdbRow,
  'autoscaling/horizontalpodautoscalers': hpaRow,
};

/** The columns of a Table and how to compute one row. */
interface TablePrinter {
  readonly columns: readonly TableColumn[];
  row(o: KObj, now: number): unknown[];
}

function tablePrinterOf(type: ResourceType): TablePrinter {
  if (type.builtin) {
    // events.k8s.io Events are printed by the core printer, on the core form (one storage)
    const key = type.storageKey === 'events' ? '/events' : `${type.group}/${type.resource}`;
    const row = BUILTIN_ROWS[key];
    if (row) {
      const convert =
        key === '/events' && type.group !== '' ? (o: KObj) => type.toStorage(o) : (o: KObj) => o;
      return { columns: recordedColumns(key), row: (o, now) => row(convert(o), now) };
    }
  }
  const printers = printersOf(type);
  return { columns: printers.map((p) => p.column), row: (o, now) => printers.map((p) => p.cell(o, now)) };
}

function printersOf(type: ResourceType): Printer[] {
  if (!type.builtin) {
    const cols = type.printerColumns ?? [];
    if (cols.length === 0) {
      return [
        NAME,
        // apiextensions' serveDefaultColumnsIfEmpty: described like ObjectMeta.creationTimestamp
        crPrinter({
          name: 'Age',
          type: 'date',
          description: CREATION_DESCRIPTION,
          jsonPath: '.metadata.creationTimestamp',
        }),
      ];
    }
    return [NAME, ...cols.map(crPrinter)];
  }
  if (type.group === '' && type.resource === 'configmaps') {
    return [
      NAME,
      {
        column: column('Data', 'string', CONFIGMAP_DATA_DESCRIPTION),
        cell: (o) =>
          (isObject(o['data']) ? Object.keys(o['data']).length : 0) +
          (isObject(o['binaryData']) ? Object.keys(o['binaryData']).length : 0),
      },
      AGE,
    ];
  }
  if (type.group === '' && type.resource === 'namespaces') {
    return [
      NAME,
      {
        column: column('Status', 'string', NAMESPACE_PHASE_DESCRIPTION),
        cell: (o) => (isObject(o['status']) ? (o['status']['phase'] ?? '') : ''),
      },
      AGE,
    ];
  }
  if (
    type.group === 'rbac.authorization.k8s.io' &&
    (type.resource === 'rolebindings' || type.resource === 'clusterrolebindings')
  ) {
    return bindingPrinters(type.resource === 'rolebindings' ? 'roleBinding' : 'clusterRoleBinding');
  }
  // rest.NewDefaultTableConvertor
  return [
    NAME,
    {
      column: column('Created At', 'date', CREATION_DESCRIPTION),
      cell: (o) => o.metadata.creationTimestamp ?? '',
    },
  ];
}

const ROLE_REF_DESCRIPTION = {
  roleBinding:
    'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
  clusterRoleBinding:
    'RoleRef can only reference a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error.',
} as const;

const text = (v: unknown): string => (typeof v === 'string' ? v : '');

/** RoleBinding and ClusterRoleBinding printers (`printRoleBinding`: Role, Age, wide Users/Groups/ServiceAccounts). */
function bindingPrinters(kind: 'roleBinding' | 'clusterRoleBinding'): Printer[] {
  const subjects = (o: KObj, which: string): string =>
    (Array.isArray(o['subjects']) ? o['subjects'] : [])
      .filter(isObject)
      .filter((s) => s['kind'] === which)
      .map((s) =>
        which === 'ServiceAccount' ? `${text(s['namespace'])}/${text(s['name'])}` : text(s['name']),
      )
      .join(', ');
  const wide = (name: string, which: string, what: string): Printer => ({
    column: { ...column(name, 'string', `${what} in the ${kind}`), priority: 1 },
    cell: (o) => subjects(o, which),
  });
  return [
    NAME,
    {
      column: column('Role', 'string', ROLE_REF_DESCRIPTION[kind]),
      cell: (o) => {
        const ref = isObject(o['roleRef']) ? o['roleRef'] : {};
        return `${text(ref['kind'])}/${text(ref['name'])}`;
      },
    },
    AGE,
    wide('Users', 'User', 'Users'),
    wide('Groups', 'Group', 'Groups'),
    wide('ServiceAccounts', 'ServiceAccount', 'ServiceAccounts'),
  ];
}

/** The `includeObject` query value. */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** Parses `includeObject` (400 for unknown values, like the real server). */
export function parseIncludeObject(value: string | null): IncludeObject {
  if (value === null || value === '' || value === 'Metadata') return 'Metadata';
  if (value === 'None' || value === 'Object') return value;
  // metav1 ValidateTableOptions' wording, wrapped by the Table conversion (handlers/response.go)
  throw new ApiError(
    badRequest(
      `Unable to convert to Table as requested: includeObject: Invalid value: "${value}": must be 'Metadata', 'Object', 'None', or empty`,
    ),
  );
}

/**
 * Builds a Table of wire-form objects.
 *
 * @param type the resource type (its printer columns).
 * @param objects the objects in wire form (with kind/apiVersion).
 * @param meta the list metadata (`resourceVersion`, `continue`, `remainingItemCount`).
 * @param include what each row's `object` holds.
 * @param now milliseconds since the epoch (for ages).
 * @param metaApiVersion `meta.k8s.io/v1` or `meta.k8s.io/v1beta1`, as asked for.
 */
export function tableOf(
  type: ResourceType,
  objects: readonly KObj[],
  meta: Json,
  include: IncludeObject,
  now: number,
  metaApiVersion = 'meta.k8s.io/v1',
): Json {
  const printer = tablePrinterOf(type);
  return {
    kind: 'Table',
    apiVersion: metaApiVersion,
    metadata: meta,
    columnDefinitions: printer.columns,
    rows: objects.map((o) => ({
      cells: printer.row(o, now),
      object:
        include === 'None'
          ? null
          : include === 'Object'
            ? o
            : {
                kind: 'PartialObjectMetadata',
                apiVersion: metaApiVersion,
                metadata: typedObjectMeta(o.metadata),
              },
    })),
  };
}
