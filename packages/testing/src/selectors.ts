/**
 * Label and field selectors as kube-apiserver v1.24 parses them (`k8s.io/apimachinery/pkg/labels`
 * and `.../fields`): the same grammar, the same validation and the same error messages, so the
 * in-memory server can answer bad selectors with the real `400 BadRequest`.
 *
 * Not supported on purpose: label `gt`/`lt` are parsed and evaluated (they are part of the
 * grammar), but field selectors only know `=`, `==` and `!=` like the real server.
 *
 * @module
 */
import { goQuote, isQualifiedName, isValidLabelValue } from './validation/names.js';

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

type Operator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

interface Requirement {
  key: string;
  op: Operator;
  values: string[];
}

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

const keywords: Readonly<Record<string, Tok>> = {
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
const isSpecial = (ch: string): boolean => '=!(),><'.includes(ch) && ch.length === 1;

/** The lexer of `labels.Parse`, byte for byte (it works on bytes; so do we, on UTF-16 units). */
function lex(s: string): { tok: Tok; lit: string }[] {
  const items: { tok: Tok; lit: string }[] = [];
  let pos = 0;
  const read = (): string => (pos < s.length ? (s[pos++] ?? '') : '');
  for (;;) {
    let ch = read();
    while (ch !== '' && isWhitespace(ch)) ch = read();
    if (ch === '') {
      items.push({ tok: Tok.End, lit: '' });
      return items;
    }
    pos--;
    if (isSpecial(ch)) {
      let buffer = '';
      let last: { tok: Tok; lit: string } | undefined;
      for (;;) {
        const c = read();
        if (c === '') break;
        if (isSpecial(c)) {
          buffer += c;
          const t = keywords[buffer];
          if (t !== undefined) last = { tok: t, lit: buffer };
          else if (last !== undefined) {
            pos--;
            break;
          }
        } else {
          pos--;
          break;
        }
      }
      items.push(last ?? { tok: Tok.Error, lit: `error expected: keyword found '${buffer}'` });
    } else {
      let buffer = '';
      for (;;) {
        const c = read();
        if (c === '') break;
        if (isSpecial(c) || isWhitespace(c)) {
          pos--;
          break;
        }
        buffer += c;
      }
      items.push({ tok: keywords[buffer] ?? Tok.Identifier, lit: buffer });
    }
  }
}

const BINARY_OPERATORS = 'in, notin, =, ==, !=, gt, lt';

/** Go's `field.Error` text for an invalid value at a path (`<nil>` when there is no path). */
function fieldInvalid(path: string, value: unknown, detail: string): string {
  const shown = Array.isArray(value)
    ? `[]string{${value.map((v) => goQuote(String(v))).join(', ')}}`
    : goQuote(String(value));
  return `${path}: Invalid value: ${shown}: ${detail}`;
}

/** `errors.NewAggregate(...).Error()`: one message, or `[a, b]` (duplicates removed). */
function aggregate(messages: string[]): string | undefined {
  const unique = [...new Set(messages)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}

/** `labels.NewRequirement` validation. */
function newRequirement(key: string, op: Operator, values: string[]): Requirement {
  const errs: string[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(fieldInvalid('key', key, keyErrs.join('; ')));
  switch (op) {
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
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        errs.push(fieldInvalid('values', values, "for 'Gt', 'Lt' operators, exactly one value is required"));
      }
      values.forEach((v, i) => {
        if (!/^[+-]?\d+$/.test(v) || !Number.isSafeInteger(Number(v))) {
          errs.push(
            fieldInvalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"),
          );
        }
      });
      break;
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0) errs.push(fieldInvalid(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  const message = aggregate(errs);
  if (message !== undefined) throw new SelectorError(`unable to parse requirement: ${message}`);
  return { key, op, values };
}

/** Thrown inside the parser; rethrown with the `unable to parse requirement:` prefix. */
class RequirementError extends Error {}

class Parser {
  private position = 0;
  constructor(private readonly items: { tok: Tok; lit: string }[]) {}

  /** In the `Values` context `in`/`notin` are plain identifiers. */
  private lookahead(values: boolean): { tok: Tok; lit: string } {
    const item = this.items[this.position] ?? { tok: Tok.End, lit: '' };
    return values && (item.tok === Tok.In || item.tok === Tok.NotIn)
      ? { tok: Tok.Identifier, lit: item.lit }
      : item;
  }

  private consume(values: boolean): { tok: Tok; lit: string } {
    const item = this.lookahead(values);
    this.position++;
    return item;
  }

  parse(): Requirement[] {
    const requirements: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === Tok.Identifier || tok === Tok.DoesNotExist) {
        try {
          requirements.push(this.parseRequirement());
        } catch (e) {
          if (e instanceof RequirementError)
            throw new SelectorError(`unable to parse requirement: ${e.message}`);
          throw e;
        }
        const next = this.consume(true);
        if (next.tok === Tok.End) return requirements;
        if (next.tok === Tok.Comma) {
          const after = this.lookahead(true);
          if (after.tok !== Tok.Identifier && after.tok !== Tok.DoesNotExist) {
            throw new SelectorError(`found '${after.lit}', expected: identifier after ','`);
          }
        } else {
          throw new SelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
      } else if (tok === Tok.End) {
        return requirements;
      } else {
        throw new SelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): Requirement {
    let op: Operator | undefined;
    let { tok, lit } = this.consume(true);
    if (tok === Tok.DoesNotExist) {
      op = '!';
      ({ tok, lit } = this.consume(true));
    }
    if (tok !== Tok.Identifier) throw new RequirementError(`found '${lit}', expected: identifier`);
    const key = lit;
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length > 0) throw new RequirementError(fieldInvalid('<nil>', key, keyErrs.join('; ')));
    const ahead = this.lookahead(true).tok;
    // `!key` is complete by itself: whatever follows is the caller's problem (`found '=', expected: ','...`).
    if (op === '!' || ahead === Tok.End || ahead === Tok.Comma) return this.checked(key, op ?? 'exists', []);
    const opItem = this.consume(false);
    const operators: Partial<Record<Tok, Operator>> = {
      [Tok.In]: 'in',
      [Tok.NotIn]: 'notin',
      [Tok.Equals]: '=',
      [Tok.DoubleEquals]: '==',
      [Tok.NotEquals]: '!=',
      [Tok.GreaterThan]: 'gt',
      [Tok.LessThan]: 'lt',
    };
    const binary = operators[opItem.tok];
    if (binary === undefined)
      throw new RequirementError(`found '${opItem.lit}', expected: ${BINARY_OPERATORS}`);
    const values = binary === 'in' || binary === 'notin' ? this.parseValues() : this.parseExactValue();
    return this.checked(key, binary, values);
  }

  private checked(key: string, op: Operator, values: string[]): Requirement {
    try {
      return newRequirement(key, op, values);
    } catch (e) {
      if (e instanceof SelectorError)
        throw new RequirementError(e.message.replace(/^unable to parse requirement: /, ''));
      throw e;
    }
  }

  private parseValues(): string[] {
    const open = this.consume(true);
    if (open.tok !== Tok.OpenPar) throw new RequirementError(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === Tok.Identifier || tok === Tok.Comma) {
      const set = this.parseIdentifiersList();
      if (this.consume(true).tok !== Tok.ClosePar)
        throw new RequirementError(`found '${lit}', expected: ')'`);
      return set;
    }
    if (tok === Tok.ClosePar) {
      this.consume(true);
      return [''];
    }
    throw new RequirementError(`found '${lit}', expected: ',', ')' or identifier`);
  }

  /** Returns a sorted, de-duplicated list (Go's `sets.String.List()`). */
  private parseIdentifiersList(): string[] {
    const set = new Set<string>();
    const done = (): string[] => [...set].sort();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === Tok.Identifier) {
        set.add(lit);
        const next = this.lookahead(true);
        if (next.tok === Tok.Comma) continue;
        if (next.tok === Tok.ClosePar) return done();
        throw new RequirementError(`found '${next.lit}', expected: ',' or ')'`);
      } else if (tok === Tok.Comma) {
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
        throw new RequirementError(`found '${lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): string[] {
    const ahead = this.lookahead(true).tok;
    if (ahead === Tok.End || ahead === Tok.Comma) return [''];
    const { tok, lit } = this.consume(true);
    if (tok === Tok.Identifier) return [lit];
    throw new RequirementError(`found '${lit}', expected: identifier`);
  }
}

function matchRequirement(r: Requirement, labels: Readonly<Record<string, string>>): boolean {
  const has = Object.prototype.hasOwnProperty.call(labels, r.key);
  const value = has ? labels[r.key] : undefined;
  switch (r.op) {
    case 'in':
    case '=':
    case '==':
      return has && r.values.includes(value ?? '');
    case 'notin':
    case '!=':
      return !has || !r.values.includes(value ?? '');
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[+-]?\d+$/.test(value ?? '')) return false;
      const lhs = Number(value);
      const rhs = Number(r.values[0]);
      return r.op === 'gt' ? lhs > rhs : lhs < rhs;
    }
  }
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
  const requirements = new Parser(lex(text)).parse();
  return {
    empty: requirements.length === 0,
    matches: (labels) => requirements.every((r) => matchRequirement(r, labels ?? {})),
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
