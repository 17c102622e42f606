/**
 * The label-selector grammar of kube-apiserver (`k8s.io/apimachinery/pkg/labels`: its lexer and
 * parser, `NewRequirement`'s checks, and `metav1.LabelSelectorAsSelector` for the object form),
 * with the server's error messages, and the matcher. One parser for both sides of the wire: the
 * client (`@rxkube/kube/selector`) and the embedded API server (`@rxkube/testing`) wrap its errors
 * in their own types.
 *
 * @module
 */
import type { LabelSelector, LabelSelectorOperator, LabelSelectorRequirement } from './label-selector.js';
import { goQuote, labelValueErrors, qualifiedNameErrors } from './label-names.js';

/**
 * The operator of a parsed requirement (`selection.Operator`): the text grammar's `in`, `notin`,
 * `=`, `==`, `!=`, `exists` (`key`), `!` (`!key`), `gt` (`>`) and `lt` (`<`).
 *
 * ## Example
 * ```ts
 * import type { LabelRequirementOperator } from '@rxkube/wire';
 *
 * const op: LabelRequirementOperator = 'notin';
 * ```
 */
export type LabelRequirementOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/**
 * One requirement of a parsed label selector (`labels.Requirement`).
 *
 * ## Example
 * ```ts
 * import type { LabelRequirement } from '@rxkube/wire';
 *
 * const requirement: LabelRequirement = { key: 'tier', operator: 'in', values: ['a', 'b'] };
 * ```
 */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelRequirementOperator;
  /** Sorted and de-duplicated (Go's `sets.String`), as `String()` prints them. */
  readonly values: readonly string[];
}

/**
 * A label selector's text that kube-apiserver refuses: `message` is the server's `400` message
 * (`labels.Parse`), `position` the 0-based offset (in UTF-16 units) of the failing token. Each
 * package wraps it in its own error (`InvalidSelectorError` in `@rxkube/kube`, `SelectorError` in
 * `@rxkube/testing`).
 *
 * ## Example
 * ```ts
 * import { LabelSelectorSyntaxError, parseLabelRequirements } from '@rxkube/wire';
 *
 * try {
 *   parseLabelRequirements('app in (a,b');
 * } catch (e) {
 *   if (e instanceof LabelSelectorSyntaxError) console.log(e.position, e.message); // 11 unable to parse requirement: …
 * }
 * ```
 */
export class LabelSelectorSyntaxError extends Error {
  /** 0-based offset of the failing token. */
  readonly position: number;
  /**
   * @param message the server's message.
   * @param position where it failed.
   */
  constructor(message: string, position: number) {
    super(message);
    this.name = 'LabelSelectorSyntaxError';
    this.position = position;
  }
}

/**
 * A `metav1.LabelSelector` that kube-apiserver refuses (`LabelSelectorAsSelector`): `path` is the
 * offending field relative to the selector (`.matchExpressions[0].operator`), `value` what it held,
 * `message` the server's words.
 *
 * ## Example
 * ```ts
 * import { LabelSelectorFieldError, labelSelectorRequirements } from '@rxkube/wire';
 *
 * try {
 *   labelSelectorRequirements({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] });
 * } catch (e) {
 *   if (e instanceof LabelSelectorFieldError) console.log(e.path); // .matchExpressions[0]
 * }
 * ```
 */
