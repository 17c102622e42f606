/**
 * Field selectors with the grammar and messages of kube-apiserver (`k8s.io/apimachinery/pkg/fields`
 * `ParseSelector`): terms `field=value`, `field==value`, `field!=value` joined by `,`, with `\,`,
 * `\=` and `\\` escapes in values.
 *
 * What it does not do: know which fields a resource supports — the server refuses an unknown one
 * (`"spec.x" is not a known field selector`) with a 400, which the watcher reports as a
 * configuration failure rather than retrying it as transient.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

import { InvalidSelectorError } from './invalid-selector-error.js';

/**
 * One term of a parsed field selector.
 *
 * ## Example
 * ```ts
 * const term: FieldSelectorTerm = { field: 'metadata.name', operator: '=', value: 'web' };
 * ```
 */
export interface FieldSelectorTerm {
  readonly field: string;
  readonly operator: '=' | '==' | '!=';
  readonly value: string;
}

/**
 * A parsed field selector.
 *
 * ## Example
 * ```ts
 * const parsed: ParsedFieldSelector = parseFieldSelector('metadata.name=web,status.phase!=Failed');
 * parsed.matches({ 'metadata.name': 'web', 'status.phase': 'Running' }); // true
 * ```
 */
export interface ParsedFieldSelector {
  /** The terms, sorted as the server sorts them. */
  readonly terms: readonly FieldSelectorTerm[];
  /** Whether an object with these field values is selected (a missing field compares as `''`). */
  readonly matches: (fields: Readonly<Record<string, string>>) => boolean;
  readonly empty: boolean;
}

const OPERATORS = ['!=', '==', '='] as const;

/**
 * Parses a field selector as kube-apiserver does (`fields.ParseSelector`).
 *
 * ## Example
 * ```ts
 * parseFieldSelector('metadata.name=web').matches({ 'metadata.name': 'web' }); // true
 * parseFieldSelector('metadata.name'); // throws InvalidSelectorError at position 0
 * ```
 *
 * @param text the selector; `''` selects everything.
 * @param operator, argument who is asking and for which option, for the error message.
 * @throws {InvalidSelectorError} with the offset of the failing term and the server's message.
 */
export function parseFieldSelector(
  text: string,
  operator = 'parseFieldSelector',
  argument = 'selector',
): ParsedFieldSelector {
  if (typeof text !== 'string') {
    throw new InvalidArgumentError(operator, argument, text, 'must be a field selector string');
  }
  const fail = (at: number, reason: string): never => {
    throw new InvalidSelectorError(operator, argument, 'field', text, at, reason);
  };
  const raw: { term: string; at: number }[] = [];
  // fields.splitTerms: split on ',' not escaped by '\'
  let start = 0;
  for (let i = 0; i <= text.length; i++) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length) i++;
    else if (ch === ',' || i === text.length) {
      raw.push({ term: text.slice(start, i), at: start });
      start = i + 1;
    }
  }
  if (text === '') raw.length = 0;
  const terms: FieldSelectorTerm[] = [];
  // the server sorts the terms before parsing; report the first failure in that order
  for (const { term, at } of [...raw].sort((a, b) => (a.term < b.term ? -1 : a.term > b.term ? 1 : 0))) {
    if (term === '') continue;
    let split: { field: string; op: FieldSelectorTerm['operator']; rhs: string; rhsAt: number } | undefined;
    for (let i = 0; i < term.length && split === undefined; i++) {
      const op = OPERATORS.find((o) => term.startsWith(o, i));
      if (op !== undefined)
        split = { field: term.slice(0, i), op, rhs: term.slice(i + op.length), rhsAt: at + i + op.length };
    }
    if (split === undefined) return fail(at, `invalid selector: '${text}'; can't understand '${term}'`);
    terms.push({ field: split.field, operator: split.op, value: unescape(split.rhs, split.rhsAt, fail) });
  }
  return {
    terms,
    empty: terms.length === 0,
    matches: (fields) => terms.every((t) => ((fields[t.field] ?? '') === t.value) !== (t.operator === '!=')),
  };
}

/** `fields.UnescapeValue`. */
function unescape(value: string, at: number, fail: (at: number, reason: string) => never): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] ?? '';
    if (ch === '\\') {
      const next = value[i + 1];
      if (next === '\\' || next === ',' || next === '=') {
        out += next;
        i++;
      } else {
        fail(at + i, `invalid field selector: invalid escape sequence: \\${next ?? ''}`);
      }
    } else if (ch === ',' || ch === '=') {
      fail(at + i, `invalid field selector: unescaped character in value: ${ch}`);
    } else {
      out += ch;
    }
  }
  return out;
}
