/**
 * The reconcile logic of copyrator, free of wiring: which objects a `CopyratorRule` copies where
 * ({@link planCopies}: desired copies vs existing copies → what to apply, what to delete, what is
 * in the way), how a plan is carried out through two side-effect ports ({@link executePlan}), the
 * status that results ({@link ruleStatus}), and which rules an object or namespace event concerns
 * ({@link rulesForObject}, {@link rulesForNamespace}).
 *
 * Nothing here logs, and nothing here puts a Secret's `data` into a message, an error or a
 * status: copies are named by reference (`namespace/name`) only.
 *
 * @module
 */
import { Action } from '@rxkube/core';
import type {
  Condition,
  ConditionInput,
  KubeObject,
  ObjectRef,
  RequestName,
  Resource,
  ResourceType,
} from '@rxkube/kube';
import { isConflict, isNotFound } from '@rxkube/kube';
import type { Observable, ObservableInput } from 'rxjs';
import {
  catchError,
  concat,
  concatMap,
  defer,
  endWith,
  from,
  ignoreElements,
  map,
  mergeMap,
  of,
  reduce,
  throwError,
} from 'rxjs';

/** The API group of the rule. */
export const COPYRATOR_GROUP = 'copyrator.rxkube.io';
/** The rule's resource type (cluster-scoped). */
export const RULE_TYPE = { apiVersion: 'copyrator.rxkube.io/v1', kind: 'CopyratorRule' } as const;
/** Every copy carries this label; its value is the rule's name. */
export const RULE_LABEL = 'copyrator.rxkube.io/rule';
/**
 * Every copy carries this annotation: `<namespace>/<name>` of its source. An annotation, not a
 * label, because label values cannot contain `/`.
 */
export const SOURCE_ANNOTATION = 'copyrator.rxkube.io/source';
/** The server-side apply field manager of the copies. */
export const FIELD_MANAGER = 'copyrator';
/** The rule's finalizer: its copies are deleted before the rule goes away. */
export const FINALIZER = 'copyrator.rxkube.io/cleanup';
/** ConfigMaps: copied by `ruleType: configmap` rules. */
export const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
/** Secrets: copied by `ruleType: secret` rules. */
export const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;
/** Namespaces: the targets. */
export const NAMESPACE = { apiVersion: 'v1', kind: 'Namespace' } as const;
/** Secrets the token controller owns: a copy would be deleted (or rewritten) by it at once. */
export const SERVICE_ACCOUNT_TOKEN = 'kubernetes.io/service-account-token';
/** Label values (the rule's name is one) are at most 63 characters. */
const MAX_LABEL_VALUE = 63;

/** A `metav1.LabelSelectorRequirement`. */
export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}

/** A `metav1.LabelSelector`. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** `spec` of a CopyratorRule (see `crd.yaml`). */
export interface CopyratorRuleSpec {
  /** What to copy. */
  ruleType: 'configmap' | 'secret';
  /** Which objects of the source namespace to copy; at least one requirement. */
  selector: LabelSelector;
  /** The namespace copied from. */
  sourceNamespace: string;
  /** The namespaces copied into; default every Active namespace. The source namespace is always skipped. */
  targetNamespaces?: string[];
}

/** `status` of a CopyratorRule. */
export interface CopyratorRuleStatus {
  observedGeneration?: number;
  /** Objects of the source namespace the selector matches. */
  sources?: number;
  /** Copies that exist and are in sync. */
  copies?: number;
  conditions?: Condition[];
}

/**
 * A CopyratorRule.
 *
 * ## Example
 * ```ts
 * const rule: CopyratorRule = {
 *   ...RULE_TYPE,
 *   metadata: { name: 'registry' },
 *   spec: { ruleType: 'secret', sourceNamespace: 'platform', selector: { matchLabels: { copy: 'yes' } } },
 * };
 * ```
 */
export type CopyratorRule = Resource<CopyratorRuleSpec, CopyratorRuleStatus>;

/** A ConfigMap or a Secret as plain JSON (Secret `data` values base64, as on the wire). */
export interface CopyObject extends KubeObject {
  data?: Record<string, string>;
  /** ConfigMap only. */
  binaryData?: Record<string, string>;
  /** Secret only; the server defaults it to `Opaque`. */
  type?: string;
}

/** A Namespace as plain JSON. */
export type Namespace = KubeObject<unknown, { phase?: string }>;

/**
 * The resource type a rule copies.
 *
 * ## Example
 * ```ts
 * copiedType(rule.spec); // { apiVersion: 'v1', kind: 'Secret' } for ruleType 'secret'
 * ```
 */
export function copiedType(spec: Pick<CopyratorRuleSpec, 'ruleType'>): typeof CONFIGMAP | typeof SECRET {
  return spec.ruleType === 'secret' ? SECRET : CONFIGMAP;
}

/**
 * Whether `labels` satisfy `selector` (`metav1.LabelSelector` semantics: every `matchLabels`
 * entry and every `matchExpressions` requirement must hold).
 *
 * ## Example
 * ```ts
 * selectorMatches({ matchLabels: { app: 'a' } }, { app: 'a', tier: 'web' }); // true
 * selectorMatches({ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist' }] }, { tier: 'web' }); // false
 * ```
 */
