/**
 * The column definitions of kube-apiserver v1.24's built-in Table printers (names, types, formats,
 * descriptions, priorities), recorded from a real server into
 * `fixtures/kube-v1.24/printer-columns.json` and read once, on the first Table of a built-in kind.
 * The cells are computed by `core.ts`, `workloads.ts` and `network.ts`, which follow
 * `pkg/printers/internalversion/printers.go`.
 *
 * @module
 */
import { readFileSync } from 'node:fs';

/** One column of a Table, as sent. */
export interface TableColumn {
  readonly name: string;
  readonly type: string;
  readonly format: string;
  readonly description: string;
  readonly priority: number;
}

let recorded: Readonly<Record<string, readonly TableColumn[]>> | undefined;

/** The recorded columns of a built-in resource (`/pods`, `apps/deployments`). */
export function recordedColumns(storageKey: string): readonly TableColumn[] {
  recorded ??= JSON.parse(
    readFileSync(new URL('../../../fixtures/kube-v1.24/printer-columns.json', import.meta.url), 'utf8'),
  ) as Record<string, readonly TableColumn[]>;
  const columns = recorded[storageKey];
  if (!columns) throw new Error(`no recorded printer columns for ${storageKey}`);
  return columns;
}
