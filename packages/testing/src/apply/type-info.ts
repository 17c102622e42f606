/**
 * What server-side apply needs to know about an object's shape: which lists are associative (and
 * by which keys), which are sets, which are atomic, and which maps are atomic. Built-in kinds use
 * a table of the Go types' `listType`/`listMapKeys`; custom resources use their CRD schema's
 * `x-kubernetes-list-type`/`-list-map-keys`/`-map-type`; anything unknown is deduced like
 * structured-merge-diff does for untyped data (maps granular, lists atomic). Internal.
 *
 * @module
 */
import { strategicListStrategy, type StrategicTarget } from '../patch/strategic-merge.js';
import type { JSONSchemaProps } from '../validation/schema.js';
import { isObject } from './json-value.js';

/** How a list is owned and merged. */
export type ListType = { type: 'atomic' } | { type: 'set' } | { type: 'map'; keys: readonly string[] };

/** The shape of one node of an object. */
export interface TypeNode {
  /** The shape of field `name` of this map. */
  field(name: string): TypeNode;
  /** The shape of this list's items. */
  item(): TypeNode;
  /** How this node merges when it is a list. */
  readonly list: ListType;
  /** True when this map is owned and replaced as a whole. */
  readonly atomicMap: boolean;
  /** True for the top-level structs (`spec`, `status`) of built-in types, always present in Go. */
  readonly alwaysPresent: boolean;
  /** On the root only: true for built-in (Go-typed) objects, whose empty maps and lists are never serialised. */
  readonly typed?: boolean;
}

const DEDUCED: TypeNode = {
  field: () => DEDUCED,
  item: () => DEDUCED,
  list: { type: 'atomic' },
  atomicMap: false,
  alwaysPresent: false,
};

const ATOMIC_MAP: TypeNode = { ...DEDUCED, atomicMap: true };

const CONTAINER_LISTS = new Set(['containers', 'initContainers', 'ephemeralContainers']);

/** A node of a built-in object, identified by its field path (list items skipped). */
class BuiltinNode implements TypeNode {
  constructor(
    private readonly target: StrategicTarget,
    private readonly path: readonly string[],
  ) {}

  field(name: string): TypeNode {
    return new BuiltinNode(this.target, [...this.path, name]);
  }

  item(): TypeNode {
    // OwnerReference is `+structType=atomic`: an item is owned whole.
    if (this.path.join('.') === 'metadata.ownerReferences') return ATOMIC_MAP;
    return this;
  }

  get list(): ListType {
    const field = this.path[this.path.length - 1] ?? '';
    const parent = this.path[this.path.length - 2];
    const strategy = strategicListStrategy(this.path, this.target);
    if (strategy.type === 'set') return { type: 'set' };
    if (strategy.type === 'replace') return { type: 'atomic' };
    if (field === 'ports' && parent !== undefined && CONTAINER_LISTS.has(parent)) {
      return { type: 'map', keys: ['containerPort', 'protocol'] };
    }
    if (field === 'ports') return { type: 'map', keys: ['port', 'protocol'] };
    if (field === 'topologySpreadConstraints')
      return { type: 'map', keys: ['topologyKey', 'whenUnsatisfiable'] };
    return { type: 'map', keys: strategy.keys };
  }

  get atomicMap(): boolean {
    // ObjectReference is `+structType=atomic`: Event.involvedObject/related, events.k8s.io regarding/related.
    const field = this.path.join('.');
    if (this.target.kind === 'Event') return ['involvedObject', 'related', 'regarding'].includes(field);
    // RoleRef is `+structType=atomic` (a binding's managedFields hold `f:roleRef: {}`)
    return (
      (this.target.kind === 'RoleBinding' || this.target.kind === 'ClusterRoleBinding') && field === 'roleRef'
    );
  }

  get alwaysPresent(): boolean {
    return (
      VALUE_STRUCTS.has(this.path.join('.')) ||
      VALUE_STRUCTS.has(`${this.target.kind}:${this.path.join('.')}`)
    );
  }
}

/**
 * Struct fields that Go always serialises (value structs, not pointers), so they exist in the
 * empty object a create is compared with and never get their own `.` member.
 */
const VALUE_STRUCTS = new Set([
  'spec',
  'status',
  'spec.template',
  'spec.template.metadata',
  'spec.template.spec',
  'spec.strategy',
  'spec.jobTemplate',
  'spec.jobTemplate.spec',
  'spec.jobTemplate.spec.template',
  'spec.jobTemplate.spec.template.spec',
  'CustomResourceDefinition:spec.names',
  'CustomResourceDefinition:status.acceptedNames',
  'Event:source',
]);

/** A node described by a CRD's structural schema. */
class SchemaNode implements TypeNode {
  constructor(private readonly schema: JSONSchemaProps) {}

  field(name: string): TypeNode {
    const sub = this.schema.properties?.[name];
    if (sub !== undefined) return new SchemaNode(sub);
    const additional = this.schema.additionalProperties;
    if (isObject(additional)) return new SchemaNode(additional);
    return DEDUCED;
  }

  item(): TypeNode {
    return this.schema.items === undefined ? DEDUCED : new SchemaNode(this.schema.items);
  }

  get list(): ListType {
    const type = this.schema['x-kubernetes-list-type'];
    if (type === 'set') return { type: 'set' };
    if (type === 'map') return { type: 'map', keys: this.schema['x-kubernetes-list-map-keys'] ?? [] };
    return { type: 'atomic' };
  }

  get atomicMap(): boolean {
    return this.schema['x-kubernetes-map-type'] === 'atomic';
  }

  get alwaysPresent(): boolean {
    return false;
  }
}

/** The API group of an `apiVersion` (`''` for core `v1`). */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** True for the groups served by kube-apiserver itself (core, `apps`, `*.k8s.io`, ...). */
export function isBuiltinGroup(group: string): boolean {
  return !group.includes('.') || group.endsWith('.k8s.io');
}

/**
 * The type of an object: from `schema` when given (custom resources), from the built-in table
 * when the `apiVersion` is a built-in group, deduced otherwise.
 */
export function typeOf(apiVersion: string, kind: string, schema: JSONSchemaProps | undefined): TypeNode {
  const group = groupOf(apiVersion);
  const builtin = schema === undefined && isBuiltinGroup(group);
  const root: TypeNode =
    schema !== undefined ? new SchemaNode(schema) : builtin ? new BuiltinNode({ group, kind }, []) : DEDUCED;
  // `metadata` is always an ObjectMeta (finalizers a set, ownerReferences keyed by uid), custom resources included.
  const metadata = new BuiltinNode({ group, kind }, ['metadata']);
  return {
    field: (name) => (name === 'metadata' ? metadata : root.field(name)),
    item: () => root.item(),
    list: root.list,
    atomicMap: false,
    alwaysPresent: false,
    typed: builtin,
  };
}
