/**
 * The PVC protection controller of kube-controller-manager
 * (`pkg/controller/volume/pvcprotection`): a deleted PersistentVolumeClaim keeps its
 * `kubernetes.io/pvc-protection` finalizer while a Pod of its namespace uses it
 * (`spec.volumes[].persistentVolumeClaim.claimName`) and loses it, so it goes away, once none does.
 * Runs on the next tick after a PVC or Pod write, like the other in-process controllers. Without it
 * every deleted PVC would stay Terminating forever (the finalizer is added on create, as the
 * StorageObjectInUseProtection admission plugin does).
 *
 * Does not: consider a Pod that finished (`Succeeded`/`Failed`) as no longer using the claim (the
 * real controller does); Pods stay Pending here anyway.
 *
 * @module
 */
import type { Engine } from '../handlers/engine.js';
import type { Registry } from '../registry/registry.js';
import { PVC_PROTECTION } from '../registry/kinds/core.js';
import type { KObj } from '../store/object.js';
import { isObject } from '../store/object.js';

const PVCS = '/persistentvolumeclaims';
const PODS = '/pods';

/** Removes the protection finalizer of deleted, unused PVCs. */
export class PvcProtectionController {
  private stopped = false;
  private readonly pending = new Set<string>();
  private scheduled = false;
  private readonly unsubscribe: (() => void)[];

  constructor(
    private readonly engine: Engine,
    private readonly registry: Registry,
    private readonly log: (msg: string, err: unknown) => void,
  ) {
    this.unsubscribe = [
      engine.store.subscribe(PVCS, (e) => {
        if (e.type !== 'DELETED' && e.object.metadata.deletionTimestamp) this.schedule(e.key);
      }),
      engine.store.subscribe(PODS, (e) => {
        const ns = e.object.metadata.namespace ?? '';
        for (const claim of claimsOf(e.prev ?? e.object)) this.schedule(`${ns}/${claim}`);
      }),
    ];
  }

  /** Stops reacting to writes. */
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
    setImmediate(() => {
      this.scheduled = false;
      const keys = [...this.pending];
      this.pending.clear();
      for (const k of keys) {
        if (this.stopped) return;
        try {
          this.sync(k);
        } catch (e) {
          this.log(`pvc-protection pass for ${k} failed`, e);
        }
      }
    });
  }

  private sync(key: string): void {
    const pvc = this.engine.store.get(PVCS, key);
    const type = this.registry.lookup('', 'v1', 'persistentvolumeclaims');
    if (!type || !pvc?.metadata.deletionTimestamp) return;
    if (!(pvc.metadata.finalizers ?? []).includes(PVC_PROTECTION)) return;
    const ns = pvc.metadata.namespace ?? '';
    const name = pvc.metadata.name ?? '';
    for (const podKey of this.engine.store.sortedKeys(PODS)) {
      if (!podKey.startsWith(`${ns}/`)) continue;
      const pod = this.engine.store.get(PODS, podKey);
      if (pod && claimsOf(pod).includes(name)) return;
    }
    this.engine.removeFinalizer(type, key, PVC_PROTECTION, 'kube-controller-manager');
  }
}

function claimsOf(pod: KObj): string[] {
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const volumes = Array.isArray(spec['volumes']) ? spec['volumes'] : [];
  const out: string[] = [];
  for (const v of volumes) {
    const claim =
      isObject(v) && isObject(v['persistentVolumeClaim']) ? v['persistentVolumeClaim'] : undefined;
    if (claim && typeof claim['claimName'] === 'string') out.push(claim['claimName']);
  }
  return out;
}
