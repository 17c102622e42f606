/**
 * A simulated Deployment controller (opt-in: `startApiServer({ simulateDeployments: true })`).
 *
 * The embedded server has no ReplicaSets, Pods, kubelet or nodes, so on its own a Deployment's
 * `status` never moves and an operator waiting for `readyReplicas` waits forever. This controller
 * writes the status a real cluster shows once a rollout finished and every pod is ready: after a
 * Deployment is created or changed, on the next tick, through the `status` path, as
 * `kube-controller-manager` (a `managedFields` Update with `subresource: status`, like the real
 * deployment controller's `UpdateStatus`).
 *
 * The status written (field order of apps/v1 `DeploymentStatus`; zero counts omitted like Go's
 * `omitempty`):
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
 * Level-triggered like the real controller: every write of a Deployment (create, spec change,
 * `scale`, someone else's status write) is followed by a pass that writes the desired status when
 * it differs from the stored one, and nothing otherwise — so its own write causes no second write.
 * Condition times follow `SetDeploymentCondition`: both kept while `status` and `reason` (and here
 * `message`, which names the ReplicaSet) stay the same; `lastTransitionTime` kept while `status`
 * stays the same.
 *
 * Does not: create ReplicaSets or Pods, go through intermediate rollout states (the jump is
 * straight to "all ready"), honour `spec.paused`, `progressDeadlineSeconds` or `minReadySeconds`,
 * write the `deployment.kubernetes.io/revision` annotation, or sync Deployments being deleted.
 * The pod-template-hash is an FNV-32a of the template's JSON encoded with the real alphabet, not
 * the real hash of the Go struct.
 *
 * @module
 */
import type { Engine } from '../handlers/engine.js';
import type { Registry } from '../registry/registry.js';
import type { Json, KObj } from '../store/object.js';
import { clone, deepEqual, isObject, sortKeys } from '../store/object.js';

/** The field manager of kube-controller-manager's writes (the real deployment controller's). */
const CONTROLLER_MANAGER = 'kube-controller-manager';
/** Storage key of Deployments. */
const DEPLOYMENTS = 'apps/deployments';

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
  private readonly unsubscribe: () => void;

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
    this.unsubscribe = engine.store.subscribe(DEPLOYMENTS, (e) => {
      if (e.type !== 'DELETED') this.schedule(e.key);
    });
  }

  /** Stops reacting to writes; pending passes are dropped. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe();
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
    const stored = this.engine.store.get(DEPLOYMENTS, key);
    if (!type || !stored || stored.metadata.deletionTimestamp) return;
    const current = isObject(stored['status']) ? stored['status'] : undefined;
    const desired = rolledOutStatus(stored, current, this.engine.nowIso());
    if (deepEqual(desired, current ?? {})) return;
    const next: KObj = clone(stored);
    next['status'] = desired;
    this.engine.controllerUpdate(type, key, next, CONTROLLER_MANAGER, 'status');
  }
}

/**
 * The status of `deployment` once its rollout completed with every replica ready, keeping the
 * condition times of `current` where the real controller keeps them.
 */
export function rolledOutStatus(deployment: KObj, current: Json | undefined, now: string): Json {
  const spec = isObject(deployment['spec']) ? deployment['spec'] : {};
  const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
  const name = deployment.metadata.name ?? '';
  const hash = podTemplateHash(spec['template'], current?.['collisionCount']);
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
      `ReplicaSet "${name}-${hash}" has successfully progressed.`,
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

/** The alphabet of apimachinery's `rand.SafeEncodeString` (no vowels, no look-alikes). */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * A pod-template-hash: FNV-32a of the template's JSON (keys sorted, so equal templates hash
 * equally whoever wrote them; plus the collision count), its decimal
 * digits encoded like `rand.SafeEncodeString` — the real shape (`5d78d6f8f6`), not the real value.
 */
function podTemplateHash(template: unknown, collisionCount: unknown): string {
  let h = 0x811c9dc5;
  const text =
    JSON.stringify(sortKeys(template ?? {})) +
    (typeof collisionCount === 'number' ? String(collisionCount) : '');
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  let out = '';
  for (const ch of String(h)) out += SAFE_ALPHABET[ch.charCodeAt(0) % SAFE_ALPHABET.length] ?? '';
  return out;
}
