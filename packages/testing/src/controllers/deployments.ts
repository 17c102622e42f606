/**
 * A simulated Deployment controller (opt-in: `startApiServer({ simulateDeployments: true })`).
 *
 * The embedded server has no Pods, kubelet or nodes, so on its own a Deployment's `status` never
 * moves and an operator waiting for `readyReplicas` waits forever. This controller does what
 * kube-controller-manager's deployment and ReplicaSet controllers do once every pod is ready, on
 * the next tick after a write, as `kube-controller-manager`:
 *
 * - owns one ReplicaSet per pod template (`rollout.ts`): `<name>-<pod-template-hash>` with the
 *   hash label on it, its selector and template, a controller ownerReference, the Deployment's
 *   annotations and `deployment.kubernetes.io/revision` (max + 1 for a new template, and for an
 *   old template that comes back — `kubectl rollout undo` — with `revision-history`); the current
 *   one has `spec.replicas` of the Deployment, the others 0; the oldest idle ones beyond
 *   `revisionHistoryLimit` are deleted. The Deployment gets the current revision annotation, written
 *   with its status through `/status` as the real controller's `UpdateStatus` does. So
 *   `kubectl rollout status/history/undo/restart` work;
 * - writes each owned ReplicaSet's status as all ready (`replicas`, `fullyLabeledReplicas`,
 *   `readyReplicas`, `availableReplicas`, `observedGeneration`);
 * - writes the Deployment's status as a finished rollout (field order of apps/v1
 *   `DeploymentStatus`; zero counts omitted like Go's `omitempty`):
 *
 * ```yaml
 * observedGeneration: <metadata.generation>
 * replicas: <spec.replicas>          # also updatedReplicas, readyReplicas, availableReplicas
 * conditions:
 * - type: Available     status: "True"  reason: MinimumReplicasAvailable
 *   message: Deployment has minimum availability.
 * - type: Progressing   status: "True"  reason: NewReplicaSetAvailable
 *   message: ReplicaSet "<name>-<pod-template-hash>" has successfully progressed.
 * ```
 *
 * Level-triggered like the real controllers: every write of a Deployment or of a ReplicaSet it
 * owns is followed by a pass that writes only what differs — so its own writes cause no second
 * write. Condition times follow `SetDeploymentCondition`.
 *
 * Does not: create Pods, go through intermediate rollout states (straight to "all ready"), honour
 * `spec.paused`, `progressDeadlineSeconds` or `minReadySeconds`, sync Deployments being deleted, or
 * adopt orphaned ReplicaSets. The hash is not the real value (see `rollout.ts`).
 *
 * @module
 */
import type { Engine } from '../handlers/engine.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceType } from '../registry/types.js';
import type { Json, KObj } from '../store/object.js';
import { clone, deepEqual, isObject } from '../store/object.js';
import {
  equalIgnoreHash,
  newReplicaSet,
  podTemplateHash,
  replicaSetAnnotations,
  replicaSetsToClean,
  REVISION,
  REVISION_HISTORY,
  revisionOf,
} from './rollout.js';

/** The field manager of kube-controller-manager's writes (the real deployment controller's). */
const CONTROLLER_MANAGER = 'kube-controller-manager';
/** Storage keys of Deployments and ReplicaSets. */
const DEPLOYMENTS = 'apps/deployments';
const REPLICASETS = 'apps/replicasets';

/** A Deployment condition as apps/v1 `DeploymentCondition` orders its fields. */
interface DeploymentCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  lastUpdateTime: string;
  lastTransitionTime: string;
  reason: string;
  message: string;
}

/** Marks every Deployment as rolled out with all its pods ready, on the next tick after each write. */
export class DeploymentController {
  private stopped = false;
  private readonly pending = new Set<string>();
  private scheduled = false;
  private readonly unsubscribe: (() => void)[];

  /**
   * @param engine the server's object engine (writes go through `controllerUpdate`).
   * @param registry the served types (for the apps/v1 Deployment type).
   * @param log where failed passes are reported.
   */
  constructor(
    private readonly engine: Engine,
    private readonly registry: Registry,
    private readonly log: (msg: string, err: unknown) => void,
  ) {
    this.unsubscribe = [
      engine.store.subscribe(DEPLOYMENTS, (e) => {
        if (e.type !== 'DELETED') this.schedule(e.key);
      }),
      // a change to an owned ReplicaSet (or its removal) resyncs its Deployment
      engine.store.subscribe(REPLICASETS, (e) => {
        const owner = (e.object.metadata.ownerReferences ?? []).find((o) => o.controller === true);
        if (owner?.kind === 'Deployment') this.schedule(`${e.object.metadata.namespace ?? ''}/${owner.name}`);
      }),
    ];
  }

