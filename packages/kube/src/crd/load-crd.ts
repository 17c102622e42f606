/**
 * Turns the input of `ensureCrd` — YAML/JSON text, a file path or URL, or an object — into one
 * plain JSON object. Never exported from the package.
 *
 * @module
 */
import { readFile } from 'node:fs/promises';

import { InvalidArgumentError } from '@rxkube/core';

import { yamlModule } from '../internal/lazy-modules.js';

/** What `ensureCrd` accepts. */
export type CrdInput = string | URL | object;

/**
 * A string holding a newline or starting with `{` is YAML/JSON text; any other string, and a URL,
 * is a file to read.
 */
export async function loadCrd(input: CrdInput, op: string): Promise<Record<string, unknown>> {
  if (input instanceof URL || (typeof input === 'string' && isPath(input))) {
    let text: string;
    try {
      text = await readFile(input, 'utf8');
    } catch (e) {
      throw new InvalidArgumentError(
        op,
        'crd',
        String(input),
        `must be YAML text, an object or a readable file (reading it failed: ${(e as Error).message})`,
      );
    }
    return parseCrdText(text, op, String(input));
  }
  if (typeof input === 'string') return parseCrdText(input, op, 'the YAML text');
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new InvalidArgumentError(op, 'crd', input, 'must be YAML text, a file path or a CRD object');
  }
  return structuredClone(input) as Record<string, unknown>;
}

function isPath(s: string): boolean {
  const t = s.trim();
  return t !== '' && !t.includes('\n') && !t.startsWith('{');
}

/** Parses text with exactly one non-empty YAML document that is a mapping. */
export function parseCrdText(text: string, op: string, origin: string): Record<string, unknown> {
  // `yaml` (72 CommonJS files) loads here, on the first CRD given as text, not at import
  const docs = yamlModule().parseAllDocuments(text);
  if (!Array.isArray(docs)) {
    // an empty stream parses to an EmptyStream
    throw new InvalidArgumentError(op, 'crd', origin, 'must hold one YAML document; it is empty');
  }
  const nonEmpty = docs.filter((d) => d.contents !== null);
  for (const d of nonEmpty) {
    const err = d.errors[0];
    if (err) {
      const pos = err.linePos?.[0];
      throw new InvalidArgumentError(
        op,
        'crd',
        origin,
        `must be valid YAML: ${err.message.split('\n')[0] ?? err.code}${pos ? ` (line ${String(pos.line)}, column ${String(pos.col)})` : ''}`,
      );
    }
  }
  if (nonEmpty.length !== 1) {
    throw new InvalidArgumentError(
      op,
      'crd',
      origin,
      `must hold exactly one YAML document (one CustomResourceDefinition); it has ${String(nonEmpty.length)} — call ensureCrd once per CRD`,
    );
  }
  const value: unknown = nonEmpty[0]?.toJS();
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new InvalidArgumentError(op, 'crd', origin, 'must be a YAML mapping (a CustomResourceDefinition)');
  }
  return value as Record<string, unknown>;
}
