/**
 * The protobuf messages the server speaks, as protobufjs reflection types built once from our
 * declarations (`schemas/`), plus apimachinery's own messages: `runtime.Unknown` (the envelope),
 * `metav1.Time`/`MicroTime` (`Timestamp`), `resource.Quantity`, `intstr.IntOrString`,
 * `metav1.FieldsV1` and `runtime.RawExtension`.
 *
 * Adding a Kind is one declaration of its message (and of the messages it holds) in `schemas/`:
 * the Kind's name there (see `protoMessageName`) is how requests and responses find it.
 *
 * @module
 */
import protobuf from 'protobufjs';

import type { FieldDecl, MessageDecl } from './declarations.js';
import { parseDeclarations, protoMessageName } from './declarations.js';
import { APPS_V1 } from './schemas/apps-v1.js';
import { AUTHORIZATION_V1 } from './schemas/authorization-v1.js';
import { AUTOSCALING } from './schemas/autoscaling.js';
import { BATCH_V1 } from './schemas/batch-v1.js';
import { COORDINATION_V1 } from './schemas/coordination-v1.js';
import { CORE_V1 } from './schemas/core-v1.js';
import { CORE_V1_POD } from './schemas/core-v1-pod.js';
import { CORE_V1_VOLUME } from './schemas/core-v1-volume.js';
import { EVENTS_V1 } from './schemas/events-v1.js';
import { META_V1 } from './schemas/meta-v1.js';
import { NETWORKING_V1 } from './schemas/networking-v1.js';
import { POLICY_V1 } from './schemas/policy-v1.js';
import { RBAC_V1 } from './schemas/rbac-v1.js';

/** Every declared message set; add a new group's set here. */
const DECLARATIONS = [
  META_V1,
  CORE_V1,
  CORE_V1_POD,
  CORE_V1_VOLUME,
  APPS_V1,
  BATCH_V1,
  RBAC_V1,
  AUTHORIZATION_V1,
  NETWORKING_V1,
  POLICY_V1,
  AUTOSCALING,
  COORDINATION_V1,
  EVENTS_V1,
];

/** meta.k8s.io kinds that travel under another group-version's name (`v1` `Status`). */
const META_KINDS = new Set(['Status', 'DeleteOptions', 'WatchEvent']);

/** apimachinery's messages with their own encodings, by our type name. */
const SPECIAL_MESSAGES: Record<string, Record<string, { type: string; id: number }>> = {
  // k8s.io/apimachinery/pkg/apis/meta/v1/time_proto.go: Timestamp
  Time: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } },
  MicroTime: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } },
  // k8s.io/apimachinery/pkg/api/resource/generated.proto
  Quantity: { string: { type: 'string', id: 1 } },
  // k8s.io/apimachinery/pkg/util/intstr/generated.proto
  IntOrString: {
    type: { type: 'int64', id: 1 },
    intVal: { type: 'int32', id: 2 },
    strVal: { type: 'string', id: 3 },
  },
  FieldsV1: { raw: { type: 'bytes', id: 1 } },
  // k8s.io/apimachinery/pkg/runtime/generated.proto
  RawExtension: { raw: { type: 'bytes', id: 1 } },
  TypeMeta: { apiVersion: { type: 'string', id: 1 }, kind: { type: 'string', id: 2 } },
  Unknown: {
    typeMeta: { type: 'TypeMeta', id: 1 },
    raw: { type: 'bytes', id: 2 },
    contentEncoding: { type: 'string', id: 3 },
    contentType: { type: 'string', id: 4 },
  },
};

/** A declared message with its protobufjs type. */
export interface ProtoMessage {
  readonly decl: MessageDecl;
  readonly type: protobuf.Type;
}

/** The message table, built on first use. */
export interface MessageTable {
  /** A declared message by name (`core.v1.ConfigMap`). */
  message(name: string): ProtoMessage | undefined;
  /** The message of a Kind in a group-version, or undefined when it has no protobuf here. */
  forKind(group: string, version: string, kind: string): ProtoMessage | undefined;
  /** apimachinery's own messages: `Unknown`, `Time`, … */
  special(name: keyof typeof SPECIAL_MESSAGES): protobuf.Type;
}

const flat = (name: string): string => name.replaceAll('.', '_');

function fieldJson(f: FieldDecl): protobuf.IField & { keyType?: string } {
  const type = f.type.kind === 'message' ? flat(f.type.name) : f.type.name;
  if (f.shape === 'map') return { keyType: 'string', type, id: f.number };
  if (f.shape === 'repeated') return { rule: 'repeated', type, id: f.number };
  return { type, id: f.number };
}

function build(): MessageTable {
  const decls = parseDeclarations(...DECLARATIONS);
  // proto2 (Kubernetes' generated.proto): explicit presence, unpacked repeated scalars
  const nested: Record<string, { edition: string; fields: Record<string, protobuf.IField> }> = {};
  for (const [name, fields] of Object.entries(SPECIAL_MESSAGES)) nested[name] = { edition: 'proto2', fields };
  for (const decl of decls.values()) {
    const fields: Record<string, protobuf.IField> = {};
    for (const f of decl.fields) fields[f.json] = fieldJson(f);
    nested[flat(decl.name)] = { edition: 'proto2', fields };
  }
  const root = protobuf.Root.fromJSON({ nested });
  const cache = new Map<string, ProtoMessage>();
  const message = (name: string): ProtoMessage | undefined => {
    const cached = cache.get(name);
    if (cached) return cached;
    const decl = decls.get(name);
    if (!decl) return undefined;
    const m = { decl, type: root.lookupType(flat(name)) };
    cache.set(name, m);
    return m;
  };
  return {
    message,
    forKind: (group, version, kind) =>
      message(protoMessageName(group, version, kind)) ??
      (META_KINDS.has(kind) ? message(`meta.v1.${kind}`) : undefined),
    special: (name) => root.lookupType(name),
  };
}

let table: MessageTable | undefined;

/** The message table (built once, on first use: about 260 messages). */
export function messages(): MessageTable {
  table ??= build();
  return table;
}
