/**
 * copyrator's wiring: the CopyratorRule CRD, one controller registered with a {@link Manager},
 * and what the reconcile and the map functions read from its cache.
 *
 * Watches (all shared through the manager's registry, read through the controller's cache):
 * - CopyratorRule (the primary, cluster-scoped);
 * - every ConfigMap and every Secret, all namespaces — the sources (any rule may select any
 *   labels in any namespace), the copies (found through a Store index on the
 *   `copyrator.rxkube.io/rule` label, declared with the watch) and whatever else is in a copy's way;
 * - Namespaces — every event reruns every rule (new namespace → copies there).
 *
 * The reconcile is level-triggered and per rule: desired copies (sources × Active target
 * namespaces) vs existing copies → server-side apply what is missing or changed, delete what is
 * stale (`planCopies`, `syncRule` in `reconcile.ts`); then the status. A finalizer on the rule
 * deletes all its copies before the rule goes away (copies live in other namespaces, so they
 * cannot carry an ownerReference to it).
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import type {
  CacheReader,
  ControllerReconcile,
  KubeClient,
  KubeObject,
  Manager,
  MapContext,
  PolicyRule,
  RequestName,
  ResourceType,
} from '@rxkube/kube';
import { setCondition, setObservedGeneration } from '@rxkube/kube';
import type { Observable } from 'rxjs';
import { defer, from, map, tap } from 'rxjs';
import { exampleFile } from '../../src/paths.js';
import type { SyncOptions } from './reconcile.js';
import type { RuleStatusUpdate } from './rule-status.js';
import type { CopyObject, CopyratorRule, CopyratorRuleStatus, Namespace } from './rule-types.js';
import { cleanupCopies, rulesForNamespace, rulesForObject, syncRule } from './reconcile.js';
import {
  CONFIGMAP,
  FIELD_MANAGER,
  FINALIZER,
  NAMESPACE,
  RULE_LABEL,
  RULE_TYPE,
  SECRET,
  SOURCE_ANNOTATION,
} from './rule-types.js';
import { copiedType } from './rule.js';

/** The operator's (and its controller's) name. */
export const name = 'copyrator';

/**
 * What the reconcile does to copies, for RBAC (the manager derives list/watch from the watches,
 * the status and finalizer patches from `status`/`finalizer`): server-side apply is a `patch` (and
 * a `create` when the copy is new), stale copies are deleted, the finalizer's cleanup lists copies
 * by label. Nothing is read by name: sources and copies come from the watches' Stores.
 */
export const COPY_PERMISSIONS: readonly PolicyRule[] = [
  {
    apiGroups: [''],
    resources: ['configmaps', 'secrets'],
    verbs: ['list', 'create', 'patch', 'delete'],
  },
];

/** Options of {@link setup}. */
export interface CopyratorOptions extends SyncOptions {
  /** Rules reconciled at once; default 2. */
  readonly reconcileConcurrency?: number;
  /**
   * Install (server-side apply, `mgr.ensureCrd`) the CRD and wait until it is served; default
   * true, and `managerRbac` then grants get/patch on this CRD by name. Set false when the CRD is
   * managed elsewhere and the operator must not touch it: nothing on customresourcedefinitions is
   * requested or granted.
   */
  readonly installCrd?: boolean;
}

/** The index of copies by the rule they belong to (the `copyrator.rxkube.io/rule` label). */
const BY_RULE = 'copyrator.rxkube.io/rule';
const byRule = (o: KubeObject): string[] => {
  const rule = o.metadata.labels?.[RULE_LABEL];
  return rule === undefined ? [] : [rule];
};

/** The copied kinds by `kind`, as the cache reads them. */
const copiedKind = (kind: string): ResourceType<CopyObject> => (kind === 'Secret' ? SECRET : CONFIGMAP);

/**
 * What copyrator reads, over a controller's cache (the Stores its watches fill, across the
 * namespaces it watches): the same in a reconcile (`ctx.cache`) and in a map function.
 */
export interface CopyratorView {
  /** Every rule. */
  readonly rules: () => CopyratorRule[];
  /** Every Namespace. */
  readonly namespaces: () => Namespace[];
  /** ConfigMaps or Secrets (`kind`) in `namespace`. */
  readonly objects: (kind: string, namespace: string) => CopyObject[];
  /** The object of `kind` at `namespace/name`. */
  readonly object: (kind: string, namespace: string, name: string) => CopyObject | undefined;
  /** The copies labelled with `rule`, ConfigMaps and Secrets (through the `BY_RULE` index). */
  readonly copiesOf: (rule: string) => CopyObject[];
  /** Whether `rule` has a copy of the source `namespace/name`. */
  readonly hasCopyOf: (rule: string, source: string) => boolean;
}

