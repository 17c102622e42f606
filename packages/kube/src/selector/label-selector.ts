/**
 * Label selectors with the grammar, validation and error messages of kube-apiserver
 * (`k8s.io/apimachinery/pkg/labels`: its lexer and parser, `NewRequirement`'s checks, and
 * `metav1.LabelSelectorAsSelector` for the object form). One parser and one matcher for everything
 * in rxkube that selects by label: watch registration, the cache (`ctx.cache.list`), `applyChildren`,
 * and users' own filters through {@link labelMatcher}.
 *
 * The grammar, the checks and the matcher are `@rxkube/wire`'s (shared with the embedded API
 * server); this module gives them the client's forms and errors ({@link InvalidSelectorError},
 * `InvalidArgumentError` naming the option).
 *
 * What it does not do: talk to a server. A selector that parses here is one the server accepts.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import {
  formatLabelRequirements,
  LabelSelectorFieldError,
  LabelSelectorSyntaxError,
  labelRequirementMatches,
  labelSelectorRequirements,
  parseLabelRequirements,
} from '@rxkube/wire';
import type { LabelRequirement, LabelSelector } from '@rxkube/wire';

import { InvalidSelectorError } from './invalid-selector-error.js';
import { parseFieldSelector } from './field-selector.js';

// The object form's types are @rxkube/wire's.
export type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement } from '@rxkube/wire';

/**
 * A label selector in any form users hold one: the text form (`app=web,tier in (a,b)`), a
 * `metav1.LabelSelector` (`{ matchLabels, matchExpressions }`), or plain `matchLabels`
 * (`{ app: 'web' }`). An object whose only keys are `matchLabels`/`matchExpressions` with object
 * or array values is a `LabelSelector`; any other object is `matchLabels`.
 *
 * ## Example
 * ```ts
 * labelMatcher('app=web,tier in (a,b)'); // the text form
 * labelMatcher({ app: 'web' }); // matchLabels
 * labelMatcher({ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }); // metav1.LabelSelector
 * ```
 */
export type LabelSelectorInput = string | LabelSelector | Readonly<Record<string, string>>;

/**
 * A parsed label selector: a predicate over labels, and its canonical text.
 *
 * ## Example
 * ```ts
 * const parsed: ParsedLabelSelector = parseLabelSelector('tier in (b,a),app');
 * parsed.toString(); // 'app,tier in (a,b)'
 * parsed.matches({ app: 'x', tier: 'a' }); // true
 * ```
 */
export interface ParsedLabelSelector {
  /** Whether an object with these labels is selected (`undefined`: no labels). */
  readonly matches: (labels: Readonly<Record<string, string>> | undefined) => boolean;
  /** True when it selects everything (no requirement). */
  readonly empty: boolean;
  /** The canonical text (`labels.Selector.String()`): requirements sorted by key. */
  toString(): string;
}

function compile(requirements: readonly LabelRequirement[]): ParsedLabelSelector {
  const text = formatLabelRequirements(requirements);
  return {
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => labelRequirementMatches(r, labels)),
    toString: () => text,
  };
}

// ── entry points ───────────────────────────────────────────────────────────────────────────────

/**
 * Parses the text form of a label selector exactly as kube-apiserver does (`labels.Parse`): what
 * it accepts, the server accepts; what it refuses, the server answers with `400` and the same
 * message (`reason`).
 *
 * ## Example
 * ```ts
 * const selector = parseLabelSelector('app=web,tier notin (db)');
 * selector.matches({ app: 'web', tier: 'cache' }); // true
 * parseLabelSelector('app in (a,b'); // throws InvalidSelectorError at position 11
 * ```
 *
 * ## Semantics
 * `=`/`==`/`in` need the key with one of the values; `!=`/`notin` match when the key is absent or
 * has another value; `key`/`!key` test presence; `>`/`<` compare integers. Keys must be
 * qualified names (`[prefix/]name`) and values valid label values, as the server checks.
 *
 * @param text the selector; `''` selects everything.
 * @param operator, argument who is asking and for which option, for the error message.
 * @throws {InvalidSelectorError} with the offset of the failing token and the server's message.
 */
