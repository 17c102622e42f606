/**
 * Label selectors evaluated in the cache, with the grammar of `k8s.io/apimachinery/pkg/labels`:
 * `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x,y)`, `a` (exists), `!a` (does not exist),
 * comma-separated (all must hold). A `Record<string, string>` means `matchLabels`.
 *
 * @module
 */
import { InvalidArgumentError } from '../internal/invalid-argument.js';

/**
 * A label selector: the text form (`app=web,tier in (a,b)`) or `matchLabels`.
 *
 * ## Example
 * ```ts
 * labelMatcher('app=web,tier in (a,b)'); // the text form
 * labelMatcher({ app: 'web' }); // matchLabels
 * ```
 */
export type LabelSelectorInput = string | Readonly<Record<string, string>>;

type Requirement =
  | { readonly key: string; readonly op: 'in' | 'notin'; readonly values: readonly string[] }
  | { readonly key: string; readonly op: 'exists' | '!' };

/**
 * Compiles a label selector into a predicate over labels.
 *
 * ## Example
 * ```ts
 * const matches = labelMatcher('app=web,tier notin (db)');
 * matches({ app: 'web', tier: 'cache' }); // true
 * ```
 * @throws {InvalidArgumentError} for a selector that does not parse, naming where.
 */
export function labelMatcher(
  selector: LabelSelectorInput,
): (labels: Readonly<Record<string, string>> | undefined) => boolean {
  const requirements = typeof selector === 'string' ? parse(selector) : fromMatchLabels(selector);
  return (labels) =>
    requirements.every((r) => {
      const value = labels?.[r.key];
      switch (r.op) {
        case 'exists':
          return value !== undefined;
        case '!':
          return value === undefined;
        case 'in':
          return value !== undefined && r.values.includes(value);
        case 'notin':
          return value === undefined || !r.values.includes(value);
      }
    });
}

function fromMatchLabels(labels: Readonly<Record<string, string>>): Requirement[] {
  if (labels === null || typeof labels !== 'object') {
    throw new InvalidArgumentError(
      'labelMatcher',
      'selector',
      labels,
      'must be a string or { label: value }',
    );
  }
  return Object.entries(labels).map(([key, value]) => ({ key, op: 'in', values: [value] }));
}

const SET = /^\s*(!?)\s*([A-Za-z0-9][-A-Za-z0-9_./]*)\s*(?:(in|notin)\s*\(([^)]*)\))?\s*$/;
const EQUALITY = /^\s*([A-Za-z0-9][-A-Za-z0-9_./]*)\s*(==|=|!=)\s*([-A-Za-z0-9_.]*)\s*$/;

function parse(text: string): Requirement[] {
  const out: Requirement[] = [];
  for (const part of splitTopLevel(text)) {
    if (part.trim() === '') continue;
    const eq = EQUALITY.exec(part);
    if (eq !== null) {
      const [, key = '', op, value = ''] = eq;
      out.push({ key, op: op === '!=' ? 'notin' : 'in', values: [value] });
      continue;
    }
    const set = SET.exec(part);
    if (set !== null && !(set[1] === '!' && set[3] !== undefined)) {
      const [, not, key = '', op, values] = set;
      if (op !== undefined) {
        out.push({
          key,
          op: op === 'notin' ? 'notin' : 'in',
          values: (values ?? '').split(',').map((v) => v.trim()),
        });
      } else {
        out.push({ key, op: not === '!' ? '!' : 'exists' });
      }
      continue;
    }
    throw new InvalidArgumentError(
      'labelMatcher',
      'selector',
      text,
      `does not parse at "${part.trim()}": use key=value, key!=value, key in (a,b), key notin (a,b), key or !key, separated by commas`,
    );
  }
  return out;
}

/** Splits on commas outside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}