/**
 * The {@link CopyratorView} over a controller's cache.
 *
 * ## Example
 * ```ts
 * watches: [{ resource: SECRET, map: (o, { cache }) => rulesForObject(o, copyratorView(cache).rules(), …) }]
 * ```
 */
export function copyratorView(cache: CacheReader): CopyratorView {
  const copiesOf = (rule: string): CopyObject[] => [
    ...cache.list(CONFIGMAP, { matchingFields: { [BY_RULE]: rule } }),
    ...cache.list(SECRET, { matchingFields: { [BY_RULE]: rule } }),
  ];
  return {
    rules: () => cache.list(RULE_TYPE),
    namespaces: () => cache.list(NAMESPACE),
    objects: (kind, namespace) => cache.list(copiedKind(kind), { namespace }),
    object: (kind, namespace, objectName) => cache.get(copiedKind(kind), `${namespace}/${objectName}`),
    copiesOf,
    hasCopyOf: (rule, source) =>
      copiesOf(rule).some((c) => c.metadata.annotations?.[SOURCE_ANNOTATION] === source),
  };
}

/**
 * The reconcile of one rule: plan from the controller's cache, apply and delete copies through
 * the context (server-side apply, field manager `copyrator`: tracked as the controller's own
 * writes, so their echoes do not rerun the rule), write the status, record an Event when copies
 * changed. Logs copy references and counts only — never an object.
 *
 * ## Example
 * ```ts
 * mgr.add<CopyratorRule>('copyrator', { for: RULE_TYPE, ... }, copyratorReconcile());
 * ```
 */
export function copyratorReconcile(options: SyncOptions = {}): ControllerReconcile<CopyratorRule> {
  return (_request, ctx) => {
    const rule = ctx.object;
    const ruleName = rule.metadata.name ?? '';
    const spec = rule.spec;
    const view = copyratorView(ctx.cache);
    const kind = spec !== undefined ? copiedType(spec).kind : 'ConfigMap';
    return syncRule(
      {
        rule,
        candidates: typeof spec?.sourceNamespace === 'string' ? view.objects(kind, spec.sourceNamespace) : [],
        namespaces: view.namespaces(),
        existing: view.copiesOf(ruleName),
        occupant: view.object,
      },
      {
        apply: (copy, { force }) => ctx.apply(copy, { fieldManager: FIELD_MANAGER, force }),
        delete: (ref, uid) => ctx.delete(ref, uid !== undefined ? { preconditions: { uid } } : {}),
        status: (update) => ctx.status((s) => writeStatus(s, rule, update)),
      },
      options,
    ).pipe(
      tap(({ report, status }) => {
        const refs = (list: readonly { kind: string; namespace?: string; name: string }[]) =>
          list.map((r) => `${r.kind} ${r.namespace ?? ''}/${r.name}`);
        if (report.applied.length > 0 || report.deleted.length > 0) {
          ctx.log.info?.('copies synced', {
            rule: ruleName,
            applied: refs(report.applied),
            deleted: refs(report.deleted),
            copies: status.copies,
          });
          ctx.record({
            type: 'Normal',
            reason: 'CopiesSynced',
            action: 'Sync',
            note: `applied ${report.applied.length}, deleted ${report.deleted.length}; ${status.ready.message ?? ''}`,
          });
        }
        if (report.conflicts.length > 0) {
          ctx.log.warn?.('copy places taken by other objects', {
            rule: ruleName,
            conflicts: report.conflicts.map(
              (c) => `${c.ref.kind} ${c.ref.namespace ?? ''}/${c.ref.name} (${c.heldBy})`,
            ),
          });
          ctx.record({
            type: 'Warning',
            reason: 'CopyConflict',
            action: 'Sync',
            note: status.ready.message ?? '',
          });
        }
      }),
      map(({ action }) => action),
    );
  };
}

function writeStatus(s: CopyratorRuleStatus, rule: CopyratorRule, update: RuleStatusUpdate): void {
  setObservedGeneration(s, rule);
  s.sources = update.sources;
  s.copies = update.copies;
  setCondition(s, update.ready);
}

/**
 * Deletes every copy of `rule` the API server has (listed by label, metadata only: no Secret
 * data is read), whatever the Stores show. Idempotent: a copy already gone is not an error.
 *
 * ## Example
 * ```ts
 * const deleted = await lastValueFrom(deleteCopiesOf(client, 'registry-credentials'));
 * ```
 */