export function parseLabelSelector(
  text: string,
  operator = 'parseLabelSelector',
  argument = 'selector',
): ParsedLabelSelector {
  if (typeof text !== 'string') {
    throw new InvalidArgumentError(operator, argument, text, 'must be a label selector string');
  }
  try {
    return compile(parseLabelRequirements(text));
  } catch (e) {
    if (e instanceof LabelSelectorSyntaxError) {
      throw new InvalidSelectorError(operator, argument, 'label', text, e.position, e.message);
    }
    throw e;
  }
}

/** True for a `metav1.LabelSelector` rather than `matchLabels`. */
function isLabelSelectorObject(value: object): value is LabelSelector {
  const entries = Object.entries(value);
  return (
    entries.length > 0 &&
    entries.every(
      ([k, v]) =>
        (k === 'matchLabels' || k === 'matchExpressions') &&
        (v === undefined || v === null || typeof v === 'object'),
    )
  );
}

/** `metav1.LabelSelectorAsSelector`, with the server's messages and the offending path. */
function fromObject(selector: LabelSelector, operator: string, argument: string): LabelRequirement[] {
  try {
    return labelSelectorRequirements(selector);
  } catch (e) {
    if (e instanceof LabelSelectorFieldError) {
      throw new InvalidArgumentError(operator, `${argument}${e.path}`, e.value, `is not valid: ${e.message}`);
    }
    throw e;
  }
}

/**
 * Parses a label selector in any {@link LabelSelectorInput} form.
 *
 * ## Example
 * ```ts
 * toLabelSelector({ matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }] }).toString(); // 'tier in (a,b)'
 * ```
 *
 * @throws {InvalidSelectorError} for text that does not parse; {@link InvalidArgumentError} for an
 *   object form the server would refuse, naming the field.
 */
export function toLabelSelector(
  selector: LabelSelectorInput,
  operator = 'toLabelSelector',
  argument = 'selector',
): ParsedLabelSelector {
  if (typeof selector === 'string') return parseLabelSelector(selector, operator, argument);
  if (selector === null || typeof selector !== 'object' || Array.isArray(selector)) {
    throw new InvalidArgumentError(
      operator,
      argument,
      selector,
      "must be a selector string ('app=web'), { matchLabels, matchExpressions } or { label: value }",
    );
  }
  if (isLabelSelectorObject(selector)) return compile(fromObject(selector, operator, argument));
  return compile(fromObject({ matchLabels: selector }, operator, argument));
}

/**
 * Compiles a label selector — text, `metav1.LabelSelector` or `matchLabels` — into a predicate over
 * labels, with the server's semantics.
 *
 * ## Example
 * ```ts
 * const matches = labelMatcher('app=web,tier notin (db)');
 * matches({ app: 'web', tier: 'cache' }); // true
 * labelMatcher({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] })({ app: 'web' }); // false
 * ```
 *
 * @throws {InvalidSelectorError} for text that does not parse (with the position);
 *   {@link InvalidArgumentError} for an invalid object form, naming the field.
 */
export function labelMatcher(
  selector: LabelSelectorInput,
): (labels: Readonly<Record<string, string>> | undefined) => boolean {
  return toLabelSelector(selector, 'labelMatcher', 'selector').matches;
}

/**
 * The text form of a label selector (`labels.Selector.String()`), for a `labelSelector` query
 * parameter or a watch target: `{ matchLabels: { app: 'web' } }` → `'app=web'`.
 *
 * ## Example
 * ```ts
 * declare const rule: { spec: { selector: LabelSelectorInput } };
 * registry.watch({ resource: podType, labelSelector: formatLabelSelector(rule.spec.selector) });
 * ```
 *
 * @throws as {@link toLabelSelector}.
 */
export function formatLabelSelector(selector: LabelSelectorInput): string {
  return toLabelSelector(selector, 'formatLabelSelector', 'selector').toString();
}

/**
 * Registration-time check of a `labelSelector` / `fieldSelector` option pair: undefined, or text
 * the server will accept. Not exported from the package.
 *
 * @throws {InvalidSelectorError} naming `operator` and `${prefix}labelSelector` (or field).
 */
export function assertSelectors(
  operator: string,
  prefix: string,
  options: { readonly labelSelector?: unknown; readonly fieldSelector?: unknown },
): void {
  if (options.labelSelector !== undefined) {
    parseLabelSelector(options.labelSelector as string, operator, `${prefix}labelSelector`);
  }
  if (options.fieldSelector !== undefined) {
    parseFieldSelector(options.fieldSelector as string, operator, `${prefix}fieldSelector`);
  }
}
