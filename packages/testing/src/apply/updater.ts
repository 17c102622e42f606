/**
 * structured-merge-diff's `merge.Updater` (`merge/update.go` at v4.2.1): the ownership changes of
 * an update, the merge, prune and ownership changes of an apply, and conflicts. Another manager's
 * changes are compared in the version it wrote: the version converter is the identity unless a
 * {@link VersionConverter} is given (a CRD served in several versions through a conversion
 * webhook); the strategy's reset fields are `IgnoredFields`. Internal to server-side apply.
 *
 * @module
 */
import { FieldSet, type PathElement } from './field-set.js';
import type { SmdType } from './smd-type.js';
import {
  compare,
  type Comparison,
  ensureNamedFieldsAreMembers,
  excludeFields,
  isSame,
  merge,
  reconcileWithSchema,
  removeItems,
  toFieldSet,
} from './typed.js';

/** `fieldpath.VersionedSet`: the fields one manager owns, at the apiVersion it wrote. */
export interface VersionedSet {
  readonly set: FieldSet;
  readonly apiVersion: string;
  /** True for an `Apply` entry. */
  readonly applied: boolean;
}

/** `fieldpath.ManagedFields`: sets by manager identity. */
export type ManagedSets = Map<string, VersionedSet>;

/** One conflicting path and the manager (identity) that owns it. */
export interface Conflict {
  readonly manager: string;
  readonly path: readonly PathElement[];
}

/** `merge.Conflicts`: an apply without force changed fields other managers own. */
export class Conflicts extends Error {
  constructor(readonly conflicts: readonly Conflict[]) {
    super(`${conflicts.length} conflict(s)`);
    this.name = 'Conflicts';
  }
}

/**
 * `merge.Converter` (fieldmanager's `versionConverter`): an object in another served version of
 * the same group, and that version's type. Synchronous: the embedded server converts ahead.
 */
export interface VersionConverter {
  convert(object: unknown, version: string): unknown;
  typeOf(version: string): SmdType;
}

/** A value the type cannot read (SMD's validation errors): an update then drops every entry. */
export class InvalidValue extends Error {}

/** The updater of one type. */
export class Updater {
  constructor(
    private readonly type: SmdType,
    /** The strategy's reset fields (`GetResetFields`), ignored in comparisons and owned by no one. */
    private readonly ignored: FieldSet | undefined,
    /** The type's API group: entries at an apiVersion of another group cannot be converted (dropped). */
    private readonly group: string,
    /** Other served versions (absent: one version, the identity). */
    private readonly converter?: VersionConverter,
  ) {}

  private update(
    oldObject: unknown,
    newObject: unknown,
    version: string,
    managers: ManagedSets,
    workflow: string,
    force: boolean,
  ): Comparison {
    const raw = compare(oldObject, newObject, this.type);
    if (raw.invalid === true) throw new InvalidValue('duplicate or missing list keys');
    const c = excludeFields(raw, this.ignored);
    // update.go: a manager's set is compared with the change seen in the version it wrote
    const byVersion = new Map<string, Comparison>([[version, c]]);
    const changeIn = (v: string): Comparison => {
      const known = byVersion.get(v);
      if (known !== undefined || this.converter === undefined) return known ?? c;
      const type = this.converter.typeOf(v);
      const cv = excludeFields(
        compare(this.converter.convert(oldObject, v), this.converter.convert(newObject, v), type),
        this.ignored,
      );
      byVersion.set(v, cv);
      return cv;
    };
    const conflicts = new Map<string, FieldSet>();
    for (const [manager, vs] of managers) {
      if (manager === workflow) continue;
      const cv = changeIn(vs.apiVersion);
      const conflictSet = vs.set.intersection(cv.modified.union(cv.added));
      if (!conflictSet.empty) conflicts.set(manager, conflictSet);
    }
    if (!force && conflicts.size > 0) {
      const list: Conflict[] = [];
      for (const [manager, set] of conflicts)
        for (const path of set.leafOrder()) list.push({ manager, path });
      throw new Conflicts(list);
    }
    for (const [manager, vs] of managers) {
      if (manager === workflow) continue;
      let set = vs.set;
      const conflictSet = conflicts.get(manager);
      if (conflictSet) set = set.difference(conflictSet);
      const removed = changeIn(vs.apiVersion).removed;
      if (!removed.empty) set = set.difference(removed);
      if (set !== vs.set) managers.set(manager, { ...vs, set });
    }
    for (const [manager, vs] of [...managers]) if (vs.set.empty) managers.delete(manager);
    return c;
  }