export function deleteCopiesOf(client: KubeClient, rule: string): Observable<number> {
  return cleanupCopies(rule, {
    list: (type, labelSelector) =>
      defer(() => from(client.list<KubeObject>(type, { labelSelector, metadataOnly: true }))).pipe(
        map((list) => list.items),
      ),
    delete: (ref, uid) => client.delete(ref, uid !== undefined ? { preconditions: { uid } } : {}),
  });
}

/**
 * Installs the CopyratorRule CRD (unless `installCrd: false`) and registers the `copyrator`
 * controller with `mgr`. Call before `mgr.start()`. The manager must watch all namespaces (rules
 * are cluster-scoped and copy across namespaces).
 *
 * ## Example
 * ```ts
 * const mgr = new Manager({ client: KubeClient.default(), name: 'copyrator' });
 * await setup(mgr);
 * await mgr.start();
 * ```
 * @throws {InvalidArgumentError} when the manager is limited to some namespaces.
 */
export async function setup(mgr: Manager, options: CopyratorOptions = {}): Promise<void> {
  if (mgr.namespaces !== undefined && mgr.namespaces.length > 0) {
    throw new InvalidArgumentError(
      'copyrator.setup',
      'mgr.namespaces',
      mgr.namespaces,
      'must be unset: copyrator watches CopyratorRules (cluster-scoped) and copies across all namespaces; run it in a Manager without namespaces',
    );
  }
  if (options.installCrd !== false) {
    // Through the manager, so `managerRbac` (`rxkube rbac`) grants get/patch on this CRD.
    await mgr.ensureCrd(exampleFile('copyrator', 'crd.yaml'), { fieldManager: FIELD_MANAGER });
  }
  const { reconcileConcurrency, installCrd: _installCrd, ...sync } = options;
  /** The rules an event of a ConfigMap or Secret concerns, read from the controller's cache. */
  const rulesOf = (o: CopyObject, { cache }: MapContext): RequestName[] => {
    const view = copyratorView(cache);
    return rulesForObject(o, view.rules(), { hasCopyOf: view.hasCopyOf, object: view.object });
  };
  mgr.add<CopyratorRule>(
    name,
    {
      for: RULE_TYPE,
      watches: [
        { resource: CONFIGMAP, map: rulesOf, indexes: { [BY_RULE]: byRule } },
        { resource: SECRET, map: rulesOf, indexes: { [BY_RULE]: byRule } },
        { resource: NAMESPACE, map: (_ns, { cache }) => rulesForNamespace(cache.list(RULE_TYPE)) },
      ],
      concurrency: reconcileConcurrency ?? 2,
      status: { fieldManager: FIELD_MANAGER },
      finalizer: { name: FINALIZER, cleanup: (rule) => deleteCopiesOf(mgr.client, rule.metadata.name ?? '') },
      events: true,
      permissions: COPY_PERMISSIONS,
    },
    copyratorReconcile(sync),
  );
}

/** One row of {@link summarize}: a rule and what it has done. */
export interface RuleSummary {
  readonly rule: string;
  readonly type: string;
  readonly source: string;
  readonly sources: number;
  readonly copies: number;
  readonly ready: string;
  readonly reason: string;
  /** Namespaces holding a copy, from the server (not the status). */
  readonly namespaces: readonly string[];
}

/**
 * Reads every rule and its copies from the server (copies listed metadata only) for a summary
 * table.
 *
 * ## Example
 * ```ts
 * for (const r of await summarize(client)) console.log(r.rule, r.copies, r.ready);
 * ```
 */
export async function summarize(client: KubeClient): Promise<RuleSummary[]> {
  const rules = await client.list<CopyratorRule>(RULE_TYPE);
  const rows: RuleSummary[] = [];
  for (const rule of rules.items) {
    const ruleName = rule.metadata.name ?? '';
    const type = rule.spec !== undefined ? copiedType(rule.spec) : CONFIGMAP;
    const copies = await client.list<KubeObject>(type, {
      labelSelector: `${RULE_LABEL}=${ruleName}`,
      metadataOnly: true,
    });
    const ready = rule.status?.conditions?.find((c) => c.type === 'Ready');
    rows.push({
      rule: ruleName,
      type: rule.spec?.ruleType ?? '',
      source: rule.spec?.sourceNamespace ?? '',
      sources: rule.status?.sources ?? 0,
      copies: rule.status?.copies ?? 0,
      ready: ready?.status ?? 'Unknown',
      reason: ready?.reason ?? '',
      namespaces: [...new Set(copies.items.map((c) => c.metadata.namespace ?? ''))].sort(),
    });
  }
  return rows;
}
