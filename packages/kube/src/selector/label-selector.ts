/**
 * Label selectors with the grammar, validation and error messages of kube-apiserver
 * (`k8s.io/apimachinery/pkg/labels`: its lexer and parser, `NewRequirement`'s checks, and
 * `metav1.LabelSelectorAsSelector` for the object form). One parser and one matcher for everything
 * in rxkube that selects by label: watch registration, the cache (`ctx.cache.list`), `applyChildren`,
 * and users' own filters through {@link labelMatcher}.
 *
 * What it does not do: talk to a server. A selector that parses here is one the server accepts.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement } from '@rxkube/wire';

import { InvalidSelectorError } from './invalid-selector-error.js';
import { parseFieldSelector } from './field-selector.js';
import { goQuote, labelValueErrors, qualifiedNameErrors } from './names.js';

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

/** The operators of the text grammar (`selection.Operator`). */
type Operator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

interface Requirement {
  readonly key: string;
  readonly op: Operator;
  /** Sorted and de-duplicated (Go's `sets.String`), as `String()` prints them. */
  readonly values: readonly string[];
}

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

// ── lexer (labels.Lexer) ───────────────────────────────────────────────────────────────────────

const enum Tok {
  Error = 0,
  End,
  ClosePar,
  Comma,
  DoesNotExist,
  DoubleEquals,
  Equals,
  GreaterThan,
  Identifier,
  In,
  LessThan,
  NotEquals,
  NotIn,
  OpenPar,
}

interface Item {
  readonly tok: Tok;
  readonly lit: string;
  /** Offset of the token's first character. */
  readonly at: number;
}

const KEYWORDS: Readonly<Record<string, Tok>> = {
  ')': Tok.ClosePar,
  ',': Tok.Comma,
  '!': Tok.DoesNotExist,
  '==': Tok.DoubleEquals,
  '=': Tok.Equals,
  '>': Tok.GreaterThan,
  in: Tok.In,
  '<': Tok.LessThan,
  '!=': Tok.NotEquals,
  notin: Tok.NotIn,
  '(': Tok.OpenPar,
};

const isWhitespace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecial = (ch: string): boolean => ch.length === 1 && '=!(),><'.includes(ch);

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos] ?? '')) pos++;
    const at = pos;
    if (pos >= s.length) {
      items.push({ tok: Tok.End, lit: '', at });
      return items;
    }
    if (isSpecial(s[pos] ?? '')) {
      // the longest run of special characters that is a keyword (`!=` before `!`)
      let buffer = '';
      let last: Item | undefined;
      while (pos < s.length && isSpecial(s[pos] ?? '')) {
        buffer += s[pos];
        const tok = KEYWORDS[buffer];
        if (tok !== undefined) last = { tok, lit: buffer, at };
        else if (last !== undefined) break;
        pos++;
      }
      if (last !== undefined) pos = at + last.lit.length;
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buffer}'`, at });
    } else {
      let buffer = '';
      while (pos < s.length && !isSpecial(s[pos] ?? '') && !isWhitespace(s[pos] ?? '')) buffer += s[pos++];
      items.push({ tok: KEYWORDS[buffer] ?? Tok.Identifier, lit: buffer, at });
    }
  }
}

// ── parser (labels.Parser) ─────────────────────────────────────────────────────────────────────

