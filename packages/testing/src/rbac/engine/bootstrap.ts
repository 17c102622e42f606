/**
 * The bootstrap RBAC policy a kube-apiserver v1.24 creates at start
 * (`plugin/pkg/auth/authorizer/rbac/bootstrappolicy`): 62 ClusterRoles (`cluster-admin`, `admin`,
 * `edit`, `view`, `system:basic-user`, `system:discovery`, `system:public-info-viewer`, the
 * `system:aggregate-to-*` roles, the controllers' roles, …), 43 ClusterRoleBindings
 * (`system:masters` → `cluster-admin`, `system:authenticated` → basic-user/discovery/public-info,
 * `system:unauthenticated` → public-info), and the Roles and RoleBindings in `kube-system` and
 * `kube-public`. The objects were read back from a real v1.24 server
 * (`data/rbac-bootstrap-v1.24.json`); they are created as `kube-apiserver`, as there.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import type { Engine } from '../../handlers/engine.js';
import type { Registry } from '../../registry/registry.js';
import type { KObj } from '../../store/object.js';
import { clone, isObject } from '../../store/object.js';
import { RBAC_STORAGE } from '../authorizer.js';
import { RBAC_GROUP } from '../types.js';

const DATA = join(
  dirname(fileURLToPath(import.meta.url)),
  '..',
  '..',
  '..',
  'data',
  'rbac-bootstrap-v1.24.json',
);

const RESOURCES: Readonly<Record<string, string>> = {
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Role: 'roles',
  RoleBinding: 'rolebindings',
};

let cached: readonly KObj[] | undefined;

/**
 * The bootstrap policy objects (read once per process; callers get copies).
 *
 * ## Example
 * ```ts
 * bootstrapPolicy().filter((o) => o.kind === 'ClusterRoleBinding').length; // 43
 * ```
 */
export function bootstrapPolicy(): KObj[] {
  cached ??= (JSON.parse(readFileSync(DATA, 'utf8')) as { objects: KObj[] }).objects;
  return cached.map((o) => clone(o));
}

/** Creates the bootstrap policy's objects as the server itself (no escalation check). */
function createRbacObjects(
  engine: Engine,
  registry: Registry,
  objects: readonly KObj[],
  manager: string,
): void {
  for (const raw of objects) {
    const o = clone(raw);
    const resource = RESOURCES[String(o['kind'])];
    const type = resource === undefined ? undefined : registry.lookup(RBAC_GROUP, 'v1', resource);
    if (type === undefined) throw new TypeError(`bootstrap policy: ${String(o['kind'])} is not an RBAC kind`);
    o['apiVersion'] ??= type.apiVersion;
    engine.create(type, type.namespaced ? o.metadata.namespace : undefined, o, { manager });
  }
}

/** The stored bootstrap objects of the first server of this process (aggregation included). */
let seeds: { storageKey: string; key: string; object: KObj }[] | undefined;

/**
 * Creates the bootstrap policy in a fresh store and aggregates it. The first server of a process
 * does it through the engine (validation, managedFields, the aggregation controller's apply) and
 * keeps the stored result; later servers store copies of that result with their own uids and
 * timestamps (the same objects, ~10 ms less per server start).
 */
export function seedBootstrapPolicy(engine: Engine, registry: Registry, aggregate: () => void): void {
  if (seeds !== undefined) {
    const now = engine.nowIso();
    for (const seed of seeds) {
      const o = clone(seed.object);
      o.metadata.uid = randomUUID();
      o.metadata.creationTimestamp = now;
      for (const entry of o.metadata.managedFields ?? []) if (isObject(entry)) entry['time'] = now;
      engine.store.create(seed.storageKey, seed.key, o);
    }
    return;
  }
  createRbacObjects(engine, registry, bootstrapPolicy(), 'kube-apiserver');
  aggregate();
  const out: { storageKey: string; key: string; object: KObj }[] = [];
  for (const storageKey of Object.values(RBAC_STORAGE)) {
    for (const key of engine.store.sortedKeys(storageKey)) {
      const o = engine.store.get(storageKey, key);
      if (o) out.push({ storageKey, key, object: clone(o) });
    }
  }
  seeds = out;
}