export function selectorMatches(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>> = {},
): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    if (labels[key] !== value) return false;
  }
  for (const r of selector.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    const value = labels[r.key];
    const values = r.values ?? [];
    switch (r.operator) {
      case 'In':
        if (!has || value === undefined || !values.includes(value)) return false;
        break;
      case 'NotIn':
        if (has && value !== undefined && values.includes(value)) return false;
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

/**
 * What is wrong with a rule that the CRD schema cannot say: an empty selector (which would copy
 * everything), a name too long to be a label value, `In`/`NotIn` without values. Empty when usable.
 *
 * ## Example
 * ```ts
 * ruleProblems(rule); // ['spec.selector must have at least one matchLabels entry or matchExpressions requirement …']
 * ```
 */
export function ruleProblems(rule: CopyratorRule): string[] {
  const problems: string[] = [];
  const name = rule.metadata.name ?? '';
  if (name.length > MAX_LABEL_VALUE) {
    problems.push(
      `metadata.name is ${name.length} characters; copies are labelled ${RULE_LABEL}=<rule name>, and label values are at most ${MAX_LABEL_VALUE}: use a shorter name`,
    );
  }
  const spec = rule.spec;
  if (spec === undefined) return [...problems, 'spec is missing: set ruleType, selector and sourceNamespace'];
  if (spec.ruleType !== 'configmap' && spec.ruleType !== 'secret') {
    problems.push(`spec.ruleType is ${JSON.stringify(spec.ruleType)}: use "configmap" or "secret"`);
  }
  if (typeof spec.sourceNamespace !== 'string' || spec.sourceNamespace === '') {
    problems.push('spec.sourceNamespace is empty: name the namespace to copy from');
  }
  const selector = spec.selector ?? {};
  const requirements =
    Object.keys(selector.matchLabels ?? {}).length + (selector.matchExpressions ?? []).length;
  if (requirements === 0) {
    problems.push(
      'spec.selector must have at least one matchLabels entry or matchExpressions requirement: an empty selector would copy every object of the source namespace',
    );
  }
  for (const [i, r] of (selector.matchExpressions ?? []).entries()) {
    if ((r.operator === 'In' || r.operator === 'NotIn') && (r.values ?? []).length === 0) {
      problems.push(`spec.selector.matchExpressions[${i}] (${r.operator}) needs at least one value`);
    }
  }
  return problems;
}

/**
 * `namespace/name` of an object (the value of {@link SOURCE_ANNOTATION} for a source).
 *
 * ## Example
 * ```ts
 * keyOf({ metadata: { namespace: 'platform', name: 'registry' } }); // 'platform/registry'
 * ```
 */
export function keyOf(object: KubeObject): string {
  return `${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

/**
 * Whether `object` is one of copyrator's copies (of any rule). Copies are never sources, so rules
 * never copy each other's copies around.
 *
 * ## Example
 * ```ts
 * isCopy({ metadata: { labels: { [RULE_LABEL]: 'registry' } } }); // true
 * ```
 */
export function isCopy(object: KubeObject): boolean {
  return object.metadata.labels?.[RULE_LABEL] !== undefined;
}

/**
 * Whether `object` is a source of `rule`: in its source namespace, of its kind, matched by its
 * selector, not a copy, not being deleted, not a service-account token.
 *
 * ## Example
 * ```ts
 * const sources = store.list(rule.spec.sourceNamespace).filter((o) => isSourceOf(rule, o));
 * ```
 */
export function isSourceOf(rule: CopyratorRule, object: CopyObject): boolean {
  const spec = rule.spec;
  if (spec === undefined) return false;
  const type = copiedType(spec);
  if (object.kind !== undefined && object.kind !== type.kind) return false;
  return (
    object.metadata.namespace === spec.sourceNamespace &&
    object.metadata.deletionTimestamp === undefined &&
    !isCopy(object) &&
    object.type !== SERVICE_ACCOUNT_TOKEN &&
    selectorMatches(spec.selector ?? {}, object.metadata.labels)
  );
}

/**
 * The copy of `source` that rule `ruleName` wants in `namespace`: the source's content (ConfigMap
 * `data`/`binaryData`; Secret `type`/`data`) under the same name, labelled with the rule and
 * annotated with the source. The source's own labels and annotations are not copied (a copy must
 * not match some rule's selector and become a source itself).
 *
 * ## Example
 * ```ts
 * await client.apply(copyOf(source, 'registry', 'team-a'), { fieldManager: FIELD_MANAGER, force: true });
 * ```
 */
export function copyOf(source: CopyObject, ruleName: string, namespace: string): CopyObject {
  const kind = source.kind === 'Secret' ? 'Secret' : 'ConfigMap';
  const copy: CopyObject = {
    apiVersion: 'v1',
    kind,
    metadata: {
      name: source.metadata.name ?? '',
      namespace,
      labels: { [RULE_LABEL]: ruleName },
      annotations: { [SOURCE_ANNOTATION]: keyOf(source) },
    },
  };
  if (kind === 'Secret') copy.type = source.type ?? 'Opaque';
  if (source.data !== undefined && Object.keys(source.data).length > 0) copy.data = { ...source.data };
  if (kind === 'ConfigMap' && source.binaryData !== undefined && Object.keys(source.binaryData).length > 0) {
    copy.binaryData = { ...source.binaryData };
  }
  return copy;
}

/**
 * The reference of a copy (or any ConfigMap/Secret).
 *
 * ## Example
 * ```ts
 * await client.delete(refOf(copy), { preconditions: { uid: copy.metadata.uid } });
 * ```
 */
export function refOf(object: KubeObject): ObjectRef {
  return {
    apiVersion: 'v1',
    kind: object.kind ?? 'ConfigMap',
    namespace: object.metadata.namespace ?? '',
    name: object.metadata.name ?? '',
  };
}

/** What {@link planCopies} plans from. */
export interface PlanInput {
  readonly rule: CopyratorRule;
  /** Objects of the rule's kind in its source namespace (any labels; the planner selects). */
  readonly candidates: readonly CopyObject[];
  /** Every namespace. */
  readonly namespaces: readonly Namespace[];
  /** Every copy labelled with this rule (ConfigMaps and Secrets: the rule's type may have changed). */
  readonly existing: readonly CopyObject[];
  /**
   * Any object of `kind` at `namespace/name`, copy or not — to see foreign objects in the way of a
   * copy. Default: none.
   */
  readonly occupant?: (kind: string, namespace: string, name: string) => CopyObject | undefined;
}

/** A copy to server-side apply. */
export interface PlannedApply {
  readonly copy: CopyObject;
  /** `true` for copies known to be ours (take back fields someone else changed); `false` for new ones. */
  readonly force: boolean;
  readonly reason: 'missing' | 'changed';
}

/** A copy to delete (with its uid as precondition, so a re-created object is left alone). */
export interface PlannedDelete {
  readonly ref: ObjectRef;
  readonly uid?: string;
  /** `stale`: no longer wanted; `replace`: a Secret whose immutable `type` changed is deleted, then applied. */
  readonly reason: 'stale' | 'replace';
}

/** A wanted copy whose place another object holds. */
export interface PlanConflict {
  readonly ref: ObjectRef;
  /** `rule <name>` when another rule's copy is there, `unmanaged` for an object no rule made. */
  readonly heldBy: string;
}

/** What {@link planCopies} decided. */
export interface CopyPlan {
  /** `namespace/name` of the sources, sorted. */
  readonly sources: readonly string[];
  /** The target namespaces, sorted. */
  readonly targets: readonly string[];
  /** Every copy wanted (sources × targets), sorted by namespace then name; including conflicting ones. */
  readonly desired: readonly CopyObject[];
  readonly apply: readonly PlannedApply[];
  readonly delete: readonly PlannedDelete[];
  readonly conflicts: readonly PlanConflict[];
  /** Wanted copies already in sync. */
  readonly unchanged: number;
}

function isActive(ns: Namespace): boolean {
  // A namespace without a phase is Active (the server sets it on create; fakes may not).
  return ns.metadata.deletionTimestamp === undefined && (ns.status?.phase ?? 'Active') === 'Active';
}

function sameMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  const ak = Object.keys(a ?? {});
  const bk = Object.keys(b ?? {});
  return ak.length === bk.length && ak.every((k) => (b ?? {})[k] === (a ?? {})[k]);
}

/**
 * Whether `existing` already is `desired`: same rule label, same source annotation, same content
 * (`data`, `binaryData`, Secret `type`). Other labels and annotations are someone else's business.
 *
 * ## Example
 * ```ts
 * inSync(store.get('team-a/settings'), copyOf(source, 'settings', 'team-a'));
 * ```
 */
export function inSync(existing: CopyObject, desired: CopyObject): boolean {
  return (
    existing.kind === desired.kind &&
    existing.metadata.labels?.[RULE_LABEL] === desired.metadata.labels?.[RULE_LABEL] &&
    existing.metadata.annotations?.[SOURCE_ANNOTATION] ===
      desired.metadata.annotations?.[SOURCE_ANNOTATION] &&
    sameMap(existing.data, desired.data) &&
    sameMap(existing.binaryData, desired.binaryData) &&
    (desired.kind !== 'Secret' || (existing.type ?? 'Opaque') === (desired.type ?? 'Opaque'))
  );
}

const byPlace = (a: { namespace: string; name: string }, b: { namespace: string; name: string }): number =>
  a.namespace === b.namespace
    ? a.name < b.name
      ? -1
      : a.name > b.name
        ? 1
        : 0
    : a.namespace < b.namespace
      ? -1
      : 1;

const placeOf = (o: KubeObject): { namespace: string; name: string } => ({
  namespace: o.metadata.namespace ?? '',
  name: o.metadata.name ?? '',
});

/**
 * Desired copies vs existing copies → the plan: copies to apply (missing or changed), copies to
 * delete (stale, or a Secret whose `type` changed), and wanted copies another object is in the
 * way of. Pure and deterministic (sorted output).
 *
 * ## Example
 * ```ts
 * const plan = planCopies({ rule, candidates: secrets.list('platform'), namespaces: namespaces.list(), existing });
 * plan.apply.map((a) => a.copy.metadata.namespace); // where copies are missing or out of date
 * ```
 *
 * ## Semantics
 * - Sources: {@link isSourceOf}. Targets: `spec.targetNamespaces` (default every namespace) that
 *   exist and are Active, minus the source namespace. Desired: every source in every target.
 * - An existing copy of this rule at a desired place: in sync → unchanged; different → apply with
 *   `force` (the rule owns it); a Secret of another `type` → delete (`replace`) then apply.
 * - No copy of this rule there: apply without `force` — unless `occupant` shows an object there
 *   that is another rule's copy or no rule's (a conflict: never overwritten), or this rule's copy
 *   the copy list has not caught up with (treated as existing).
 * - Existing copies not desired → delete (`stale`), unless their namespace is missing or not
 *   Active (the namespace controller removes them) or they are already being deleted.
 */
export function planCopies(input: PlanInput): CopyPlan {
  const { rule } = input;
  const ruleName = rule.metadata.name ?? '';
  const spec = rule.spec;
  const active = new Set(input.namespaces.filter(isActive).map((n) => n.metadata.name ?? ''));
  const sources = input.candidates
    .filter((o) => isSourceOf(rule, o))
    .sort((a, b) => byPlace(placeOf(a), placeOf(b)));
  const wanted = spec?.targetNamespaces ?? [...active];
  const targets = [...new Set(wanted)].filter((ns) => active.has(ns) && ns !== spec?.sourceNamespace).sort();

  const desired: CopyObject[] = [];
  for (const ns of targets) for (const source of sources) desired.push(copyOf(source, ruleName, ns));

  const existingAt = new Map<string, CopyObject>();
  for (const e of input.existing) {
    if (e.metadata.labels?.[RULE_LABEL] !== ruleName) continue;
    existingAt.set(`${e.kind ?? ''}:${keyOf(e)}`, e);
  }
  const apply: PlannedApply[] = [];
  const del: PlannedDelete[] = [];
  const conflicts: PlanConflict[] = [];
  let unchanged = 0;
  const wantedPlaces = new Set<string>();
  for (const copy of desired) {
    const place = `${copy.kind ?? ''}:${keyOf(copy)}`;
    wantedPlaces.add(place);
    let current = existingAt.get(place);
    if (current === undefined) {
      const occupant = input.occupant?.(
        copy.kind ?? '',
        copy.metadata.namespace ?? '',
        copy.metadata.name ?? '',
      );
      const holder = occupant?.metadata.labels?.[RULE_LABEL];
      if (occupant !== undefined && holder === ruleName) {
        current = occupant;
      } else if (occupant !== undefined) {
        conflicts.push({ ref: refOf(copy), heldBy: holder === undefined ? 'unmanaged' : `rule ${holder}` });
        continue;
      }
    }
    if (current === undefined) {
      apply.push({ copy, force: false, reason: 'missing' });
    } else if (current.metadata.deletionTimestamp !== undefined) {
      // Going away; the delete's event reruns the rule, which then re-creates it.
      continue;
    } else if (inSync(current, copy)) {
      unchanged++;
    } else {
      if (copy.kind === 'Secret' && (current.type ?? 'Opaque') !== (copy.type ?? 'Opaque')) {
        del.push({ ref: refOf(current), ...uidOf(current), reason: 'replace' });
      }
      apply.push({ copy, force: true, reason: 'changed' });
    }
  }
  const stale = [...existingAt.entries()]
    .filter(([place, e]) => {
      const ns = e.metadata.namespace ?? '';
      return !wantedPlaces.has(place) && active.has(ns) && e.metadata.deletionTimestamp === undefined;
    })
    .map(([, e]) => e)
    .sort((a, b) => byPlace(placeOf(a), placeOf(b)));
  for (const e of stale) del.push({ ref: refOf(e), ...uidOf(e), reason: 'stale' });

  return {
    sources: sources.map(keyOf),
    targets,
    desired,
    apply,
    delete: del,
    conflicts,
    unchanged,
  };
}

function uidOf(o: KubeObject): { uid?: string } {
  return o.metadata.uid !== undefined ? { uid: o.metadata.uid } : {};
}

/** The side effects a plan needs; each returns an `ObservableInput` (tests pass `cold()`). */
export interface CopyPorts {
  /** Server-side apply of a copy (field manager {@link FIELD_MANAGER}). */
  readonly apply: (copy: CopyObject, options: { readonly force: boolean }) => ObservableInput<unknown>;
  /** Delete one copy, with `uid` as precondition when given. */
  readonly delete: (ref: ObjectRef, uid: string | undefined) => ObservableInput<unknown>;
}

/** A write that failed: the copy, the verb, the API's code/reason and why — never the object. */
export interface CopyFailure {
  readonly ref: ObjectRef;
  readonly op: 'apply' | 'delete' | 'list';
  /** HTTP code when the API answered, else undefined (the error came from inside the operator). */
  readonly code?: number;
  /** `Status.reason` (`Invalid`, `Forbidden`, …) or the error's name. */
  readonly reason: string;
  /**
   * Why, in the API server's words (`Status.message`: it names fields, never Secret values — the
   * API server redacts them) or, for an error without an answer, the error's message; at most
   * {@link MAX_FAILURE_MESSAGE} characters.
   */
  readonly message?: string;
}

/** The longest {@link CopyFailure.message} kept. */
export const MAX_FAILURE_MESSAGE = 300;

/** What carrying out a plan did. */
export interface ExecutionReport {
  readonly applied: readonly ObjectRef[];
  readonly deleted: readonly ObjectRef[];
  /** The plan's conflicts plus applies the server refused with 409 (a field owned by another manager). */
  readonly conflicts: readonly PlanConflict[];
  readonly failed: readonly CopyFailure[];
}

/** Options of {@link executePlan}. */
export interface ExecuteOptions {
  /** Writes in flight at once, per phase (deletes, then applies); default 4. */
  readonly concurrency?: number;
}

type Step =
  | { readonly kind: 'applied'; readonly ref: ObjectRef }
  | { readonly kind: 'deleted'; readonly ref: ObjectRef }
  | { readonly kind: 'conflict'; readonly conflict: PlanConflict }
  | { readonly kind: 'failed'; readonly failure: CopyFailure };

function failureOf(ref: ObjectRef, op: CopyFailure['op'], error: unknown): CopyFailure {
  const e = error as {
    code?: unknown;
    reason?: unknown;
    name?: unknown;
    message?: unknown;
    status?: { message?: unknown };
  } | null;
  const said =
    typeof e?.status?.message === 'string'
      ? e.status.message
      : typeof e?.message === 'string'
        ? e.message
        : undefined;
  const message =
    said === undefined || said === ''
      ? undefined
      : said.length > MAX_FAILURE_MESSAGE
        ? `${said.slice(0, MAX_FAILURE_MESSAGE - 1)}…`
        : said;
  return {
    ref,
    op,
    ...(typeof e?.code === 'number' ? { code: e.code } : {}),
    reason: typeof e?.reason === 'string' ? e.reason : typeof e?.name === 'string' ? e.name : 'Error',
    ...(message !== undefined ? { message } : {}),
  };
}

/**
 * Carries out a plan through `ports`: every delete first (so a Secret being replaced is gone
 * before it is applied again), then every apply; emits one {@link ExecutionReport} and completes.
 * Never errors: each write's failure is a value in the report.
 *
 * ## Example
 * ```ts
 * executePlan(plan, {
 *   apply: (copy, { force }) => client.apply(copy, { fieldManager: FIELD_MANAGER, force }),
 *   delete: (ref, uid) => client.delete(ref, uid ? { preconditions: { uid } } : {}),
 * }).subscribe((report) => console.log(report.applied.length, report.failed.length));
 * ```
 *
 * ## Semantics
 * - Deletes: 404 (already gone) and 409 (the uid precondition failed: it is another object now)
 *   count as deleted. Applies: a 409 on an apply without `force` is a conflict (a field another
 *   manager owns has another value: the object is not ours), not a failure.
 * - An apply whose `replace` delete failed is not attempted (it would be refused).
 * - Concurrency: at most `concurrency` writes in flight within each phase.
 * - unsubscribe: writes in flight are unsubscribed; nothing is reported.
 */
export function executePlan(
  plan: CopyPlan,
  ports: CopyPorts,
  options: ExecuteOptions = {},
): Observable<ExecutionReport> {
  const concurrency = options.concurrency ?? 4;
  const failedDeletes = new Set<string>();
  const deletes$ = from(plan.delete).pipe(
    mergeMap(
      (d): Observable<Step> =>
        defer(() => from(ports.delete(d.ref, d.uid))).pipe(
          ignoreElements(),
          endWith<Step>({ kind: 'deleted', ref: d.ref }),
          catchError((error: unknown) => {
            if (isNotFound(error) || isConflict(error)) return of<Step>({ kind: 'deleted', ref: d.ref });
            if (d.reason === 'replace')
              failedDeletes.add(`${d.ref.kind}:${d.ref.namespace ?? ''}/${d.ref.name}`);
            return of<Step>({ kind: 'failed', failure: failureOf(d.ref, 'delete', error) });
          }),
        ),
      concurrency,
    ),
  );
  const applies$ = defer(() =>
    from(plan.apply.filter((a) => !failedDeletes.has(`${a.copy.kind ?? ''}:${keyOf(a.copy)}`))),
  ).pipe(
    mergeMap(
      (a): Observable<Step> =>
        defer(() => from(ports.apply(a.copy, { force: a.force }))).pipe(
          ignoreElements(),
          endWith<Step>({ kind: 'applied', ref: refOf(a.copy) }),
          catchError((error: unknown) =>
            of<Step>(
              !a.force && isConflict(error)
                ? { kind: 'conflict', conflict: { ref: refOf(a.copy), heldBy: 'unmanaged' } }
                : { kind: 'failed', failure: failureOf(refOf(a.copy), 'apply', error) },
            ),
          ),
        ),
      concurrency,
    ),
  );
  const sortRefs = (refs: ObjectRef[]): ObjectRef[] =>
    refs.sort((a, b) =>
      byPlace({ namespace: a.namespace ?? '', name: a.name }, { namespace: b.namespace ?? '', name: b.name }),
    );
  return concat(deletes$, applies$).pipe(
    reduce(
      (acc, step) => {
        if (step.kind === 'applied') acc.applied.push(step.ref);
        else if (step.kind === 'deleted') acc.deleted.push(step.ref);
        else if (step.kind === 'conflict') acc.conflicts.push(step.conflict);
        else acc.failed.push(step.failure);
        return acc;
      },
      {
        applied: [] as ObjectRef[],
        deleted: [] as ObjectRef[],
        conflicts: [...plan.conflicts],
        failed: [] as CopyFailure[],
      },
    ),
    map((r) => ({
      applied: sortRefs(r.applied),
      deleted: sortRefs(r.deleted),
      conflicts: r.conflicts,
      failed: r.failed,
    })),
  );
}

/** The status a rule gets (what the reconcile writes, besides `conditions[].lastTransitionTime`). */
export interface RuleStatusUpdate {
  readonly observedGeneration?: number;
  readonly sources: number;
  readonly copies: number;
  readonly ready: ConditionInput;
}

const refText = (r: ObjectRef): string => `${r.kind} ${r.namespace ?? ''}/${r.name}`;
const failureText = (f: CopyFailure): string =>
  `${f.op} ${refText(f.ref)}: ${f.code !== undefined ? `${f.code} ` : ''}${f.reason}${
    f.message !== undefined && f.message !== f.reason ? `: ${f.message}` : ''
  }`;

/**
 * Whether a failure is an RBAC denial: a 403 whose message is the authorizer's (`User "…" cannot
 * <verb> resource "…"`, as kube-apiserver's RBAC authorizer words it). Other 403s — a
 * ResourceQuota, an admission webhook, a terminating namespace — are refusals more RBAC does not
 * change.
 */
function isRbacDenial(f: CopyFailure): boolean {
  return f.code === 403 && (f.message === undefined || /\bcannot \S+ (resource|path) /.test(f.message));
}

/** What to do about `failures`, by cause: RBAC only when the authorizer said no. */
function failureAdvice(failures: readonly CopyFailure[]): string {
  const advice: string[] = [];
  if (failures.some(isRbacDenial)) {
    advice.push(
      "check the operator's RBAC (list/watch/create/patch/delete on configmaps and secrets) in the namespaces named",
    );
  }
  if (failures.some((f) => f.code === 403 && !isRbacDenial(f))) {
    advice.push(
      'the API server refused for the reason given (a quota, an admission policy or a terminating namespace), which RBAC does not change',
    );
  }
  if (failures.some((f) => f.code === undefined)) {
    advice.push('an error inside the operator, not an answer from the API server: please report it');
  }
  return advice.length > 0 ? ` — ${advice.join('; ')}` : '';
}

function listText(items: readonly string[], max = 5): string {
  return items.length <= max
    ? items.join(', ')
    : `${items.slice(0, max).join(', ')} and ${items.length - max} more`;
}

/**
 * The rule's status after a plan ran: sources and in-sync copies counted, and a `Ready`
 * condition — `True`/`Synced` when every wanted copy is in sync, `False`/`CopyConflict` when
 * other objects hold some places, `False`/`CopyFailed` when writes failed.
 *
 * ## Example
 * ```ts
 * const update = ruleStatus(rule, plan, report);
 * ctx.status((s) => { s.copies = update.copies; setCondition(s, update.ready); });
 * ```
 */
export function ruleStatus(rule: CopyratorRule, plan: CopyPlan, report: ExecutionReport): RuleStatusUpdate {
  const generation = rule.metadata.generation;
  const og = generation !== undefined ? { observedGeneration: generation } : {};
  const bad = new Set([
    ...report.conflicts.map((c) => refText(c.ref)),
    ...report.failed.filter((f) => f.op === 'apply').map((f) => refText(f.ref)),
  ]);
  const copies = plan.desired.filter((c) => !bad.has(refText(refOf(c)))).length;
  const counts = { ...og, sources: plan.sources.length, copies };
  if (report.failed.length > 0) {
    const what = report.failed.map(failureText);
    return {
      ...counts,
      ready: {
        type: 'Ready',
        status: 'False',
        reason: 'CopyFailed',
        message: `${report.failed.length} write(s) failed, retrying: ${listText(what)}`,
        ...og,
      },
    };
  }
  if (report.conflicts.length > 0) {
    const what = report.conflicts.map((c) => `${refText(c.ref)} (held by ${c.heldBy})`);
    return {
      ...counts,
      ready: {
        type: 'Ready',
        status: 'False',
        reason: 'CopyConflict',
        message: `${report.conflicts.length} copy place(s) taken by other objects, left alone: ${listText(what)}; rename or delete them`,
        ...og,
      },
    };
  }
  return {
    ...counts,
    ready: {
      type: 'Ready',
      status: 'True',
      reason: 'Synced',
      message: `${copies} cop${copies === 1 ? 'y' : 'ies'} of ${plan.sources.length} source(s) in ${plan.targets.length} namespace(s)`,
      ...og,
    },
  };
}

/**
 * The status of a rule {@link ruleProblems} refuses: `Ready=False`, reason `InvalidSpec`, the
 * problems as the message.
 *
 * ## Example
 * ```ts
 * const problems = ruleProblems(rule);
 * if (problems.length > 0) ctx.status((s) => setCondition(s, invalidRuleStatus(rule, problems).ready));
 * ```
 */
export function invalidRuleStatus(rule: CopyratorRule, problems: readonly string[]): RuleStatusUpdate {
  const generation = rule.metadata.generation;
  const og = generation !== undefined ? { observedGeneration: generation } : {};
  return {
    ...og,
    sources: 0,
    copies: 0,
    ready: { type: 'Ready', status: 'False', reason: 'InvalidSpec', message: problems.join('; '), ...og },
  };
}

/**
 * Some copy requests (writes, or the cleanup's lists) failed; the reconcile fails with this so
 * the controller retries it with backoff. Names the copies, verbs, API reasons and messages —
 * never contents — and what to do by cause: RBAC only when the authorizer refused
 * (`User "…" cannot …`); a quota, an admission policy or a terminating namespace is named as such;
 * an error without an API answer is the operator's own.
 *
 * ## Example
 * ```ts
 * if (report.failed.length > 0) throw new CopyFailedError(rule.metadata.name ?? '', report.failed);
 * ```
 */
export class CopyFailedError extends Error {
  readonly _tag = 'CopyFailedError' as const;
  override readonly name = 'CopyFailedError';
  constructor(
    readonly rule: string,
    readonly failures: readonly CopyFailure[],
  ) {
    super(
      `CopyratorRule ${rule}: ${failures.length} copy request(s) failed (${listText(
        failures.map(failureText),
      )}); retrying with backoff${failureAdvice(failures)}`,
    );
  }
}

/** What {@link syncRule} did. */
export interface SyncOutcome {
  readonly plan: CopyPlan;
  readonly report: ExecutionReport;
  readonly status: RuleStatusUpdate;
  /** `requeue(conflictRequeueMs)` while conflicts remain (the objects in the way are not watched for this rule), else `awaitChange`. */
  readonly action: Action;
}

/** Ports of {@link syncRule}: the copy writes and the rule's status write. */
export interface SyncPorts extends CopyPorts {
  /** Writes the rule's status (no request when unchanged). */
  readonly status: (update: RuleStatusUpdate) => ObservableInput<unknown>;
}

/** Options of {@link syncRule}. */
export interface SyncOptions extends ExecuteOptions {
  /** Requeue delay while conflicts remain; default 60 s. */
  readonly conflictRequeueMs?: number;
}

/**
 * One reconcile of a rule: refuse an invalid rule (status `InvalidSpec`, no writes), else plan,
 * carry out the plan, write the status; then error with {@link CopyFailedError} when a write
 * failed (so the controller backs off and retries), or emit the {@link SyncOutcome}.
 *
 * ## Example
 * ```ts
 * syncRule({ rule, candidates, namespaces, existing }, { apply, delete: del, status: (u) => ctx.status(...) })
 *   .pipe(map((o) => o.action));
 * ```
 *
 * ## Semantics
 * - The status is written after the copies (it reports what they are), also when writes failed.
 * - Emits once and completes, or errors; unsubscribe cancels the writes in flight.
 */
export function syncRule(
  input: PlanInput,
  ports: SyncPorts,
  options: SyncOptions = {},
): Observable<SyncOutcome> {
  return defer(() => {
    const problems = ruleProblems(input.rule);
    const name = input.rule.metadata.name ?? '';
    if (problems.length > 0) {
      const status = invalidRuleStatus(input.rule, problems);
      const plan = planCopies({ ...input, candidates: [], existing: [], namespaces: [] });
      const report: ExecutionReport = { applied: [], deleted: [], conflicts: [], failed: [] };
      return from(ports.status(status)).pipe(
        ignoreElements(),
        endWith<SyncOutcome>({ plan, report, status, action: Action.awaitChange() }),
      );
    }
    const plan = planCopies(input);
    return executePlan(plan, ports, options).pipe(
      mergeMap((report) => {
        const status = ruleStatus(input.rule, plan, report);
        return from(ports.status(status)).pipe(
          ignoreElements(),
          endWith(null),
          map((): SyncOutcome => {
            if (report.failed.length > 0) throw new CopyFailedError(name, report.failed);
            const action =
              report.conflicts.length > 0
                ? Action.requeue(options.conflictRequeueMs ?? 60_000)
                : Action.awaitChange();
            return { plan, report, status, action };
          }),
        );
      }),
    );
  });
}

/** Ports of {@link cleanupCopies}. */
export interface CleanupPorts {
  /** The objects of `type` (all namespaces) matching `labelSelector`; metadata is enough. */
  readonly list: (type: ResourceType, labelSelector: string) => ObservableInput<readonly KubeObject[]>;
  readonly delete: CopyPorts['delete'];
}

/**
 * Deletes every copy of rule `rule` (ConfigMaps and Secrets labelled with it, as the server lists
 * them now), each with its uid as precondition; emits how many it deleted and completes.
 * Idempotent: 404 and 409 (gone, or another object by now) count as done. Errors with
 * {@link CopyFailedError} when a list or delete failed, so the finalizer retries.
 *
 * ## Example
 * ```ts
 * finalizer: { name: FINALIZER, cleanup: (rule) => cleanupCopies(rule.metadata.name ?? '', ports) }
 * ```
 */
export function cleanupCopies(
  rule: string,
  ports: CleanupPorts,
  options: ExecuteOptions = {},
): Observable<number> {
  // A name that is no label value can have no copies (ruleProblems refused it).
  if (rule === '' || rule.length > MAX_LABEL_VALUE) return of(0);
  const selector = `${RULE_LABEL}=${rule}`;
  return from([CONFIGMAP, SECRET]).pipe(
    concatMap((type) =>
      defer(() => from(ports.list(type, selector))).pipe(
        map((items) => items.map((o) => ({ ref: { ...refOf(o), kind: type.kind }, ...uidOf(o) }))),
        catchError((error: unknown) =>
          throwError(
            () =>
              new CopyFailedError(rule, [
                failureOf({ apiVersion: 'v1', kind: type.kind, name: '*' }, 'list', error),
              ]),
          ),
        ),
      ),
    ),
    reduce((all, refs) => [...all, ...refs], [] as { ref: ObjectRef; uid?: string }[]),
    mergeMap((targets) => {
      const plan: CopyPlan = {
        sources: [],
        targets: [],
        desired: [],
        apply: [],
        delete: targets.map((t) => ({ ...t, reason: 'stale' as const })),
        conflicts: [],
        unchanged: 0,
      };
      return executePlan(plan, { apply: () => of(undefined), delete: ports.delete }, options);
    }),
    map((report) => {
      if (report.failed.length > 0) throw new CopyFailedError(rule, report.failed);
      return report.deleted.length;
    }),
  );
}

/** Store lookups {@link rulesForObject} uses; without them it maps by labels and selectors only. */
export interface RuleLookups {
  /** Whether `rule` has a copy of the source `namespace/name`. */
  readonly hasCopyOf?: (rule: string, source: string) => boolean;
  /** The object of `kind` at `namespace/name`, if any. */
  readonly object?: (kind: string, namespace: string, name: string) => CopyObject | undefined;
}

/**
 * The rules an event of a ConfigMap or Secret concerns:
 * - the rule a copy is labelled with;
 * - in a rule's source namespace: the rule when its selector matches the object, or when the
 *   rule still has a copy of it (a source whose label was removed no longer matches, and its
 *   rule must run to remove the copies);
 * - elsewhere: every rule with a source of the same name — the object is, or is in the way of,
 *   that rule's copy (when someone deletes an object that blocked a copy, the rule reruns).
 *
 * ## Example
 * ```ts
 * watches: [{ resource: SECRET, map: (o) => rulesForObject(o, rules.list(), { hasCopyOf, object }) }]
 * ```
 */
export function rulesForObject(
  object: CopyObject,
  rules: Iterable<CopyratorRule>,
  lookups: RuleLookups = {},
): RequestName[] {
  const out = new Set<string>();
  const holder = object.metadata.labels?.[RULE_LABEL];
  if (holder !== undefined) out.add(holder);
  const namespace = object.metadata.namespace ?? '';
  const objectName = object.metadata.name ?? '';
  for (const rule of rules) {
    const spec = rule.spec;
    const name = rule.metadata.name ?? '';
    if (spec === undefined || out.has(name)) continue;
    const kind = copiedType(spec).kind;
    if (object.kind !== undefined && object.kind !== kind) continue;
    if (namespace === spec.sourceNamespace) {
      if (holder !== undefined) continue; // a copy is never a source
      if (
        selectorMatches(spec.selector ?? {}, object.metadata.labels) ||
        lookups.hasCopyOf?.(name, keyOf(object))
      ) {
        out.add(name);
      }
    } else {
      const source = lookups.object?.(kind, spec.sourceNamespace, objectName);
      if (source !== undefined && isSourceOf(rule, source)) out.add(name);
    }
  }
  return [...out].map((n) => ({ name: n }));
}

/**
 * The rules a Namespace event concerns: all of them (a new namespace needs copies, one that
 * became Terminating or was deleted changes the targets).
 *
 * ## Example
 * ```ts
 * watches: [{ resource: NAMESPACE, map: () => rulesForNamespace(rules.list()) }]
 * ```
 */
export function rulesForNamespace(rules: Iterable<CopyratorRule>): RequestName[] {
  return [...rules].map((r) => ({ name: r.metadata.name ?? '' }));
}
