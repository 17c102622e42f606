/**
 * The error of an apply that would take fields other managers own, worded as kube-apiserver v1.24
 * words it (`fieldmanager/internal/conflict.go`: `NewConflictError`, `getConflictMessage`,
 * `printManager`).
 *
 * @module
 */
import { pathToString } from './field-set.js';
import { describeManager, parseIdentity } from './managed-fields.js';
import type { Conflict } from './updater.js';

/**
 * One conflicting field of an apply: who owns it and its path (`.data.key`).
 *
 * ## Example
 * ```ts
 * const c: ApplyConflict = { manager: 'a', managerDescription: '"a"', field: '.data.key' };
 * ```
 */
export interface ApplyConflict {
  /** The owning manager's name (`a`). */
  manager: string;
  /** How the apiserver names that manager in messages: `"a"`, `"c" using v1`, `"s" with subresource "status"`. */
  managerDescription: string;
  /** The field path as SMD prints it: `.data.key`, `.spec.containers[name="c"].image`. */
  field: string;
}

/**
 * An apply that would take fields other managers own, without `force=true`.
 *
 * `message` is the apiserver's (`Apply failed with 1 conflict: conflict with "a": .data.key`);
 * `causes` are the Status causes (`{reason: 'FieldManagerConflict', message: 'conflict with "a"',
 * field: '.data.key'}`). The server answers `409 Conflict` with both. Retry with `force=true` to
 * take ownership, or stop applying those fields.
 *
 * ## Example
 * ```ts
 * const configMap = (key: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { key } });
 * const at = { force: false, apiVersion: 'v1', now: '2026-11-22T06:23:31Z' };
 * const live = serverSideApply(undefined, configMap('from-a'), { fieldManager: 'a', ...at });
 * try {
 *   serverSideApply(live, configMap('from-b'), { fieldManager: 'b', ...at });
 * } catch (e) {
 *   if (e instanceof ApplyConflictError) console.log(e.message, e.causes); // answered as 409 Conflict
 * }
 * ```
 */
export class ApplyConflictError extends Error {
  readonly _tag = 'ApplyConflictError';
  constructor(readonly conflicts: ApplyConflict[]) {
    super(conflictMessage(conflicts));
    this.name = 'ApplyConflictError';
  }

  /** The `details.causes` of the 409 Status. */
  get causes(): { reason: string; message: string; field: string }[] {
    return this.conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with ${c.managerDescription}`,
      field: c.field,
    }));
  }
}

/** The conflicts of SMD's updater as {@link ApplyConflict}s, managers in identity order. */
export function applyConflicts(conflicts: readonly Conflict[]): ApplyConflict[] {
  const ids = [...new Set(conflicts.map((c) => c.manager))].sort();
  return ids.flatMap((id) =>
    conflicts
      .filter((c) => c.manager === id)
      .map((c) => ({
        manager: parseIdentity(id).manager,
        managerDescription: describeManager(id),
        field: pathToString(c.path),
      })),
  );
}

function conflictMessage(conflicts: readonly ApplyConflict[]): string {
  const [first] = conflicts;
  if (conflicts.length === 1 && first !== undefined) {
    return `Apply failed with 1 conflict: conflict with ${first.managerDescription}: ${first.field}`;
  }
  const byManager = new Map<string, string[]>();
  for (const c of conflicts)
    byManager.set(c.managerDescription, [...(byManager.get(c.managerDescription) ?? []), c.field]);
  const lines: string[] = [];
  for (const [manager, fields] of byManager) {
    lines.push(`conflicts with ${manager}:`);
    for (const field of fields) lines.push(`- ${field}`);
  }
  return `Apply failed with ${String(conflicts.length)} conflicts: ${lines.join('\n')}`;
}