  /** `Updater.Update`: the managers after an ordinary write of `newObject` by `manager`. */
  updateManagers(
    liveObject: unknown,
    newObject: unknown,
    version: string,
    managers: ManagedSets,
    manager: string,
  ): ManagedSets {
    this.reconcile(managers);
    const c = this.update(liveObject, newObject, version, managers, manager, true);
    const own = managers.get(manager)?.set ?? new FieldSet();
    let set = own.union(c.modified).union(c.added).difference(c.removed);
    if (this.ignored) set = set.recursiveDifference(this.ignored);
    if (set.empty) managers.delete(manager);
    else managers.set(manager, { set, apiVersion: version, applied: false });
    return managers;
  }

  /**
   * `Updater.Apply`: merges `config` into `liveObject`, prunes what `manager` stopped applying,
   * and moves ownership. Returns the new object, or `undefined` when it did not change (the
   * managers may still have).
   *
   * @throws {Conflicts} when `force` is false and other managers own changed fields.
   */
  apply(
    liveObject: unknown,
    config: unknown,
    version: string,
    managers: ManagedSets,
    manager: string,
    force: boolean,
  ): unknown {
    this.reconcile(managers);
    let newObject = merge(liveObject, config, this.type);
    const lastSet = managers.get(manager);
    let set = toFieldSet(config, this.type);
    if (this.ignored) set = set.recursiveDifference(this.ignored);
    managers.set(manager, { set, apiVersion: version, applied: true });
    newObject = this.prune(newObject, managers, manager, lastSet);
    const c = this.update(liveObject, newObject, version, managers, manager, force);
    return isSame(c) ? undefined : newObject;
  }

  /**
   * `reconcileManagedFieldsWithSchemaChanges`: sets recorded while a field was granular made to
   * fit it being atomic; entries at a version the type cannot be converted to (another group's
   * apiVersion, `IsMissingVersionError`) are dropped.
   */
  private reconcile(managers: ManagedSets): void {
    for (const [manager, vs] of managers) {
      const slash = vs.apiVersion.indexOf('/');
      if ((slash < 0 ? '' : vs.apiVersion.slice(0, slash)) !== this.group) {
        managers.delete(manager);
        continue;
      }
      const reconciled = reconcileWithSchema(vs.set, this.type);
      if (reconciled) managers.set(manager, { ...vs, set: reconciled });
    }
  }

  /** Removes what `manager` applied last time, did not apply now, and no one else owns. */
  private prune(
    merged: unknown,
    managers: ManagedSets,
    manager: string,
    lastSet: VersionedSet | undefined,
  ): unknown {
    if (lastSet === undefined || lastSet.set.empty) return merged;
    const t = this.type;
    let pruned = removeItems(merged, ensureNamedFieldsAreMembers(lastSet.set, t), t);
    // addBackOwnedItems: what any manager (the applier's new config included) owns comes back
    let managed = new FieldSet();
    for (const vs of managers.values()) managed = managed.union(vs.set);
    const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(merged, t), t);
    const prunedSet = ensureNamedFieldsAreMembers(toFieldSet(pruned, t), t);
    pruned = removeItems(
      merged,
      mergedSet.difference(prunedSet.union(ensureNamedFieldsAreMembers(managed, t))),
      t,
    );
    // addBackDanglingItems: only what the applier owned last time may go
    const prunedSet2 = ensureNamedFieldsAreMembers(toFieldSet(pruned, t), t);
    const last = ensureNamedFieldsAreMembers(lastSet.set, t);
    return removeItems(merged, mergedSet.difference(prunedSet2).intersection(last), t);
  }
}
