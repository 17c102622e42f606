/**
 * Authorization in the embedded server, put together: the bootstrap policy and the ClusterRole
 * aggregation controller (always, as on every cluster), roleRef immutability, and — when
 * authorization is on — the RBAC authorizer, the escalation check and the admission plugins asked
 * for. Without authorization every request is allowed (`--authorization-mode=AlwaysAllow`).
 *
 * @module
 */
import type { WriteAttributes } from '../../handlers/engine-types.js';
import type { Engine } from '../../handlers/engine.js';
import { ApiError } from '../../status.js';
import type { Registry } from '../../registry/registry.js';
import { ClusterRoleAggregation } from './aggregation.js';
import { resourceAttributes } from '../attributes.js';
import type { Authorizer } from '../authorizer.js';
import { ALWAYS_ALLOW, RbacAuthorizer } from '../authorizer.js';
import { seedBootstrapPolicy } from './bootstrap.js';
import { escalationCheck } from './escalation.js';
import { forbiddenStatus } from '../forbidden.js';
import type { AdmissionPlugin } from './owner-references.js';
import { ownerReferencesPermissionEnforcement } from './owner-references.js';
import { RBAC_GROUP } from '../types.js';
import { roleRefChange } from '../validation.js';

/** Options of {@link installAuthorization}. */
export interface AuthorizationOptions {
  /** RBAC (true) or allow-all. */
  readonly rbac: boolean;
  /** Admission plugins to enable. */
  readonly admissionPlugins?: readonly AdmissionPlugin[];
}

/** What the server keeps of it. */
export interface InstalledAuthorization {
  readonly authorizer: Authorizer;
  stop(): void;
}

const KNOWN_PLUGINS: readonly string[] = ['OwnerReferencesPermissionEnforcement'];

/**
 * A PUT or a server-side apply PATCH that creates the object was authorized for `update`/`patch`:
 * it also needs `create` on that name (`withAuthorization` in `apiserver/pkg/endpoints/handlers`,
 * whose 403 carries the authorizer's reason after `is forbidden: `, often nothing).
 */
function authorizeCreateOnUpdate(authorizer: Authorizer): (w: WriteAttributes) => void {
  return (w) => {
    if (!w.createOnUpdate || w.user === undefined) return;
    const { type } = w;
    const d = authorizer.authorize(
      resourceAttributes(w.user, 'create', {
        apiGroup: type.group,
        apiVersion: type.version,
        resource: type.resource,
        namespace: w.namespace ?? '',
        name: w.name,
      }),
    );
    if (!d.allowed) throw new ApiError(forbiddenStatus(type.group, type.resource, w.name, d.reason));
  };
}

/**
 * Installs authorization into an engine: hooks, bootstrap objects, the aggregation controller.
 *
 * @throws {TypeError} an unknown admission plugin.
 */
export function installAuthorization(
  engine: Engine,
  registry: Registry,
  options: AuthorizationOptions,
  log: (msg: string, err: unknown) => void,
): InstalledAuthorization {
  for (const p of options.admissionPlugins ?? []) {
    if (!KNOWN_PLUGINS.includes(p)) {
      throw new TypeError(
        `enableAdmissionPlugins: unknown plugin ${JSON.stringify(p)}; the embedded server has ${KNOWN_PLUGINS.join(', ')}`,
      );
    }
  }
  const authorizer = options.rbac ? new RbacAuthorizer(engine.store) : ALWAYS_ALLOW;
  const prev = engine.hooks;
  const escalation = options.rbac ? escalationCheck(engine.store, authorizer) : undefined;
  const createOnUpdate = options.rbac ? authorizeCreateOnUpdate(authorizer) : undefined;
  const ownerRefs =
    options.rbac && (options.admissionPlugins ?? []).includes('OwnerReferencesPermissionEnforcement')
      ? ownerReferencesPermissionEnforcement(registry, authorizer)
      : undefined;
  engine.hooks = {
    ...prev,
    validate: (type, obj, old) => {
      const causes = prev.validate?.(type, obj, old) ?? [];
      if (
        old &&
        type.group === RBAC_GROUP &&
        (type.resource === 'rolebindings' || type.resource === 'clusterrolebindings')
      )
        causes.push(...roleRefChange(obj, old));
      return causes;
    },
    beforeValidate: (w) => {
      prev.beforeValidate?.(w);
      escalation?.(w);
    },
    admit: (w) => {
      prev.admit?.(w);
      createOnUpdate?.(w);
      ownerRefs?.(w);
    },
  };
  const aggregation = new ClusterRoleAggregation(engine, registry, log);
  seedBootstrapPolicy(engine, registry, () => aggregation.syncAll());
  return { authorizer, stop: () => aggregation.stop() };
}
