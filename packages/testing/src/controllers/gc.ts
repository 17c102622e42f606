/**
 * The garbage collector and the namespace controller, run asynchronously but promptly (each pass is
 * scheduled with `setImmediate`), like kube-controller-manager's controllers.
 *
 * - GC: dependents of a removed owner are deleted (Background) or lose the dangling reference when
 *   other owners still exist; `foregroundDeletion` owners wait for their dependents; `orphan` owners
 *   strip the reference from their dependents first
 *   (packages/testing/fixtures/kube-wire/14-ownerref-gc.json).
 * - Namespaces: a terminating namespace (spec.finalizers `kubernetes`, phase Terminating) stays
 *   so for `namespaceDeletionDelayMs`, then its content is deleted honouring the content's
 *   finalizers, the `NamespaceDeletion…` conditions are written (kube-controller-manager, status),
 *   and once nothing is left the namespace goes away; its DELETED event still shows
 *   `spec.finalizers` (file 20).
 *
 * Does not: model blockOwnerDeletion ordering beyond "dependents first" for Foreground.
 *
 * @module
 */
import type { Engine } from '../handlers/engine.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceType } from '../registry/types.js';
import type { KObj } from '../store/object.js';
import { clone, isObject } from '../store/object.js';
import { ownersOf } from '../store/store.js';

/** The field manager of kube-controller-manager's writes (the real GC and namespace controller). */
const CONTROLLER_MANAGER = 'kube-controller-manager';

/** Which controllers run. */
export interface ControllerSwitches {
  readonly gc: boolean;
  readonly namespaceLifecycle: boolean;
  /**
   * How long a deleted namespace stays Terminating before the namespace controller starts removing
   * its content (ms). The real controller took ~5 s in file 20; a short pause keeps the
   * Terminating phase observable (GET 200, create 403 NamespaceTerminating) without slowing tests.
   */
  readonly namespaceDeletionDelayMs: number;
}

