/**
 * Plain-text tables for the demo's summary: columns padded to their widest cell.
 *
 * @module
 */

/**
 * Lays out rows (the first is the header) as aligned lines.
 *
 * ## Example
 * ```ts
 * table([['name', 'ready'], ['hello', 'True']]);
 * // ['name   ready', 'hello  True']
 * ```
 */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((row) =>
    row
      .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}
