/**
 * Least-privilege RBAC from what a Manager's controllers watch and write: `list`/`watch` on every
 * watched resource (a watch never GETs), `patch` on `<resource>/status` for a status sink (and
 * `get` to re-read after a 409), `patch` for a finalizer, `update` on `<resource>/finalizers` for a
 * controller that writes children — it `owns` a kind, or its `permissions` write a kind it watches
 * through `watches` (their controller reference sets `blockOwnerDeletion`, which the
 * OwnerReferencesPermissionEnforcement admission plugin allows only with that permission on the
 * owner) — `create`/`patch` on Events in the one API the recorder writes (events.k8s.io where
 * served), `get`/`update` on the named Lease and `create` on Leases for leader election, `get`/
 * `patch` on the CRDs it installs (`mgr.ensureCrd`), plus the `permissions` each controller
 * declares for its reconcile's own writes; with self-managed webhook certificates, `get`/`update` on
 * their Secret (`create` on Secrets in its namespace) and `get`/`patch` on the webhook
 * configurations and CRDs whose caBundle it injects, by name. Plurals come from discovery, so CRDs must be installed
 * (run the operator's `setup` first).
 *
 * What it does not do: guess what a reconcile writes (declare it in `permissions`), or aggregate
 * roles.
 *
 * @module
 */
import type { ApiResource } from '../client/api-resource.js';
import type { ResourceType } from '../types.js';
import type { KubeObject } from '../types.js';
import type { ManagedControllerOptions, ManagerDescription, PolicyRule } from './registration.js';

export type { PolicyRule } from './registration.js';

/**
 * What {@link managerRbac} reads: a Manager (structurally — this module does not import it) or
 * anything that describes one and resolves kinds through discovery.
 *
 * ## Example
 * ```ts
 * const source: RbacSource = mgr; // a Manager is one
 * const rbac = await managerRbac(source);
 * ```
 */
export interface RbacSource {
  /** Resolves plurals and scopes. */
  readonly client: { readonly discovery: { resolve(type: ResourceType): Promise<ApiResource> } };
  /** The registrations as plain data (`Manager.describe`). */
  describe(): Promise<ManagerDescription>;
}

/**
 * The rules of a Manager, split by where they apply.
 *
 * ## Example
 * ```ts
 * const rbac: ManagerRbac = await managerRbac(mgr);
 * for (const rule of rbac.rules) console.log(rule.apiGroups, rule.resources, rule.verbs);
 * ```
 */
export interface ManagerRbac {
  /** Rules for the watched namespaces (a ClusterRole, or a Role per namespace with `namespaces`). */
  readonly rules: readonly PolicyRule[];
  /**
   * With `namespaces`: what only a ClusterRole can grant — cluster-scoped kinds (Namespaces,
   * cluster-scoped CRs, the CRDs the operator installs) and watches the manager runs cluster-wide.
   * Empty without `namespaces` (`rules` is then one ClusterRole already).
   */
  readonly clusterRules: readonly PolicyRule[];
  /** Rules in the lease's namespace (leader election), when election is on. */
  readonly leaseRules: readonly PolicyRule[];
  /** The lease namespace, when election is on. */
  readonly leaseNamespace?: string;
  /** The watched namespaces; absent: all (cluster-wide). */
  readonly namespaces?: readonly string[];
  /**
   * Rules in the shard ring's namespace, when sharding is on: its member and fence Leases are
   * read one by one and listed by label, created, and written (PUT); never watched, patched or
   * deleted.
   */
  readonly shardRules?: readonly PolicyRule[];
  /** The shard ring's namespace, when sharding is on. */
  readonly shardNamespace?: string;
  /**
   * Rules in the namespace of the self-managed webhook certificates' Secret (`mgr.webhooks({ tls:
   * { selfManaged } })`): `get` and `update` on that Secret by name, `create` on Secrets (which
   * `resourceNames` cannot restrict). Patching the caBundle into the webhook configurations and
   * CRDs it injects is in `rules`/`clusterRules` (by name).
   */
  readonly certificateRules?: readonly PolicyRule[];
  /** The certificates Secret's namespace, when certificates are self-managed. */
  readonly certificateNamespace?: string;
}

const VERB_ORDER = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];