/** A parse failure: the server's message and the offset it is about. */
class ParseFailure extends Error {
  constructor(
    message: string,
    readonly at: number,
  ) {
    super(message);
  }
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

function fieldInvalid(path: string, value: string | readonly string[], detail: string): string {
  const shown = typeof value === 'string' ? goQuote(value) : `[]string{${value.map(goQuote).join(', ')}}`;
  return `${path}: Invalid value: ${shown}: ${detail}`;
}

/** `errors.NewAggregate(errs).Error()`. */
function aggregate(messages: readonly string[]): string | undefined {
  const unique = [...new Set(messages)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

const INTEGER = /^[+-]?\d+$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

function parseInt64(text: string): bigint | undefined {
  if (!INTEGER.test(text)) return undefined;
  const n = BigInt(text);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/** `labels.NewRequirement`'s checks: the error text, or `undefined`. */
function requirementErrors(
  key: string,
  op: Operator,
  values: readonly string[],
  paths: { key: string; values: string } = { key: 'key', values: 'values' },
): string | undefined {
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) errs.push(fieldInvalid(paths.key, key, keyErrs.join('; ')));
  switch (op) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        errs.push(
          fieldInvalid(paths.values, values, "for 'in', 'notin' operators, values set can't be empty"),
        );
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        errs.push(fieldInvalid(paths.values, values, 'exact-match compatibility requires one single value'));
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        errs.push(
          fieldInvalid(paths.values, values, 'values set must be empty for exists and does not exist'),
        );
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errs.push(
          fieldInvalid(paths.values, values, "for 'Gt', 'Lt' operators, exactly one value is required"),
        );
      }
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(
            fieldInvalid(
              `${paths.values}[${i}]`,
              v,
              "for 'Gt', 'Lt' operators, the value must be an integer",
            ),
          );
        }
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0)
      errs.push(fieldInvalid(`${paths.values}[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  return aggregate(errs);
}

class Parser {
  private position = 0;
  constructor(private readonly items: readonly Item[]) {}

  /** In the values context `in` and `notin` are identifiers. */
  private lookahead(values: boolean): Item {
    const item = this.items[this.position] ??
      this.items[this.items.length - 1] ?? { tok: Tok.End, lit: '', at: 0 };
    return values && (item.tok === Tok.In || item.tok === Tok.NotIn)
      ? { ...item, tok: Tok.Identifier }
      : item;
  }

  private consume(values: boolean): Item {
    const item = this.lookahead(values);
    this.position++;
    return item;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const item = this.lookahead(true);
      if (item.tok === Tok.Identifier || item.tok === Tok.DoesNotExist) {
        try {
          requirements.push(this.parseRequirement());
        } catch (e) {
          if (e instanceof ParseFailure)
            throw new ParseFailure(`unable to parse requirement: ${e.message}`, e.at);
          throw e;
        }
        const next = this.consume(true);
        if (next.tok === Tok.End) return requirements;
        if (next.tok === Tok.Comma) {
          const after = this.lookahead(true);
          if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) {
            throw new ParseFailure(`found '${after.lit}', expected: identifier after ','`, after.at);
          }
        } else {
          throw new ParseFailure(`found '${next.lit}', expected: ',' or 'end of string'`, next.at);
        }
      } else if (item.tok === Tok.End) {
        return requirements;
      } else {
        throw new ParseFailure(`found '${item.lit}', expected: !, identifier, or 'end of string'`, item.at);
      }
    }
  }

  private parseRequirement(): Requirement {
    let op: Operator | undefined;
    let item = this.consume(true);
    if (item.tok === Tok.DoesNotExist) {
      op = '!';
      item = this.consume(true);
    }
    if (item.tok !== Tok.Identifier)
      throw new ParseFailure(`found '${item.lit}', expected: identifier`, item.at);
    const key = item.lit;
    const keyAt = item.at;
    const keyErrs = qualifiedNameErrors(key);
    if (keyErrs.length > 0) throw new ParseFailure(fieldInvalid('<nil>', key, keyErrs.join('; ')), keyAt);
    const ahead = this.lookahead(true).tok;
    if (op === '!' || ahead === Tok.End || ahead === Tok.Comma)
      return this.checked(key, op ?? 'exists', [], keyAt);
    const opItem = this.consume(false);
    const binary = BINARY[opItem.tok];
    if (binary === undefined)
      throw new ParseFailure(`found '${opItem.lit}', expected: ${BINARY_OPERATORS}`, opItem.at);
    const valuesAt = this.lookahead(true).at;
    const values = binary === 'in' || binary === 'notin' ? this.parseValues() : this.parseExactValue();
    return this.checked(key, binary, values, valuesAt);
  }

  private checked(key: string, op: Operator, values: readonly string[], at: number): Requirement {
    const message = requirementErrors(key, op, values);
    if (message !== undefined) throw new ParseFailure(message, at);
    return { key, op, values };
  }

  private parseValues(): string[] {
    const open = this.consume(true);
    if (open.tok !== Tok.OpenPar) throw new ParseFailure(`found '${open.lit}' expected: '('`, open.at);
    const item = this.lookahead(true);
    if (item.tok === Tok.Identifier || item.tok === Tok.Comma) {
      const set = this.parseIdentifiersList();
      const close = this.consume(true);
      if (close.tok !== Tok.ClosePar) throw new ParseFailure(`found '${item.lit}', expected: ')'`, close.at);
      return set;
    }
    if (item.tok === Tok.ClosePar) {
      this.consume(true);
      return [''];
    }
    throw new ParseFailure(`found '${item.lit}', expected: ',', ')' or identifier`, item.at);
  }

  /** Sorted, de-duplicated (Go's `sets.String.List()`). */
  private parseIdentifiersList(): string[] {
    const set = new Set<string>();
    const done = (): string[] => [...set].sort();
    for (;;) {
      const item = this.consume(true);
      if (item.tok === Tok.Identifier) {
        set.add(item.lit);
        const next = this.lookahead(true);
        if (next.tok === Tok.Comma) continue;
        if (next.tok === Tok.ClosePar) return done();
        throw new ParseFailure(`found '${next.lit}', expected: ',' or ')'`, next.at);
      } else if (item.tok === Tok.Comma) {
        if (set.size === 0) set.add('');
        const next = this.lookahead(true).tok;
        if (next === Tok.ClosePar) {
          set.add('');
          return done();
        }
        if (next === Tok.Comma) {
          this.consume(true);
          set.add('');
        }
      } else {
        throw new ParseFailure(`found '${item.lit}', expected: ',', or identifier`, item.at);
      }
    }
  }

  private parseExactValue(): string[] {
    const ahead = this.lookahead(true).tok;
    if (ahead === Tok.End || ahead === Tok.Comma) return [''];
    const item = this.consume(true);
    if (item.tok === Tok.Identifier) return [item.lit];
    throw new ParseFailure(`found '${item.lit}', expected: identifier`, item.at);
  }
}

const BINARY: Partial<Record<Tok, Operator>> = {
  [Tok.In]: 'in',
  [Tok.NotIn]: 'notin',
  [Tok.Equals]: '=',
  [Tok.DoubleEquals]: '==',
  [Tok.NotEquals]: '!=',
  [Tok.GreaterThan]: 'gt',
  [Tok.LessThan]: 'lt',
};

// ── matching and printing ──────────────────────────────────────────────────────────────────────

function matchRequirement(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? (labels[r.key] ?? '') : '';
  switch (r.op) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value);
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const lhs = has ? parseInt64(value) : undefined;
      const rhs = parseInt64(r.values[0] ?? '');
      if (lhs === undefined || rhs === undefined) return false;
      return r.op === 'gt' ? lhs > rhs : lhs < rhs;
    }
  }
}

function requirementText(r: Requirement): string {
  switch (r.op) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.op} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0] ?? ''}`;
    case 'lt':
      return `${r.key}<${r.values[0] ?? ''}`;
    default:
      return `${r.key}${r.op}${r.values[0] ?? ''}`;
  }
}

function compile(requirements: readonly Requirement[]): ParsedLabelSelector {
  const sorted = [...requirements].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const text = sorted.map(requirementText).join(',');
  return {
    empty: sorted.length === 0,
    matches: (labels) => sorted.every((r) => matchRequirement(r, labels ?? {})),
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
    return compile(new Parser(lex(text)).parse());
  } catch (e) {
    if (e instanceof ParseFailure) {
      throw new InvalidSelectorError(operator, argument, 'label', text, e.at, e.message);
    }
    throw e;
  }
}

const EXPRESSION_OPS: Readonly<Record<LabelSelectorOperator, Operator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

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
function fromObject(selector: LabelSelector, operator: string, argument: string): Requirement[] {
  const requirements: Requirement[] = [];
  const fail = (path: string, value: unknown, message: string): never => {
    throw new InvalidArgumentError(operator, `${argument}${path}`, value, `is not valid: ${message}`);
  };
  const matchLabels: unknown = selector.matchLabels ?? {};
  if (matchLabels === null || typeof matchLabels !== 'object' || Array.isArray(matchLabels)) {
    fail('.matchLabels', matchLabels, 'must be an object of label → value');
  }
  for (const [key, value] of Object.entries(matchLabels as Record<string, unknown>)) {
    if (typeof value !== 'string') fail(`.matchLabels[${key}]`, value, 'must be a string');
    const message = requirementErrors(key, '=', [value as string]);
    if (message !== undefined) fail(`.matchLabels[${key}]`, value, message);
    requirements.push({ key, op: '=', values: [value as string] });
  }
  const expressions: unknown = selector.matchExpressions ?? [];
  if (!Array.isArray(expressions)) fail('.matchExpressions', expressions, 'must be an array');
  (expressions as unknown[]).forEach((raw, i) => {
    const at = `.matchExpressions[${i}]`;
    const r = raw as Partial<LabelSelectorRequirement> | null;
    if (r === null || typeof r !== 'object' || typeof r.key !== 'string') {
      fail(at, raw, 'must be { key, operator, values? }');
    }
    const req = r as LabelSelectorRequirement;
    const op = EXPRESSION_OPS[req.operator];
    if (op === undefined) {
      fail(
        `${at}.operator`,
        req.operator,
        `${goQuote(String(req.operator))} is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`,
      );
    }
    const values: unknown = req.values ?? [];
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      fail(`${at}.values`, values, 'must be an array of strings');
    }
    const sorted = [...new Set(values as string[])].sort();
    const message = requirementErrors(req.key, op, sorted);
    if (message !== undefined) fail(at, raw, message);
    requirements.push({ key: req.key, op: op, values: sorted });
  });
  return requirements;
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
