/**
 * Label and field selectors as kube-apiserver v1.24 parses them (`k8s.io/apimachinery/pkg/labels`
 * and `.../fields`): the same grammar, the same validation and the same error messages, so the
 * in-memory server can answer bad selectors with the real `400 BadRequest`.
 *
 * The label grammar, its checks and the matcher are `@rxkube/wire`'s (shared with the client,
 * `@rxkube/kube/selector`); this module answers its errors as {@link SelectorError}.
 *
 * Not supported on purpose: label `gt`/`lt` are parsed and evaluated (they are part of the
 * grammar), but field selectors only know `=`, `==` and `!=` like the real server.
 *
 * @module
 */
import {
  LabelSelectorSyntaxError,
  labelRequirementMatches,
  parseLabelRequirements,
  type LabelRequirement,
} from '@rxkube/wire';

import { goQuote } from './validation/names.js';

/**
 * A selector the server cannot parse. `message` is the real apiserver's `400` message, e.g.
 * `unable to parse requirement: found '(', expected: identifier`.
 *
 * ## Example
 * ```ts
 * try {
 *   parseLabelSelector('app in (a');
 * } catch (e) {
 *   if (e instanceof SelectorError) console.log(e.message); // answered as 400 BadRequest
 * }
 * ```
 */
export class SelectorError extends Error {
  readonly _tag = 'SelectorError';
  constructor(message: string) {
    super(message);
    this.name = 'SelectorError';
  }
}

/**
 * A parsed label selector (see {@link parseLabelSelector}).
 *
 * ## Example
 * ```ts
 * import { parseLabelSelector, type LabelSelector } from '@rxkube/testing/validation';
 *
 * const sel: LabelSelector = parseLabelSelector('app=web,tier!=db');
 * sel.matches({ app: 'web' }); // true
 * ```
 */
export interface LabelSelector {
  /** Whether an object with these labels is selected (`undefined` = no labels). */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** True when the selector selects everything (empty text). */
  readonly empty: boolean;
}

/**
 * A parsed field selector (see {@link parseFieldSelector}).
 *
 * ## Example
 * ```ts
 * import { parseFieldSelector, type FieldSelector } from '@rxkube/testing/validation';
 *
 * const sel: FieldSelector = parseFieldSelector('metadata.name=a', ['metadata.name', 'metadata.namespace']);
 * sel.matches({ 'metadata.name': 'a', 'metadata.namespace': 'default' }); // true
 * ```
 */
export interface FieldSelector {
  /** Whether an object with these selectable fields (`metadata.name`, ...) is selected. */
  matches(fields: Readonly<Record<string, string>>): boolean;
  /** True when the selector selects everything (empty text). */
  readonly empty: boolean;
}

/**
 * Parses a label selector exactly like `labels.Parse` of kube-apiserver v1.24.
 *
 * ## Example
 * ```ts
 * const s = parseLabelSelector('set in (s04),tier!=odd');
 * s.matches({ set: 's04', tier: 'even' }); // true
 * parseLabelSelector('set==(');            // throws SelectorError: unable to parse requirement: found '(', expected: identifier
 * ```
 *
 * ## Semantics
 * `=`/`==`/`in` need the key with one of the values; `!=`/`notin` match when the key is absent
 * or has another value; `key` / `!key` test presence; `gt`/`lt` (`>`/`<`) compare integers.
 * Keys must be qualified names, values valid label values (both as `labels.Parse` checks).
 *
 * @param text the `labelSelector` query parameter (already URL-decoded); `''` selects all.
 * @throws {SelectorError} with the apiserver's message when the text does not parse.
 */
export function parseLabelSelector(text: string): LabelSelector {
  let requirements: readonly LabelRequirement[];
  try {
    requirements = parseLabelRequirements(text);
  } catch (e) {
    if (e instanceof LabelSelectorSyntaxError) throw new SelectorError(e.message);
    throw e;
  }
  return {
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => labelRequirementMatches(r, labels)),
  };
}

/** Splits on `,` not preceded by a backslash escape (`fields.splitTerms`). */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i] ?? '';
    if (ch === '\\' && i + 1 < text.length) {
      current += ch + (text[i + 1] ?? '');
      i++;
    } else if (ch === ',') {
      terms.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  terms.push(current);
  return terms;
}

/** `fields.UnescapeValue`. */
function unescapeValue(value: string): string {
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] ?? '';
    if (ch === '\\') {
      const next = value[i + 1];
      if (next === '\\' || next === ',' || next === '=') {
        out += next;
        i++;
      } else {
        throw new SelectorError(`invalid field selector: invalid escape sequence: \\${next ?? ''}`);
      }
    } else if (ch === ',' || ch === '=') {
      throw new SelectorError(`invalid field selector: unescaped character in value: ${ch}`);
    } else {
      out += ch;
    }
  }
  return out;
}

/**
 * Parses a field selector like `fields.ParseSelector` plus the registry's field check.
 *
 * ## Example
 * ```ts
 * import { parseFieldSelector } from '@rxkube/testing/validation';
 *
 * parseFieldSelector('metadata.name=s04-p3', ['metadata.name', 'metadata.namespace'])
 *   .matches({ 'metadata.name': 's04-p3', 'metadata.namespace': 'wire' }); // true
 * parseFieldSelector('data.i=1', ['metadata.name', 'metadata.namespace']);
 * // throws SelectorError: "data.i" is not a known field selector: only "metadata.name", "metadata.namespace"
 * ```
 *
 * ## Semantics
 * Terms are `field=value`, `field==value` or `field!=value`, joined by `,` (backslash escapes
 * `\,`, `\=`, `\\` in values). A field absent from `fields` compares as `''`.
 *
 * @param text the `fieldSelector` query parameter (URL-decoded); `''` selects all.
 * @param allowedFields the fields this resource supports (`metadata.name`, `metadata.namespace`, ...).
 * @throws {SelectorError} for syntax errors and unknown fields, with the apiserver's message.
 */
export function parseFieldSelector(text: string, allowedFields: readonly string[]): FieldSelector {
  const terms = splitTerms(text).sort();
  const parsed: { field: string; value: string; negate: boolean }[] = [];
  for (const term of terms) {
    if (term === '') continue;
    let split: { field: string; op: string; rhs: string } | undefined;
    for (let i = 0; i < term.length && split === undefined; i++) {
      for (const op of ['!=', '==', '=']) {
        if (term.startsWith(op, i)) {
          split = { field: term.slice(0, i), op, rhs: term.slice(i + op.length) };
          break;
        }
      }
    }
    if (split === undefined)
      throw new SelectorError(`invalid selector: '${text}'; can't understand '${term}'`);
    parsed.push({ field: split.field, value: unescapeValue(split.rhs), negate: split.op === '!=' });
  }
  for (const p of parsed) {
    if (!allowedFields.includes(p.field)) {
      throw new SelectorError(
        `${goQuote(p.field)} is not a known field selector: only ${allowedFields.map(goQuote).join(', ')}`,
      );
    }
  }
  return {
    empty: parsed.length === 0,
    matches: (fields) => parsed.every((p) => ((fields[p.field] ?? '') === p.value) !== p.negate),
  };
}