/**
 * Merges rules with the same groups and resources, verbs sorted in Kubernetes' usual order.
 *
 * ## Example
 * ```ts
 * mergeRules([{ apiGroups: [''], resources: ['pods'], verbs: ['list'] },
 *             { apiGroups: [''], resources: ['pods'], verbs: ['get'] }]);
 * // [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }]
 * ```
 */
export function mergeRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const byTarget = new Map<string, { rule: PolicyRule; verbs: Set<string> }>();
  for (const rule of rules) {
    for (const group of rule.apiGroups) {
      for (const resource of rule.resources) {
        const names = rule.resourceNames ?? [];
        const key = JSON.stringify([group, resource, [...names].sort()]);
        const entry = byTarget.get(key) ?? {
          rule: {
            apiGroups: [group],
            resources: [resource],
            ...(names.length > 0 ? { resourceNames: [...names].sort() } : {}),
            verbs: [],
          },
          verbs: new Set<string>(),
        };
        for (const v of rule.verbs) entry.verbs.add(v);
        byTarget.set(key, entry);
      }
    }
  }
  const rank = (v: string): number => {
    const i = VERB_ORDER.indexOf(v);
    return i === -1 ? VERB_ORDER.length : i;
  };
  return [...byTarget.values()]
    .map(({ rule, verbs }) => ({
      ...rule, // apiGroups, resources, resourceNames?, verbs: Kubernetes' own field order
      verbs: [...verbs].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)),
    }))
    .sort(
      (a, b) =>
        (a.apiGroups[0] ?? '').localeCompare(b.apiGroups[0] ?? '') ||
        (a.resources[0] ?? '').localeCompare(b.resources[0] ?? ''),
    );
}

