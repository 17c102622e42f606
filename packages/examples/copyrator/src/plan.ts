/**
 * {@link planCopies}: desired copies vs existing copies → what to apply, what to delete, and what
 * is in the way (an object of the same name copyrator does not own). Pure.
 *
 * @module
 */
import type { KubeObject, ObjectRef } from '@rxkube/kube';

import type { CopyObject, CopyratorRule, Namespace } from './rule-types.js';
import { RULE_LABEL, SOURCE_ANNOTATION } from './rule-types.js';
import { copyOf, isSourceOf, keyOf, refOf, uidOf } from './rule.js';

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
  /** Whether `spec.sourceNamespace` exists and is Active. */
  readonly sourceNamespaceFound?: boolean;
  /** Names of `spec.targetNamespaces` that do not exist or are not Active, sorted. */
  readonly targetsNotFound?: readonly string[];
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

export const byPlace = (
  a: { namespace: string; name: string },
  b: { namespace: string; name: string },
): number =>
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
    sourceNamespaceFound: spec?.sourceNamespace !== undefined && active.has(spec.sourceNamespace),
    targetsNotFound: [...new Set(spec?.targetNamespaces ?? [])].filter((ns) => !active.has(ns)).sort(),
    sources: sources.map(keyOf),
    targets,
    desired,
    apply,
    delete: del,
    conflicts,
    unchanged,
  };
}