  /** Stops reacting to writes; pending passes are dropped. */
  stop(): void {
    this.stopped = true;
    for (const u of this.unsubscribe) u();
    this.pending.clear();
  }

  private schedule(key: string): void {
    if (this.stopped) return;
    this.pending.add(key);
    if (this.scheduled) return;
    this.scheduled = true;
    // never write from inside a store listener: the write that triggered us is still being delivered
    setImmediate(() => this.run());
  }

  private run(): void {
    this.scheduled = false;
    const keys = [...this.pending];
    this.pending.clear();
    for (const key of keys) {
      if (this.stopped) return;
      try {
        this.sync(key);
      } catch (e) {
        this.log(`deployment controller pass for ${key} failed`, e);
      }
    }
  }

  private sync(key: string): void {
    const type = this.registry.lookup('apps', 'v1', 'deployments');
    const rsType = this.registry.lookup('apps', 'v1', 'replicasets');
    const stored = this.engine.store.get(DEPLOYMENTS, key);
    if (!type || !rsType || !stored || stored.metadata.deletionTimestamp) return;
    const current = this.syncReplicaSets(stored, rsType);
    const next: KObj = clone(stored);
    // the real controller records the revision with UpdateStatus, whose strategy keeps
    // annotations (so the generation does not move): one write of annotation and status
    if (current)
      next.metadata.annotations = {
        ...(next.metadata.annotations ?? {}),
        [REVISION]: String(revisionOf(current)),
      };
    const status = isObject(stored['status']) ? stored['status'] : undefined;
    next['status'] = rolledOutStatus(stored, current?.metadata.name, status, this.engine.nowIso());
    if (
      deepEqual(next['status'], status ?? {}) &&
      deepEqual(next.metadata.annotations, stored.metadata.annotations)
    )
      return;
    this.engine.controllerUpdate(type, key, next, CONTROLLER_MANAGER, 'status');
  }

  /**
   * Makes the owned ReplicaSets what the Deployment's template asks for (`rollout.ts`) and writes
   * their statuses; returns the current one.
   */
  private syncReplicaSets(deployment: KObj, rsType: ResourceType): KObj | undefined {
    const store = this.engine.store;
    const ns = deployment.metadata.namespace ?? '';
    const owned: KObj[] = [];
    for (const k of store.sortedKeys(REPLICASETS)) {
      if (!k.startsWith(`${ns}/`)) continue;
      const rs = store.get(REPLICASETS, k);
      const ref = rs?.metadata.ownerReferences?.find((o) => o.controller === true);
      if (rs && ref?.uid === deployment.metadata.uid) owned.push(rs);
    }
    const spec = isObject(deployment['spec']) ? deployment['spec'] : {};
    const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
    const rsSpec = (rs: KObj): Json => (isObject(rs['spec']) ? rs['spec'] : {});
    const maxRevision = Math.max(0, ...owned.map(revisionOf));
    let current = owned.find((rs) => equalIgnoreHash(rsSpec(rs)['template'], spec['template']));
    if (!current) {
      const status = isObject(deployment['status']) ? deployment['status'] : {};
      const hash = podTemplateHash(spec['template'], status['collisionCount']);
      const created = this.engine.create(rsType, ns, newReplicaSet(deployment, hash, maxRevision + 1), {
        manager: CONTROLLER_MANAGER,
      });
      current = rsType.toStorage(created.object);
    } else {
      // an old template came back (rollout undo): it becomes the newest revision
      const revision = revisionOf(current) < maxRevision ? maxRevision + 1 : revisionOf(current);
      const history =
        revision !== revisionOf(current)
          ? [current.metadata.annotations?.[REVISION_HISTORY], String(revisionOf(current))]
              .filter(Boolean)
              .join(',')
          : undefined;
      const annotations = replicaSetAnnotations(deployment, revision, current.metadata.annotations, history);
      if (!deepEqual(annotations, current.metadata.annotations) || rsSpec(current)['replicas'] !== replicas) {
        const next = clone(current);
        next.metadata.annotations = annotations;
        next['spec'] = { ...rsSpec(next), replicas };
        this.engine.controllerUpdate(
          rsType,
          this.engine.keyOf(rsType, ns, next.metadata.name ?? ''),
          next,
          CONTROLLER_MANAGER,
        );
        current = store.get(REPLICASETS, `${ns}/${next.metadata.name ?? ''}`) ?? next;
      }
    }
    const old = owned.filter((rs) => rs.metadata.name !== current.metadata.name);
    for (const rs of old) {
      if (rsSpec(rs)['replicas'] === 0) continue;
      const next = clone(rs);
      next['spec'] = { ...rsSpec(next), replicas: 0 };
      this.engine.controllerUpdate(rsType, `${ns}/${rs.metadata.name ?? ''}`, next, CONTROLLER_MANAGER);
    }
    for (const rs of replicaSetsToClean(
      deployment,
      old.map((rs) => store.get(REPLICASETS, `${ns}/${rs.metadata.name ?? ''}`) ?? rs),
    )) {
      this.engine.delete(rsType, ns, rs.metadata.name ?? '', { propagationPolicy: 'Background' }, true);
    }
    for (const rs of [current, ...old]) {
      const latest = store.get(REPLICASETS, `${ns}/${rs.metadata.name ?? ''}`);
      if (latest) this.syncReplicaSetStatus(rsType, latest);
    }
    return store.get(REPLICASETS, `${ns}/${current.metadata.name ?? ''}`) ?? current;
  }