function groupOf(type: ResourceType): string {
  const slash = type.apiVersion.indexOf('/');
  return slash === -1 ? '' : type.apiVersion.slice(0, slash);
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', '*']);

/**
 * Whether a controller writes objects that carry its controller reference: it `owns` a kind, or
 * its `permissions` let it create/update/patch a kind it watches through `watches` (other than its
 * own kind). Such writes (`ctx.applyChildren`, `setControllerReference`) set `blockOwnerDeletion`.
 */
async function writesChildren(
  options: ManagedControllerOptions<KubeObject>,
  primaryPlural: string,
  resolve: (type: ResourceType) => Promise<ApiResource>,
): Promise<boolean> {
  if ((options.owns ?? []).length > 0) return true;
  const written = new Set<string>();
  for (const rule of options.permissions ?? []) {
    if (!rule.verbs.some((v) => WRITE_VERBS.has(v))) continue;
    for (const group of rule.apiGroups) for (const r of rule.resources) written.add(`${group}/${r}`);
  }
  if (written.size === 0) return false;
  const forGroup = groupOf(options.for);
  for (const w of options.watches ?? []) {
    const group = groupOf(w.resource);
    const plural = (await resolve(w.resource)).plural;
    if (group === forGroup && plural === primaryPlural) continue;
    if ([`${group}/${plural}`, `${group}/*`, `*/${plural}`, '*/*'].some((k) => written.has(k))) return true;
  }
  return false;
}

/** The group of the Events the recorder writes: events.k8s.io where the server serves it. */
async function eventsGroup(source: RbacSource): Promise<string> {
  try {
    await source.client.discovery.resolve({ apiVersion: 'events.k8s.io/v1', kind: 'Event' });
    return 'events.k8s.io';
  } catch {
    return '';
  }
}

/**
 * Leader election's Lease: `get` and `update` on that one Lease by name, and `create` — which
 * RBAC cannot restrict by `resourceNames` (a create's name is in its body, not its URL, so the
 * authorizer sees no name; kubernetes.io/docs/reference/access-authn-authz/rbac/#referring-to-resources).
 * Create the Lease ahead to drop the `create` rule; the elector then never creates it.
 */
function leaseRules(leaseName: string | undefined): PolicyRule[] {
  const group = 'coordination.k8s.io';
  if (leaseName === undefined)
    return [{ apiGroups: [group], resources: ['leases'], verbs: ['get', 'create', 'update'] }];
  return [
    { apiGroups: [group], resources: ['leases'], resourceNames: [leaseName], verbs: ['get', 'update'] },
    { apiGroups: [group], resources: ['leases'], verbs: ['create'] },
  ];
}

/**
 * The RBAC a Manager's controllers need, resolved through discovery.
 *
 * ## Example
 * ```ts
 * declare const setup: (mgr: Manager) => Promise<void>; // the operator's own
 * await setup(mgr);                       // registers controllers, installs CRDs
 * const { rules, leaseRules } = await managerRbac(mgr);
 * ```
 * @throws `ResourceNotFoundError` when a watched kind is not served (install its CRD first).
 */
export async function managerRbac(source: RbacSource): Promise<ManagerRbac> {
  const manager = await source.describe();
  /** Rules for the watched namespaces (cluster-wide when the manager watches all of them). */
  const rules: PolicyRule[] = [];
  /** Rules only a ClusterRole can grant: cluster-scoped kinds, cluster-wide watches, CRDs. */
  const cluster: PolicyRule[] = [];
  const resolve = (type: ResourceType) => source.client.discovery.resolve(type);
  for (const target of manager.targets) {
    const resource = await resolve(target.resource);
    // a watcher lists and watches; it never GETs one object
    (resource.namespaced && target.namespace !== undefined ? rules : cluster).push({
      apiGroups: [groupOf(target.resource)],
      resources: [resource.plural],
      verbs: ['list', 'watch'],
    });
  }
  for (const c of manager.registered) {
    const forGroup = groupOf(c.options.for);
    const primary = await resolve(c.options.for);
    const own = primary.namespaced ? rules : cluster;
    // The status sink PATCHes the status subresource and GETs the latest object after a 409.
    if (c.options.status !== undefined) {
      own.push({ apiGroups: [forGroup], resources: [`${primary.plural}/status`], verbs: ['patch'] });
      own.push({ apiGroups: [forGroup], resources: [primary.plural], verbs: ['get'] });
    }
    if (c.options.finalizer !== undefined) {
      own.push({ apiGroups: [forGroup], resources: [primary.plural], verbs: ['patch'] });
    }
    // Children carry a controller reference with blockOwnerDeletion: true (applyChildren,
    // setControllerReference); with OwnerReferencesPermissionEnforcement (OpenShift's default)
    // setting it needs update on the owner's finalizers subresource. A controller writes children
    // when it owns a kind (applyChildren's default childTypes) or writes a kind it watches back
    // (`permissions` create/update/patch on a kind of `watches`) — whichever watch brings them back.
    if (await writesChildren(c.options, primary.plural, resolve)) {
      own.push({ apiGroups: [forGroup], resources: [`${primary.plural}/finalizers`], verbs: ['update'] });
    }
    if (c.options.events === true) {
      // Events about cluster-scoped objects go to the `default` namespace: cluster-wide then. Only
      // the API the recorder writes: events.k8s.io/v1 where served, else core/v1.
      own.push({ apiGroups: [await eventsGroup(source)], resources: ['events'], verbs: ['create', 'patch'] });
    }
    rules.push(...(c.options.permissions ?? []));
  }
  // CRDs the operator installs at start (`mgr.ensureCrd`): a server-side apply and reads until
  // Established, on those names only. Creating one would need `create`, which resourceNames
  // cannot restrict: install CRDs ahead (kubectl/Helm/kustomize) and the operator only updates.
  const crds = manager.installedCrds;
  if (crds.length > 0) {
    cluster.push({
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions'],
      resourceNames: [...crds],
      verbs: ['get', 'patch'],
    });
  }
  // Self-managed webhook certificates: the CA Secret, and the caBundle patched into what it names.
  const certificates = manager.webhooks?.certificates;
  const inject = certificates?.inject;
  const byName = (group: string, resource: string, names: readonly string[] | undefined): void => {
    if (names !== undefined && names.length > 0)
      cluster.push({
        apiGroups: [group],
        resources: [resource],
        resourceNames: [...names],
        verbs: ['get', 'patch'],
      });
  };
  byName('admissionregistration.k8s.io', 'validatingwebhookconfigurations', inject?.validating);
  byName('admissionregistration.k8s.io', 'mutatingwebhookconfigurations', inject?.mutating);
  byName('apiextensions.k8s.io', 'customresourcedefinitions', inject?.crds);
  const leaseNamespace = manager.leaseNamespace;
  const namespaces = manager.namespaces;
  const restricted = namespaces !== undefined && namespaces.length > 0;
  return {
    // Watching every namespace, one ClusterRole holds everything.
    rules: restricted ? mergeRules(rules) : mergeRules([...rules, ...cluster]),
    clusterRules: restricted ? mergeRules(cluster) : [],
    leaseRules: leaseNamespace === undefined ? [] : leaseRules(manager.leaseName),
    ...(leaseNamespace !== undefined ? { leaseNamespace } : {}),
    ...(restricted ? { namespaces } : {}),
    ...(certificates !== undefined
      ? {
          certificateNamespace: certificates.secret.namespace,
          certificateRules: [
            {
              apiGroups: [''],
              resources: ['secrets'],
              resourceNames: [certificates.secret.name],
              verbs: ['get', 'update'],
            },
            { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
          ],
        }
      : {}),
    ...(manager.shardNamespace !== undefined
      ? {
          shardNamespace: manager.shardNamespace,
          shardRules: [
            {
              apiGroups: ['coordination.k8s.io'],
              resources: ['leases'],
              verbs: ['get', 'list', 'create', 'update'],
            },
          ],
        }
      : {}),
  };
}

/**
 * Options of {@link rbacManifests}.
 *
 * ## Example
 * ```ts
 * const options: RbacManifestOptions = { namespace: 'operators', serviceAccount: 'widget-operator', name: 'widget-operator' };
 * const objects = rbacManifests(await managerRbac(mgr), { ...options, name: 'widget-operator' });
 * ```
 */
export interface RbacManifestOptions {
  /** The operator's namespace (its ServiceAccount, and the lease's unless election says otherwise). */
  readonly namespace: string;
  /** ServiceAccount name; default the manager's name. */
  readonly serviceAccount?: string;
  /** Name of the roles and bindings; default the manager's name. */
  readonly name?: string;
}

/**
 * The ServiceAccount, ClusterRole (or Roles per watched namespace, plus a `<name>-cluster`
 * ClusterRole for what a Role cannot grant) and bindings granting {@link ManagerRbac} — ready to
 * `kubectl apply`.
 *
 * ## Example
 * ```ts
 * import { writeFileSync } from 'node:fs';
 * import { stringify } from 'yaml';
 *
 * const objects = rbacManifests(await managerRbac(mgr), { namespace: 'operators', name: 'copyrator' });
 * writeFileSync('rbac.yaml', objects.map((o) => stringify(o)).join('---\n'));
 * ```
 */
export function rbacManifests(
  rbac: ManagerRbac,
  options: RbacManifestOptions & { readonly name: string },
): object[] {
  const name = options.name;
  const sa = options.serviceAccount ?? name;
  const subject = { kind: 'ServiceAccount', name: sa, namespace: options.namespace };
  /** A Role of `rules` in `namespace` and the RoleBinding granting it to the ServiceAccount. */
  const boundRole = (roleName: string, namespace: string, rules: unknown): object[] => [
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: roleName, namespace },
      rules,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: roleName, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleName },
      subjects: [subject],
    },
  ];
  const out: object[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa, namespace: options.namespace } },
  ];
  if (rbac.namespaces === undefined) {
    out.push(
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name },
        rules: rbac.rules,
      },
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
        subjects: [subject],
      },
    );
  } else {
    if (rbac.clusterRules.length > 0) {
      const clusterName = `${name}-cluster`;
      out.push(
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: clusterName },
          rules: rbac.clusterRules,
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: clusterName },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterName },
          subjects: [subject],
        },
      );
    }
    for (const ns of rbac.namespaces) out.push(...boundRole(name, ns, rbac.rules));
  }
  if (rbac.leaseRules.length > 0) {
    const ns = rbac.leaseNamespace ?? options.namespace;
    const leaseRole = `${name}-leader-election`;
    out.push(...boundRole(leaseRole, ns, rbac.leaseRules));
  }
  if (rbac.certificateRules !== undefined && rbac.certificateRules.length > 0) {
    const ns = rbac.certificateNamespace ?? options.namespace;
    const certRole = `${name}-webhook-certificates`;
    out.push(...boundRole(certRole, ns, rbac.certificateRules));
  }
  if (rbac.shardRules !== undefined && rbac.shardRules.length > 0) {
    const ns = rbac.shardNamespace ?? options.namespace;
    const shardRole = `${name}-shard-ring`;
    out.push(...boundRole(shardRole, ns, rbac.shardRules));
  }
  return out;
}
