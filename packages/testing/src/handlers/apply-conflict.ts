/**
 * The 409 of a server-side apply conflict, formatted like the real one
 * (apimachinery/pkg/util/managedfields: `NewConflictError`).
 *
 * @module
 */
import { failure } from '../status.js';

/** 409 for server-side apply conflicts, message formatted like the real one. */
export function applyConflict(
  conflicts: readonly { manager: string; field: string }[],
): ReturnType<typeof failure> {
  const n = conflicts.length;
  const byManager = new Map<string, string[]>();
  for (const c of conflicts) byManager.set(c.manager, [...(byManager.get(c.manager) ?? []), c.field]);
  let body: string;
  if (n === 1) {
    const c = conflicts[0];
    body = `conflict with "${c?.manager ?? ''}": ${c?.field ?? ''}`;
  } else {
    body = [...byManager.entries()]
      .map(([m, fs]) =>
        fs.length === 1
          ? `conflict with "${m}": ${fs[0] ?? ''}`
          : `conflicts with "${m}":\n${fs.map((f) => `- ${f}`).join('\n')}`,
      )
      .join('\n');
  }
  return failure(409, 'Conflict', `Apply failed with ${String(n)} conflict${n === 1 ? '' : 's'}: ${body}`, {
    causes: conflicts.map((c) => ({
      reason: 'FieldManagerConflict',
      message: `conflict with "${c.manager}"`,
      field: c.field,
    })),
  });
}
