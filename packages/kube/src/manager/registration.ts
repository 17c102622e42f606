/**
 * What a Manager is told to run, as plain data: a registration (`mgr.add(name, options,
 * reconcile)`) records its name, options and reconcile, nothing more. Watch targets, RBAC
 * (`managerRbac`) and readiness checks are computed from registrations without building a
 * controller — building one allocates metrics and loggers, which only a running controller needs.
 *
 * @module
 */
import type { PolicyRule as WirePolicyRule } from '@rxkube/wire';

import { InvalidArgumentError } from '../internal/invalid-argument.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import type { ControllerOptions } from '../controller/options.js';
import type { ControllerReconcile } from '../controller/options.js';
import type { KubeObject } from '../types.js';
import type { WebhookDescription } from '../webhook/webhook-server.js';

/**
 * An rbac.authorization.k8s.io/v1 PolicyRule, resource rules only: `@rxkube/wire`'s `PolicyRule`
 * (the one the embedded API server's authorizer reads) with `apiGroups` and `resources` required
 * and no `nonResourceURLs`, which a Role bound in a namespace cannot grant.
 *
 * ## Example
 * ```ts
 * const createConfigMaps: PolicyRule = { apiGroups: [''], resources: ['configmaps'], verbs: ['create', 'patch', 'delete'] };
 * mgr.add<Widget>('widget', { for: widgetType, permissions: [createConfigMaps] }, reconcile);
 * ```
 */
export type PolicyRule = Required<Pick<WirePolicyRule, 'apiGroups' | 'resources' | 'verbs'>> &
  Pick<WirePolicyRule, 'resourceNames'>;

/**
 * A controller's options as given to `Manager.add`: the manager supplies the rest.
 *
 * ## Example
 * ```ts
 * const options: ManagedControllerOptions<Widget> = {
 *   for: widgetType,
 *   owns: [{ apiVersion: 'v1', kind: 'ConfigMap' }],
 *   status: { fieldManager: 'widgets' },
 *   events: true,
 * };
 * mgr.add('widget', options, reconcile);
 * ```
 */
export type ManagedControllerOptions<T extends KubeObject> = Omit<
  ControllerOptions<T>,
  'client' | 'registry' | 'observer' | 'log' | 'recorder' | 'shutdown' | 'admit'
> & {
  /** Give the controller an `EventRecorder` (so `ctx.record` works), reporting as `<manager>/<controller>`. */
  readonly events?: boolean;
  /**
   * RBAC rules the reconcile needs beyond what the controller's own watches and writes imply
   * (see `managerRbac`), e.g. creating children.
   */
  readonly permissions?: readonly PolicyRule[];
  /**
   * With a sharded Manager: this controller must run on one replica only (a cluster-wide
   * aggregate). With leader election it runs under the leader Lease; without, on the ring member
   * holding bucket 0's fence. Default false: its keys are sharded.
   */
  readonly single?: boolean;
};

/**
 * A registered controller: exactly what `Manager.add` was given.
 *
 * ## Example
 * ```ts
 * for (const c of mgr.registered) console.log(c.name, c.options.for.kind);
 * ```
 */
export interface ManagedController {
  readonly name: string;
  readonly options: ManagedControllerOptions<KubeObject>;
  readonly reconcile: ControllerReconcile<KubeObject>;
}

/**
 * Everything a Manager was told to run, resolved against discovery (cluster-scoped primary kinds
 * run cluster-wide) — plain data, from which RBAC and readiness are derived.
 *
 * ## Example
 * ```ts
 * const { targets, registered } = await mgr.describe();
 * console.log(registered.map((r) => r.name), targets.length, 'watches');
 * ```
 */
export interface ManagerDescription {
  /** The manager's name. */
  readonly name: string;
  /** The watched namespaces; `undefined`: all. */
  readonly namespaces: readonly string[] | undefined;
  /** The registrations, in order. */
  readonly registered: readonly ManagedController[];
  /** Every watch target of the registrations (deduplicated), as the registry keys them. */
  readonly targets: readonly WatchTarget[];
  /** Names of the CRDs the operator installs (`mgr.ensureCrd`). */
  readonly installedCrds: readonly string[];
  /** The lease's namespace when leader election is on. */
  readonly leaseNamespace: string | undefined;
  /** The lease's name when leader election is on (RBAC names it in `resourceNames`). */
  readonly leaseName?: string | undefined;
  /** The shard ring's Lease namespace when sharding is on. */
  readonly shardNamespace?: string | undefined;
  /** The webhook server's registrations and certificates (`mgr.webhooks(…)`), when made. */
  readonly webhooks?: WebhookDescription | undefined;
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** Whether `name` is a valid registration (or runnable) name: lower-case letters, digits and "-". */
export function isRegistrationName(name: unknown): name is string {
  return typeof name === 'string' && NAME.test(name);
}

/**
 * Checks a new registration against those already made.
 *
 * @throws {InvalidArgumentError} for a malformed or duplicate name, or a reconcile that is not a function.
 */
export function checkRegistration(
  registered: readonly ManagedController[],
  name: string,
  reconcile: unknown,
): void {
  const fail = (field: string, value: unknown, expected: string): never => {
    throw new InvalidArgumentError('Manager.add', field, value, expected);
  };
  if (!isRegistrationName(name)) {
    fail('name', name, 'must be a lower-case name of letters, digits and "-" (it labels metrics and logs)');
  }
  if (registered.some((c) => c.name === name)) fail('name', name, 'must be unique in this manager');
  if (typeof reconcile !== 'function') {
    fail('reconcile', reconcile, 'must be a function (request, ctx) => ObservableInput<Action>');
  }
}