  /** Writes a ReplicaSet's status as the ReplicaSet controller does once every pod is ready. */
  private syncReplicaSetStatus(rsType: ResourceType, rs: KObj): void {
    const spec = isObject(rs['spec']) ? rs['spec'] : {};
    const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
    const status: Json = { replicas };
    if (replicas > 0) {
      status['fullyLabeledReplicas'] = replicas;
      status['readyReplicas'] = replicas;
      status['availableReplicas'] = replicas;
    }
    if (typeof rs.metadata.generation === 'number') status['observedGeneration'] = rs.metadata.generation;
    if (deepEqual(status, rs['status'] ?? {})) return;
    const next = clone(rs);
    next['status'] = status;
    const key = this.engine.keyOf(rsType, rs.metadata.namespace, rs.metadata.name ?? '');
    this.engine.controllerUpdate(rsType, key, next, CONTROLLER_MANAGER, 'status');
  }
}

/**
 * The status of `deployment` once its rollout completed with every replica ready, keeping the
 * condition times of `current` where the real controller keeps them. `replicaSet` names the
 * current ReplicaSet (default: `<name>-<hash>` of this module's hash).
 */
export function rolledOutStatus(
  deployment: KObj,
  replicaSet: string | undefined,
  current: Json | undefined,
  now: string,
): Json {
  const spec = isObject(deployment['spec']) ? deployment['spec'] : {};
  const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
  const name =
    replicaSet ??
    `${deployment.metadata.name ?? ''}-${podTemplateHash(spec['template'], current?.['collisionCount'])}`;
  const status: Json = {};
  if (typeof deployment.metadata.generation === 'number')
    status['observedGeneration'] = deployment.metadata.generation;
  if (replicas > 0) {
    status['replicas'] = replicas;
    status['updatedReplicas'] = replicas;
    status['readyReplicas'] = replicas;
    status['availableReplicas'] = replicas;
  }
  const previous = Array.isArray(current?.['conditions'])
    ? (current['conditions'] as DeploymentCondition[])
    : [];
  status['conditions'] = [
    condition(previous, now, 'Available', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'),
    condition(
      previous,
      now,
      'Progressing',
      'NewReplicaSetAvailable',
      `ReplicaSet "${name}" has successfully progressed.`,
    ),
  ];
  if (typeof current?.['collisionCount'] === 'number') status['collisionCount'] = current['collisionCount'];
  return status;
}

/** A `True` condition, with the times kept from `previous` like `SetDeploymentCondition`. */
function condition(
  previous: readonly DeploymentCondition[],
  now: string,
  type: string,
  reason: string,
  message: string,
): DeploymentCondition {
  const old = previous.find((c) => isObject(c) && c.type === type);
  const status = 'True';
  if (old?.status === status && old.reason === reason && old.message === message) {
    return {
      type,
      status,
      lastUpdateTime: old.lastUpdateTime,
      lastTransitionTime: old.lastTransitionTime,
      reason,
      message,
    };
  }
  const lastTransitionTime = old?.status === status ? old.lastTransitionTime : now;
  return { type, status, lastUpdateTime: now, lastTransitionTime, reason, message };
}