/** GC + namespace controller. */
export class Controllers {
  private stopped = false;
  private readonly pending = new Set<string>();
  private scheduled = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly engine: Engine,
    private readonly registry: Registry,
    private readonly switches: ControllerSwitches,
    private readonly log: (msg: string, err: unknown) => void,
  ) {
    const prev = engine.hooks;
    engine.hooks = {
      ...prev,
      onRemoved: (type, last) => {
        prev.onRemoved?.(type, last);
        this.onRemoved(type, last);
      },
      onTerminating: (type, obj) => {
        prev.onTerminating?.(type, obj);
        this.onTerminating(type, obj);
      },
    };
    engine.store.subscribeAll((e) => {
      if (e.type === 'ADDED' && this.switches.gc) {
        for (const o of ownersOf(e.object))
          if (!engine.store.locateUid(o.uid)) this.schedule(`owner:${o.uid}`);
      }
    });
  }

  /** Stops scheduling work. */
  stop(): void {
    this.stopped = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }

  /** Schedules an item after `ms` (0: at once, like {@link schedule}). */
  private scheduleAfter(item: string, ms: number): void {
    if (ms <= 0) return this.schedule(item);
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.schedule(item);
    }, ms);
    this.timers.add(timer);
  }

  private schedule(item: string): void {
    if (this.stopped) return;
    this.pending.add(item);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.run());
  }

  private run(): void {
    this.scheduled = false;
    const items = [...this.pending];
    this.pending.clear();
    for (const item of items) {
      if (this.stopped) return;
      try {
        const i = item.indexOf(':');
        const kind = item.slice(0, i);
        const arg = item.slice(i + 1);
        if (kind === 'owner') this.ownerGone(arg);
        else if (kind === 'terminating') this.terminatingOwner(arg);
        else if (kind === 'namespace') this.namespace(arg);
      } catch (e) {
        this.log(`controller pass for ${item} failed`, e);
      }
    }
  }

  private typeOf(storageKey: string): ResourceType | undefined {
    return this.registry.typesOfStorage(storageKey)[0];
  }

  private onRemoved(type: ResourceType, last: KObj): void {
    const uid = last.metadata.uid;
    if (this.switches.gc && uid && this.engine.store.dependentsOf(uid).length > 0)
      this.schedule(`owner:${uid}`);
    if (this.switches.gc) {
      for (const o of ownersOf(last)) {
        const loc = this.engine.store.locateUid(o.uid);
        const owner = loc ? this.engine.store.get(loc.storageKey, loc.key) : undefined;
        if (owner?.metadata.deletionTimestamp) this.schedule(`terminating:${o.uid}`);
      }
    }
    const ns = last.metadata.namespace;
    if (ns && this.switches.namespaceLifecycle) {
      const nsObj = this.engine.store.get('/namespaces', ns);
      if (nsObj?.metadata.deletionTimestamp) this.schedule(`namespace:${ns}`);
    }
    void type;
  }

  private onTerminating(type: ResourceType, obj: KObj): void {
    if (type.group === '' && type.resource === 'namespaces') {
      if (this.switches.namespaceLifecycle && obj.metadata.name)
        this.scheduleAfter(`namespace:${obj.metadata.name}`, this.switches.namespaceDeletionDelayMs);
      return;
    }
    const f = obj.metadata.finalizers ?? [];
    if (this.switches.gc && obj.metadata.uid && (f.includes('foregroundDeletion') || f.includes('orphan'))) {
      this.schedule(`terminating:${obj.metadata.uid}`);
    }
  }

  /** The owner is gone: delete or un-own its dependents. */
  private ownerGone(uid: string): void {
    const store = this.engine.store;
    if (store.locateUid(uid)) return;
    for (const loc of store.dependentsOf(uid)) {
      const dep = store.get(loc.storageKey, loc.key);
      const type = this.typeOf(loc.storageKey);
      if (!dep || !type) continue;
      const live = ownersOf(dep).filter((o) => o.uid !== uid && store.locateUid(o.uid));
      if (live.length === 0) {
        if (!dep.metadata.deletionTimestamp) {
          this.engine.delete(
            type,
            dep.metadata.namespace,
            dep.metadata.name ?? '',
            { propagationPolicy: 'Background' },
            true,
          );
        }
      } else {
        this.stripOwner(loc.storageKey, loc.key, uid);
      }
    }
  }

  private stripOwner(storageKey: string, key: string, uid: string): void {
    const cur = this.engine.store.get(storageKey, key);
    if (!cur) return;
    const next = clone(cur);
    const refs = ownersOf(next).filter((o) => o.uid !== uid);
    if (refs.length > 0) next.metadata.ownerReferences = refs;
    else delete next.metadata.ownerReferences;
    const type = this.typeOf(storageKey);
    if (type) this.engine.controllerUpdate(type, key, next, CONTROLLER_MANAGER);
    else this.engine.store.update(storageKey, key, next);
  }

  /** An owner with foregroundDeletion/orphan finalizers. */
  private terminatingOwner(uid: string): void {
    const store = this.engine.store;
    const loc = store.locateUid(uid);
    if (!loc) return;
    const owner = store.get(loc.storageKey, loc.key);
    const ownerType = this.typeOf(loc.storageKey);
    if (!owner || !ownerType) return;
    const finalizers = owner.metadata.finalizers ?? [];
    if (finalizers.includes('orphan')) {
      for (const d of store.dependentsOf(uid)) this.stripOwner(d.storageKey, d.key, uid);
      this.engine.removeFinalizer(ownerType, loc.key, 'orphan', CONTROLLER_MANAGER);
      return;
    }
    if (finalizers.includes('foregroundDeletion')) {
      for (const d of store.dependentsOf(uid)) {
        const dep = store.get(d.storageKey, d.key);
        const type = this.typeOf(d.storageKey);
        if (!dep || !type || dep.metadata.deletionTimestamp) continue;
        this.engine.delete(
          type,
          dep.metadata.namespace,
          dep.metadata.name ?? '',
          { propagationPolicy: 'Background' },
          true,
        );
      }
      if (store.dependentsOf(uid).length === 0)
        this.engine.removeFinalizer(ownerType, loc.key, 'foregroundDeletion', CONTROLLER_MANAGER);
    }
  }

  /** A terminating namespace: delete its content, then the namespace. */
  private namespace(name: string): void {
    const store = this.engine.store;
    const ns = store.get('/namespaces', name);
    if (!ns?.metadata.deletionTimestamp) return;
    let remaining = 0;
    for (const sk of store.storageKeys()) {
      const type = this.typeOf(sk);
      if (!type?.namespaced) continue;
      const prefix = `${name}/`;
      for (const k of [...store.sortedKeys(sk)]) {
        if (!k.startsWith(prefix)) continue;
        const o = store.get(sk, k);
        if (!o) continue;
        remaining++;
        if (!o.metadata.deletionTimestamp) {
          const r = this.engine.delete(
            type,
            name,
            o.metadata.name ?? '',
            { propagationPolicy: 'Background' },
            this.switches.gc,
          );
          if (r.gone) remaining--;
        }
      }
    }
    const now = this.engine.nowIso();
    const cond = (type: string, status: string, reason: string, message: string): Record<string, string> => ({
      type,
      status,
      lastTransitionTime: now,
      reason,
      message,
    });
    const next = clone(ns);
    const status = isObject(next['status']) ? next['status'] : {};
    status['phase'] = 'Terminating';
    status['conditions'] = [
      cond(
        'NamespaceDeletionDiscoveryFailure',
        'False',
        'ResourcesDiscovered',
        'All resources successfully discovered',
      ),
      cond(
        'NamespaceDeletionGroupVersionParsingFailure',
        'False',
        'ParsedGroupVersions',
        'All legacy kube types successfully parsed',
      ),
      cond(
        'NamespaceDeletionContentFailure',
        'False',
        'ContentDeleted',
        'All content successfully deleted, may be waiting on finalization',
      ),
      remaining > 0
        ? cond(
            'NamespaceContentRemaining',
            'True',
            'SomeResourcesRemain',
            `Some resources are remaining: ${String(remaining)} objects`,
          )
        : cond('NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed'),
      remaining > 0
        ? cond(
            'NamespaceFinalizersRemaining',
            'True',
            'SomeFinalizersRemain',
            'Some content in the namespace has finalizers remaining',
          )
        : cond(
            'NamespaceFinalizersRemaining',
            'False',
            'ContentHasNoFinalizers',
            'All content-preserving finalizers finished',
          ),
    ];
    next['status'] = status;
    const nsType = this.typeOf('/namespaces');
    if (!nsType) return;
    if (JSON.stringify(next['status']) !== JSON.stringify(ns['status'])) {
      const conditionsOnly = (s: unknown): unknown =>
        isObject(s) && Array.isArray(s['conditions'])
          ? s['conditions'].map((c: Record<string, unknown>) => ({ ...c, lastTransitionTime: '' }))
          : undefined;
      if (JSON.stringify(conditionsOnly(next['status'])) !== JSON.stringify(conditionsOnly(ns['status']))) {
        this.engine.controllerUpdate(nsType, name, next, CONTROLLER_MANAGER, 'status');
      }
    }
    if (remaining > 0) return;
    // spec.finalizers [kubernetes] done: the namespace goes away (its last state keeps spec.finalizers)
    const cur = store.get('/namespaces', name);
    if (!cur) return;
    const spec = isObject(cur['spec']) ? cur['spec'] : {};
    const specFinalizers = Array.isArray(spec['finalizers']) ? (spec['finalizers'] as string[]) : [];
    // the controller finalizes its own `kubernetes` entry; other spec finalizers wait for /finalize
    if (specFinalizers.includes('kubernetes'))
      this.engine.finalizeNamespace(
        nsType,
        name,
        specFinalizers.filter((f) => f !== 'kubernetes'),
        CONTROLLER_MANAGER,
      );
  }
}