export class LabelSelectorFieldError extends Error {
  /** The field, relative to the selector: `.matchLabels[app]`, `.matchExpressions[0].values`, … */
  readonly path: string;
  /** The value found there. */
  readonly value: unknown;
  /**
   * @param path the field.
   * @param value what it held.
   * @param message the server's words.
   */
  constructor(path: string, value: unknown, message: string) {
    super(message);
    this.name = 'LabelSelectorFieldError';
    this.path = path;
    this.value = value;
  }
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

/** Go's `strconv.ParseInt(text, 10, 64)`. */
function parseInt64(text: string): bigint | undefined {
  if (!INTEGER.test(text)) return undefined;
  const n = BigInt(text);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/**
 * `labels.NewRequirement`'s checks, with the server's message: `undefined` when the requirement
 * is valid.
 *
 * ## Example
 * ```ts
 * import { labelRequirementError } from '@rxkube/wire';
 *
 * labelRequirementError('app', '=', ['web']); // undefined
 * labelRequirementError('app', 'in', []); // `values: Invalid value: []string{}: for 'in', 'notin' operators, values set can't be empty`
 * ```
 */
export function labelRequirementError(
  key: string,
  operator: LabelRequirementOperator,
  values: readonly string[],
): string | undefined {
  const errs: string[] = [];
  const keyErrs = qualifiedNameErrors(key);
  if (keyErrs.length > 0) errs.push(fieldInvalid('key', key, keyErrs.join('; ')));
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        errs.push(fieldInvalid('values', values, "for 'in', 'notin' operators, values set can't be empty"));
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        errs.push(fieldInvalid('values', values, 'exact-match compatibility requires one single value'));
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        errs.push(fieldInvalid('values', values, 'values set must be empty for exists and does not exist'));
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errs.push(fieldInvalid('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      values.forEach((v, i) => {
        if (parseInt64(v) === undefined) {
          errs.push(
            fieldInvalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"),
          );
        }
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = labelValueErrors(v);
    if (valueErrs.length > 0) errs.push(fieldInvalid(`values[${i}][${key}]`, v, valueErrs.join('; ')));
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

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const item = this.lookahead(true);
      if (item.tok === Tok.Identifier || item.tok === Tok.DoesNotExist) {
        try {
          requirements.push(this.parseRequirement());
        } catch (e) {
          if (e instanceof LabelSelectorSyntaxError)
            throw new LabelSelectorSyntaxError(`unable to parse requirement: ${e.message}`, e.position);
          throw e;
        }
        const next = this.consume(true);
        if (next.tok === Tok.End) return requirements;
        if (next.tok === Tok.Comma) {
          const after = this.lookahead(true);
          if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) {
            throw new LabelSelectorSyntaxError(
              `found '${after.lit}', expected: identifier after ','`,
              after.at,
            );
          }
        } else {
          throw new LabelSelectorSyntaxError(
            `found '${next.lit}', expected: ',' or 'end of string'`,
            next.at,
          );
        }
      } else if (item.tok === Tok.End) {
        return requirements;
      } else {
        throw new LabelSelectorSyntaxError(
          `found '${item.lit}', expected: !, identifier, or 'end of string'`,
          item.at,
        );
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let operator: LabelRequirementOperator | undefined;
    let item = this.consume(true);
    if (item.tok === Tok.DoesNotExist) {
      operator = '!';
      item = this.consume(true);
    }
    if (item.tok !== Tok.Identifier)
      throw new LabelSelectorSyntaxError(`found '${item.lit}', expected: identifier`, item.at);
    const key = item.lit;
    const keyAt = item.at;
    const keyErrs = qualifiedNameErrors(key);
    if (keyErrs.length > 0)
      throw new LabelSelectorSyntaxError(fieldInvalid('<nil>', key, keyErrs.join('; ')), keyAt);
    const ahead = this.lookahead(true).tok;
    // `!key` is complete by itself: whatever follows is the caller's problem (`found '=', expected: ','…`).
    if (operator === '!' || ahead === Tok.End || ahead === Tok.Comma)
      return this.checked(key, operator ?? 'exists', [], keyAt);
    const opItem = this.consume(false);
    const binary = BINARY[opItem.tok];
    if (binary === undefined)
      throw new LabelSelectorSyntaxError(`found '${opItem.lit}', expected: ${BINARY_OPERATORS}`, opItem.at);
    const valuesAt = this.lookahead(true).at;
    const values = binary === 'in' || binary === 'notin' ? this.parseValues() : this.parseExactValue();
    return this.checked(key, binary, values, valuesAt);
  }

  private checked(
    key: string,
    operator: LabelRequirementOperator,
    values: readonly string[],
    at: number,
  ): LabelRequirement {
    const message = labelRequirementError(key, operator, values);
    if (message !== undefined) throw new LabelSelectorSyntaxError(message, at);
    return { key, operator, values };
  }

  private parseValues(): string[] {
    const open = this.consume(true);
    if (open.tok !== Tok.OpenPar)
      throw new LabelSelectorSyntaxError(`found '${open.lit}' expected: '('`, open.at);
    const item = this.lookahead(true);
    if (item.tok === Tok.Identifier || item.tok === Tok.Comma) {
      const set = this.parseIdentifiersList();
      const close = this.consume(true);
      if (close.tok !== Tok.ClosePar)
        throw new LabelSelectorSyntaxError(`found '${item.lit}', expected: ')'`, close.at);
      return set;
    }
    if (item.tok === Tok.ClosePar) {
      this.consume(true);
      return [''];
    }
    throw new LabelSelectorSyntaxError(`found '${item.lit}', expected: ',', ')' or identifier`, item.at);
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
        throw new LabelSelectorSyntaxError(`found '${next.lit}', expected: ',' or ')'`, next.at);
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
        throw new LabelSelectorSyntaxError(`found '${item.lit}', expected: ',', or identifier`, item.at);
      }
    }
  }

  private parseExactValue(): string[] {
    const ahead = this.lookahead(true).tok;
    if (ahead === Tok.End || ahead === Tok.Comma) return [''];
    const item = this.consume(true);
    if (item.tok === Tok.Identifier) return [item.lit];
    throw new LabelSelectorSyntaxError(`found '${item.lit}', expected: identifier`, item.at);
  }
}

const BINARY: Partial<Record<Tok, LabelRequirementOperator>> = {
  [Tok.In]: 'in',
  [Tok.NotIn]: 'notin',
  [Tok.Equals]: '=',
  [Tok.DoubleEquals]: '==',
  [Tok.NotEquals]: '!=',
  [Tok.GreaterThan]: 'gt',
  [Tok.LessThan]: 'lt',
};

/**
 * Parses the text form of a label selector exactly as kube-apiserver does (`labels.Parse`): what
 * it accepts, the server accepts; what it refuses, the server answers with `400` and the same
 * message.
 *
 * ## Example
 * ```ts
 * import { parseLabelRequirements } from '@rxkube/wire';
 *
 * parseLabelRequirements('app=web,tier in (b,a)');
 * // [{ key: 'app', operator: '=', values: ['web'] }, { key: 'tier', operator: 'in', values: ['a', 'b'] }]
 * parseLabelRequirements('app in (a'); // throws LabelSelectorSyntaxError
 * ```
 *
 * @param text the selector (URL-decoded); `''` has no requirement and selects everything.
 * @returns the requirements, in the order written.
 * @throws {LabelSelectorSyntaxError} with the server's message and the failing offset.
 */
export function parseLabelRequirements(text: string): LabelRequirement[] {
  return new Parser(lex(text)).parse();
}

const EXPRESSION_OPERATORS: Readonly<Record<LabelSelectorOperator, LabelRequirementOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * `metav1.LabelSelectorAsSelector`: the requirements of a `metav1.LabelSelector`
 * (`matchLabels` as `=`, then `matchExpressions`), checked as the server checks them.
 *
 * ## Example
 * ```ts
 * import { labelSelectorRequirements } from '@rxkube/wire';
 *
 * labelSelectorRequirements({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] });
 * // [{ key: 'app', operator: '=', values: ['web'] }, { key: 'tier', operator: 'exists', values: [] }]
 * ```
 *
 * @throws {LabelSelectorFieldError} naming the offending field, for a selector the server refuses
 *   or that is not of the `metav1.LabelSelector` shape.
 */
export function labelSelectorRequirements(selector: LabelSelector): LabelRequirement[] {
  const requirements: LabelRequirement[] = [];
  const fail = (path: string, value: unknown, message: string): never => {
    throw new LabelSelectorFieldError(path, value, message);
  };
  const matchLabels: unknown = selector.matchLabels ?? {};
  if (matchLabels === null || typeof matchLabels !== 'object' || Array.isArray(matchLabels)) {
    fail('.matchLabels', matchLabels, 'must be an object of label → value');
  }
  for (const [key, value] of Object.entries(matchLabels as Record<string, unknown>)) {
    if (typeof value !== 'string') fail(`.matchLabels[${key}]`, value, 'must be a string');
    const message = labelRequirementError(key, '=', [value as string]);
    if (message !== undefined) fail(`.matchLabels[${key}]`, value, message);
    requirements.push({ key, operator: '=', values: [value as string] });
  }
  const expressions: unknown = selector.matchExpressions ?? [];
  if (!Array.isArray(expressions)) fail('.matchExpressions', expressions, 'must be an array');
  (expressions as unknown[]).forEach((raw, i) => {
    const at = `.matchExpressions[${i}]`;
    const r = raw as Partial<LabelSelectorRequirement> | null;
    if (r === null || typeof r !== 'object' || typeof r.key !== 'string') {
      fail(at, raw, 'must be { key, operator, values? }');
    }
    const requirement = r as LabelSelectorRequirement;
    const operator = EXPRESSION_OPERATORS[requirement.operator];
    if (operator === undefined) {
      fail(
        `${at}.operator`,
        requirement.operator,
        `${goQuote(String(requirement.operator))} is not a valid label selector operator (In, NotIn, Exists, DoesNotExist)`,
      );
    }
    const values: unknown = requirement.values ?? [];
    if (!Array.isArray(values) || values.some((v) => typeof v !== 'string')) {
      fail(`${at}.values`, values, 'must be an array of strings');
    }
    const sorted = [...new Set(values as string[])].sort();
    const message = labelRequirementError(requirement.key, operator, sorted);
    if (message !== undefined) fail(at, raw, message);
    requirements.push({ key: requirement.key, operator, values: sorted });
  });
  return requirements;
}

// ── matching and printing ──────────────────────────────────────────────────────────────────────

/**
 * Whether labels satisfy one requirement (`Requirement.Matches`): `=`/`==`/`in` need the key with
 * one of the values; `!=`/`notin` match when the key is absent or has another value;
 * `exists`/`!` test presence; `gt`/`lt` compare 64-bit integers (a value that is not one does not
 * match).
 *
 * ## Example
 * ```ts
 * import { labelRequirementMatches } from '@rxkube/wire';
 *
 * labelRequirementMatches({ key: 'tier', operator: 'notin', values: ['db'] }, { app: 'web' }); // true
 * ```
 */
export function labelRequirementMatches(
  requirement: LabelRequirement,
  labels: Readonly<Record<string, string>> | undefined,
): boolean {
  const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, requirement.key);
  const value = has ? (labels[requirement.key] ?? '') : '';
  switch (requirement.operator) {
    case 'in':
    case '=':
    case '==':
      return has && requirement.values.includes(value);
    case 'notin':
    case '!=':
      return !has || !requirement.values.includes(value);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      const lhs = has ? parseInt64(value) : undefined;
      const rhs = parseInt64(requirement.values[0] ?? '');
      if (lhs === undefined || rhs === undefined) return false;
      return requirement.operator === 'gt' ? lhs > rhs : lhs < rhs;
    }
  }
}

function requirementText(r: LabelRequirement): string {
  switch (r.operator) {
    case 'exists':
      return r.key;
    case '!':
      return `!${r.key}`;
    case 'in':
    case 'notin':
      return `${r.key} ${r.operator} (${r.values.join(',')})`;
    case 'gt':
      return `${r.key}>${r.values[0] ?? ''}`;
    case 'lt':
      return `${r.key}<${r.values[0] ?? ''}`;
    default:
      return `${r.key}${r.operator}${r.values[0] ?? ''}`;
  }
}

/**
 * The canonical text of requirements (`labels.Selector.String()`): sorted by key, joined by `,`.
 *
 * ## Example
 * ```ts
 * import { formatLabelRequirements, parseLabelRequirements } from '@rxkube/wire';
 *
 * formatLabelRequirements(parseLabelRequirements('tier in (b,a),app')); // 'app,tier in (a,b)'
 * ```
 */
export function formatLabelRequirements(requirements: readonly LabelRequirement[]): string {
  return [...requirements]
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(requirementText)
    .join(',');
}
