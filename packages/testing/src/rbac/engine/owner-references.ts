/**
 * The OwnerReferencesPermissionEnforcement admission plugin (`plugin/pkg/admission/gc/gc_admission.go`
 * v1.24), which kube-apiserver runs with `--enable-admission-plugins=OwnerReferencesPermissionEnforcement`
 * (OpenShift does by default): changing an object's ownerReferences on update needs `delete` on the
 * object, and setting `blockOwnerDeletion: true` on a reference (new, or newly blocking) needs
 * `update` on the owner's `<plural>/finalizers` — in the child's namespace for a namespaced owner.
 * Creating an object with references needs only the second. `pods/status` is exempt.
 *
 * @module
 */
import type { WriteAttributes } from '../../handlers/engine-types.js';
import type { Registry } from '../../registry/registry.js';
import { ApiError } from '../../status.js';
import type { KObj } from '../../store/object.js';
import { deepEqual, isObject } from '../../store/object.js';
import { goQuote } from '../../validation/names.js';
import { resourceAttributes } from '../attributes.js';
import type { Authorizer } from '../authorizer.js';
import { forbiddenStatus } from '../forbidden.js';

/**
 * The admission plugins the embedded server can enable (kube-apiserver's names).
 *
 * ## Example
 * ```ts
 * const plugins: AdmissionPlugin[] = ['OwnerReferencesPermissionEnforcement'];
 * const server = await startApiServer({
 *   auth: { tokens: { 'alice-token': 'alice' } },
 *   objects: rbacGrant('alice', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'update'] }]),
 *   enableAdmissionPlugins: plugins,
 * });
 * ```
 */
export type AdmissionPlugin = 'OwnerReferencesPermissionEnforcement';

interface OwnerRef {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly blockOwnerDeletion?: boolean;
}

function refsOf(o: KObj): OwnerRef[] {
  const refs = o.metadata.ownerReferences;
  if (!Array.isArray(refs)) return [];
  return (refs as unknown[]).filter(isObject).map((r) => ({
    apiVersion: typeof r['apiVersion'] === 'string' ? r['apiVersion'] : '',
    kind: typeof r['kind'] === 'string' ? r['kind'] : '',
    name: typeof r['name'] === 'string' ? r['name'] : '',
    uid: typeof r['uid'] === 'string' ? r['uid'] : '',
    ...(r['blockOwnerDeletion'] === true ? { blockOwnerDeletion: true } : {}),
  }));
}

/** `isChangingOwnerReference`. */
function changingOwnerReferences(next: KObj, old: KObj | undefined): boolean {
  const now = next.metadata.ownerReferences ?? [];
  if (old === undefined) return now.length > 0;
  const before = old.metadata.ownerReferences ?? [];
  return now.length !== before.length || now.some((r, i) => !deepEqual(r, before[i]));
}

/** `newBlockingOwnerDeletionRefs`: blocking references that are new or were not blocking before. */
function newBlockingRefs(next: KObj, old: KObj | undefined): OwnerRef[] {
  const blocking = refsOf(next).filter((r) => r.blockOwnerDeletion === true);
  if (old === undefined) return blocking;
  const before = new Map(refsOf(old).map((r) => [r.uid, r]));
  return blocking.filter((r) => before.get(r.uid)?.blockOwnerDeletion !== true);
}

/** `schema.ParseGroupVersion` of an ownerReference's apiVersion. */
function parseGroupVersion(apiVersion: string): { group: string; version: string } | string {
  const parts = apiVersion.split('/');
  if (apiVersion === '') return { group: '', version: '' };
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0] ?? '', version: parts[1] ?? '' };
  return `unexpected GroupVersion string: ${apiVersion}`;
}

/**
 * The plugin's check, installed as the engine's `admit` hook.
 *
 * ## Example
 * ```ts
 * import type { Engine } from '../../handlers/engine.js';
 * import { Registry } from '../../registry/registry.js';
 * import { RbacAuthorizer } from '../authorizer.js';
 * declare const engine: Engine; // the server's
 * engine.hooks.admit = ownerReferencesPermissionEnforcement(new Registry(), new RbacAuthorizer(engine.store));
 * ```
 */
export function ownerReferencesPermissionEnforcement(
  registry: Registry,
  authorizer: Authorizer,
): (w: WriteAttributes) => void {
  return (w) => {
    const user = w.user;
    if (user === undefined) return;
    const { type } = w;
    if (type.group === '' && type.resource === 'pods' && w.subresource === 'status') return;
    if (!changingOwnerReferences(w.object, w.oldObject)) return;
    const namespace = w.namespace ?? '';
    const refuse = (why: string): never => {
      throw new ApiError(forbiddenStatus(type.group, type.resource, w.name, why));
    };
    if (w.operation !== 'CREATE') {
      const d = authorizer.authorize(
        resourceAttributes(user, 'delete', {
          apiGroup: type.group,
          apiVersion: type.version,
          resource: type.resource,
          subresource: w.subresource ?? '',
          namespace,
          name: w.name,
        }),
      );
      if (!d.allowed) refuse(`cannot set an ownerRef on a resource you can't delete: ${d.reason}, <nil>`);
    }
    for (const ref of newBlockingRefs(w.object, w.oldObject)) {
      const gv = parseGroupVersion(ref.apiVersion);
      const owner = typeof gv === 'string' ? undefined : registry.byKind(ref.apiVersion, ref.kind);
      if (owner === undefined) {
        const why =
          typeof gv === 'string'
            ? gv
            : `no matches for kind ${goQuote(ref.kind)} in version ${goQuote(gv.group === '' ? gv.version : `${gv.group}/${gv.version}`)}`;
        refuse(
          `cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion ${ref.apiVersion} Kind ${ref.kind}: ${why}`,
        );
        return;
      }
      const d = authorizer.authorize(
        resourceAttributes(user, 'update', {
          apiGroup: owner.group,
          apiVersion: owner.version,
          resource: owner.resource,
          subresource: 'finalizers',
          name: ref.name,
          namespace: owner.namespaced ? namespace : '',
        }),
      );
      if (!d.allowed)
        refuse(
          `cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: ${d.reason}, <nil>`,
        );
    }
  };
}
