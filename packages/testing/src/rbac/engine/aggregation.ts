/**
 * The ClusterRole aggregation controller of kube-controller-manager
 * (`pkg/controller/clusterroleaggregation/clusterroleaggregation_controller.go` v1.24): a ClusterRole
 * with an `aggregationRule` gets the rules of every other ClusterRole its selectors match (matched
 * roles by name, each rule once), written as a forced server-side apply by
 * `clusterrole-aggregation-controller` whenever any ClusterRole changes — so the bootstrap `admin`,
 * `edit` and `view` carry the `system:aggregate-to-*` rules, and a CRD's role labelled
 * `rbac.authorization.k8s.io/aggregate-to-edit: "true"` joins `edit`.
 *
 * @module
 */
import type { Engine } from '../../handlers/engine.js';
import type { Registry } from '../../registry/registry.js';
import type { Json, KObj } from '../../store/object.js';
import { deepEqual, isObject } from '../../store/object.js';
import { RBAC_STORAGE } from '../authorizer.js';
import { RBAC_GROUP } from '../types.js';

const MANAGER = 'clusterrole-aggregation-controller';
/** Bound on passes per sync: aggregation chains are short; a cycle settles too. */
const MAX_PASSES = 20;

/** Whether a `metav1.LabelSelector` (JSON) selects `labels`. */
export function labelSelectorMatches(selector: unknown, labels: Readonly<Record<string, string>>): boolean {
  const s = isObject(selector) ? selector : {};
  const matchLabels = isObject(s['matchLabels']) ? s['matchLabels'] : {};
  for (const [k, v] of Object.entries(matchLabels)) if (labels[k] !== v) return false;
  const expressions = Array.isArray(s['matchExpressions']) ? s['matchExpressions'] : [];
  for (const e of expressions) {
    const req = isObject(e) ? e : {};
    const key = typeof req['key'] === 'string' ? req['key'] : '';
    const values = Array.isArray(req['values']) ? req['values'] : [];
    const has = Object.prototype.hasOwnProperty.call(labels, key);
    switch (req['operator']) {
      case 'In':
        if (!has || !values.includes(labels[key])) return false;
        break;
      case 'NotIn':
        if (has && values.includes(labels[key])) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** The aggregation controller; syncs on the tick after any ClusterRole changes. */
export class ClusterRoleAggregation {
  private timer: NodeJS.Immediate | undefined;
  private stopped = false;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly engine: Engine,
    private readonly registry: Registry,
    private readonly log: (msg: string, err: unknown) => void,
  ) {
    this.unsubscribe = engine.store.subscribe(RBAC_STORAGE.clusterroles, () => this.schedule());
  }

  private schedule(): void {
    if (this.stopped || this.timer !== undefined) return;
    this.timer = setImmediate(() => {
      this.timer = undefined;
      try {
        this.syncAll();
      } catch (e) {
        this.log('clusterrole aggregation failed', e);
      }
    });
  }

  private roles(): KObj[] {
    const key = RBAC_STORAGE.clusterroles;
    return this.engine.store
      .sortedKeys(key)
      .map((k) => this.engine.store.get(key, k))
      .filter((o): o is KObj => o !== undefined);
  }

  /**
   * Aggregates every ClusterRole with an aggregationRule now, until nothing changes (`view` feeds
   * `edit`, which feeds `admin`: the real controller gets there over a few syncs).
   */
  syncAll(): void {
    for (let pass = 0; pass < MAX_PASSES; pass++) if (!this.syncPass()) return;
  }

  /** One pass over the aggregated roles, each computed from the current state; true if one changed. */
  private syncPass(): boolean {
    let changed = false;
    for (const name of this.roles().map((r) => r.metadata.name ?? '')) {
      const all = this.roles();
      const role = all.find((r) => r.metadata.name === name);
      const rule = role?.['aggregationRule'];
      if (!role || !isObject(rule) || !Array.isArray(rule['clusterRoleSelectors'])) continue;
      const rules: unknown[] = [];
      for (const selector of rule['clusterRoleSelectors']) {
        for (const other of all) {
          if (other.metadata.name === name) continue;
          if (!labelSelectorMatches(selector, other.metadata.labels ?? {})) continue;
          for (const r of Array.isArray(other['rules']) ? other['rules'] : [])
            if (!rules.some((have) => deepEqual(have, r))) rules.push(r);
        }
      }
      const current = Array.isArray(role['rules']) ? role['rules'] : [];
      if (deepEqual(current, rules)) continue;
      this.apply(name, rules);
      changed = true;
    }
    return changed;
  }

  private apply(name: string, rules: unknown[]): void {
    const type = this.registry.lookup(RBAC_GROUP, 'v1', 'clusterroles');
    if (!type) return;
    const body: Json = { apiVersion: `${RBAC_GROUP}/v1`, kind: 'ClusterRole', metadata: { name }, rules };
    this.engine.patch(
      type,
      undefined,
      name,
      'application/apply-patch+yaml',
      Buffer.from(JSON.stringify(body)),
      {
        manager: MANAGER,
        force: true,
        fieldManagerGiven: true,
      },
    );
  }

  /** Stops reacting to changes. */
  stop(): void {
    this.stopped = true;
    this.unsubscribe();
    if (this.timer !== undefined) clearImmediate(this.timer);
  }
}
