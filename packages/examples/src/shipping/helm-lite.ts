/**
 * A renderer for the subset of Helm's Go templates the copyrator chart uses, so tests can render
 * the chart without a `helm` binary: actions `{{ }}` with `{{-`/`-}}` whitespace trimming,
 * comments, `if`/`else if`/`else`, `with`, `range`, `define`/`include`, pipelines, parentheses,
 * `.Values…`/`.Release…`/`.Chart…` paths, `$`, and the functions `quote`, `default`, `toYaml`,
 * `nindent`, `indent`, `int`, `not`, `and`, `or`, `eq`, `ne`, `gt`, `lt`, `empty`, `required`,
 * `fail`, `trunc`, `trimSuffix`.
 *
 * What it does not do: variables (`$x :=`), `tpl`, `lookup`, the rest of Sprig. Anything outside
 * the subset throws a {@link TemplateError} — a template that renders here uses nothing Helm would
 * read differently, within these semantics (Go's truthiness, Helm's `toYaml` with sorted keys and no
 * trailing newline).
 *
 * @module
 */
import { stringify } from 'yaml';

/** A template that cannot be parsed or rendered: which template, where, what. */
export class TemplateError extends Error {
  readonly _tag = 'TemplateError' as const;
  override readonly name = 'TemplateError';
  constructor(
    readonly template: string,
    readonly problem: string,
  ) {
    super(`${template}: ${problem}`);
  }
}

/** `fail "message"` was called: the chart refuses these values. */
export class TemplateFailure extends Error {
  readonly _tag = 'TemplateFailure' as const;
  override readonly name = 'TemplateFailure';
}

type Node =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'action'; readonly expr: string }
  | {
      readonly type: 'if' | 'with' | 'range';
      readonly branches: readonly { readonly expr: string | undefined; readonly body: Node[] }[];
    };

interface Token {
  readonly kind: 'text' | 'action';
  readonly text: string;
}

function tokenize(name: string, source: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < source.length) {
    const open = source.indexOf('{{', i);
    if (open === -1) {
      tokens.push({ kind: 'text', text: source.slice(i) });
      break;
    }
    let text = source.slice(i, open);
    const close = source.indexOf('}}', open);
    if (close === -1) throw new TemplateError(name, `unclosed action at offset ${open}`);
    let inner = source.slice(open + 2, close);
    if (inner.startsWith('-') && /^-\s/.test(inner)) {
      text = text.replace(/\s+$/, '');
      inner = inner.slice(1);
    }
    let next = close + 2;
    if (/\s-$/.test(inner)) {
      inner = inner.slice(0, -1);
      const m = /^\s*/.exec(source.slice(next));
      next += m?.[0].length ?? 0;
    }
    if (text !== '') tokens.push({ kind: 'text', text });
    tokens.push({ kind: 'action', text: inner.trim() });
    i = next;
  }
  return tokens;
}

function parse(name: string, source: string, defines: Map<string, Node[]>): Node[] {
  const tokens = tokenize(name, source);
  let pos = 0;
  const block = (terminators: readonly string[]): { nodes: Node[]; end: string } => {
    const nodes: Node[] = [];
    while (pos < tokens.length) {
      const t = tokens[pos++]!;
      if (t.kind === 'text') {
        nodes.push({ type: 'text', text: t.text });
        continue;
      }
      const a = t.text;
      if (a.startsWith('/*')) {
        if (!a.endsWith('*/')) throw new TemplateError(name, `unclosed comment: {{${a}}}`);
        continue;
      }
      const keyword = /^(if|with|range|define|else if|else|end)\b/.exec(a)?.[1];
      if (keyword === 'end' || keyword === 'else' || keyword === 'else if') {
        if (!terminators.includes(keyword)) throw new TemplateError(name, `unexpected {{${a}}}`);
        pos--;
        return { nodes, end: keyword };
      }
      if (keyword === 'define') {
        const m = /^define\s+"([^"]+)"$/.exec(a);
        if (m === null) throw new TemplateError(name, `bad define: {{${a}}}`);
        const body = block(['end']);
        pos++;
        defines.set(m[1]!, body.nodes);
        continue;
      }
      if (keyword === 'if' || keyword === 'with' || keyword === 'range') {
        const branches: { expr: string | undefined; body: Node[] }[] = [];
        let expr: string | undefined = a.slice(keyword.length).trim();
        for (;;) {
          const body = block(['end', 'else', 'else if']);
          branches.push({ expr, body: body.nodes });
          const term = tokens[pos++]!.text;
          if (body.end === 'end') break;
          if (body.end === 'else if') {
            if (keyword !== 'if') throw new TemplateError(name, `{{else if}} inside {{${keyword}}}`);
            expr = term.slice('else if'.length).trim();
          } else expr = undefined;
        }
        nodes.push({ type: keyword, branches });
        continue;
      }
      nodes.push({ type: 'action', expr: a });
    }
    if (terminators.length > 0)
      throw new TemplateError(name, `missing {{end}} (expected ${terminators.join('/')})`);
    return { nodes, end: '' };
  };
  return block([]).nodes;
}

type Value = unknown;

/** Go template truthiness: false, 0, nil, and empty strings, maps and lists are false. */
export function truthy(v: Value): boolean {
  if (v === undefined || v === null || v === false || v === 0 || v === '') return false;
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object') return Object.keys(v).length > 0;
  return true;
}

function sortKeys(v: Value): Value {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  }
  return v;
}

/** Helm's `toYaml`: sorted keys (it marshals through JSON), no trailing newline. */
export function toYaml(v: Value): string {
  if (v === undefined || v === null) return 'null';
  return stringify(sortKeys(v)).replace(/\n$/, '');
}

/** How an action prints a value: nothing for nil, YAML for maps and lists (not Go's `map[…]`). */
function text(v: Value): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return toYaml(v);
}

const indentLines = (n: number, s: string): string =>
  s
    .split('\n')
    .map((l) => ' '.repeat(n) + l)
    .join('\n');

interface Scope {
  readonly dot: Value;
  readonly root: Value;
}

/** The values a chart renders with. */
export interface RenderContext {
  readonly Values: Record<string, unknown>;
  readonly Release: { readonly Name: string; readonly Namespace: string; readonly Service: string };
  readonly Chart: { readonly Name: string; readonly Version: string; readonly AppVersion: string };
}

/** Splits an expression into words, keeping quoted strings and parenthesised groups whole. */
function words(name: string, expr: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < expr.length) {
    const c = expr[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '"') {
      let j = i + 1;
      while (j < expr.length && expr[j] !== '"') j += expr[j] === '\\' ? 2 : 1;
      if (j >= expr.length) throw new TemplateError(name, `unterminated string in {{${expr}}}`);
      out.push(expr.slice(i, j + 1));
      i = j + 1;
    } else if (c === '(') {
      let depth = 0;
      let j = i;
      for (; j < expr.length; j++) {
        if (expr[j] === '(') depth++;
        if (expr[j] === ')' && --depth === 0) break;
      }
      if (depth !== 0) throw new TemplateError(name, `unbalanced parentheses in {{${expr}}}`);
      out.push(expr.slice(i, j + 1));
      i = j + 1;
    } else if (c === '|') {
      out.push('|');
      i++;
    } else {
      let j = i;
      while (j < expr.length && !/[\s|()]/.test(expr[j]!)) j++;
      out.push(expr.slice(i, j));
      i = j;
    }
  }
  return out;
}

/**
 * Renders Helm chart templates with the subset described in the module doc.
 *
 * ## Example
 * ```ts
 * const r = new HelmLite({ '_helpers.tpl': helpers, 'deployment.yaml': deployment });
 * const yaml = r.render('deployment.yaml', { Values, Release, Chart });
 * ```
 */
export class HelmLite {
  private readonly defines = new Map<string, Node[]>();
  private readonly parsed = new Map<string, Node[]>();

  /** @throws {TemplateError} for a template outside the subset. */
  constructor(templates: Readonly<Record<string, string>>) {
    for (const [name, source] of Object.entries(templates))
      this.parsed.set(name, parse(name, source, this.defines));
  }

  /**
   * Renders one template.
   *
   * @throws {TemplateFailure} when the template calls `fail` (or `required` finds nothing).
   * @throws {TemplateError} for an unknown template, path or function.
   */
  render(template: string, context: RenderContext): string {
    const nodes = this.parsed.get(template);
    if (nodes === undefined) throw new TemplateError(template, 'no such template');
    return this.nodes(template, nodes, { dot: context, root: context });
  }

  private nodes(name: string, nodes: readonly Node[], scope: Scope): string {
    let out = '';
    for (const n of nodes) {
      if (n.type === 'text') out += n.text;
      else if (n.type === 'action') {
        const v = this.evaluate(name, n.expr, scope);
        out += text(v);
      } else {
        for (const b of n.branches) {
          if (b.expr === undefined) {
            out += this.nodes(name, b.body, scope);
            break;
          }
          const v = this.evaluate(name, b.expr, scope);
          if (!truthy(v)) continue;
          if (n.type === 'if') out += this.nodes(name, b.body, scope);
          else if (n.type === 'with') out += this.nodes(name, b.body, { ...scope, dot: v });
          else {
            const items = Array.isArray(v) ? v : Object.values(v as object);
            for (const item of items) out += this.nodes(name, b.body, { ...scope, dot: item });
          }
          break;
        }
      }
    }
    return out;
  }

  private evaluate(name: string, expr: string, scope: Scope): Value {
    const stages: string[][] = [[]];
    for (const w of words(name, expr)) {
      if (w === '|') stages.push([]);
      else stages.at(-1)!.push(w);
    }
    let piped: { value: Value } | undefined;
    for (const stage of stages) {
      if (stage.length === 0) throw new TemplateError(name, `empty pipeline stage in {{${expr}}}`);
      const [head, ...rest] = stage as [string, ...string[]];
      const args = rest.map((w) => this.operand(name, w, scope));
      if (piped !== undefined) args.push(piped.value);
      if (/^[a-zA-Z]\w*$/.test(head) && !['true', 'false', 'nil'].includes(head)) {
        piped = { value: this.call(name, head, args, scope) };
      } else {
        if (args.length > 0) throw new TemplateError(name, `${head} is not a function in {{${expr}}}`);
        piped = { value: this.operand(name, head, scope) };
      }
    }
    return piped?.value;
  }

  private operand(name: string, w: string, scope: Scope): Value {
    if (w.startsWith('(')) return this.evaluate(name, w.slice(1, -1), scope);
    if (w.startsWith('"')) return JSON.parse(w) as string;
    if (/^-?\d+(\.\d+)?$/.test(w)) return Number(w);
    if (w === 'true') return true;
    if (w === 'false') return false;
    if (w === 'nil') return null;
    if (w === '.') return scope.dot;
    if (w.startsWith('.') || w.startsWith('$')) {
      let v: Value = w.startsWith('$') ? scope.root : scope.dot;
      const path = w.startsWith('$') ? w.slice(1) : w;
      if (w.startsWith('$') && !(path === '' || path.startsWith('.'))) {
        throw new TemplateError(name, `template variables are not supported: ${w}`);
      }
      for (const key of path.split('.').filter((k) => k !== '')) {
        if (v === undefined || v === null) return undefined;
        if (typeof v !== 'object')
          throw new TemplateError(name, `cannot read ${key} of a ${typeof v} in ${w}`);
        v = (v as Record<string, unknown>)[key];
      }
      return v;
    }
    if (/^[a-zA-Z]\w*$/.test(w)) return this.call(name, w, [], scope);
    throw new TemplateError(name, `cannot read ${JSON.stringify(w)}`);
  }

  private call(name: string, fn: string, args: readonly Value[], scope: Scope): Value {
    const arity = (n: number) => {
      if (args.length !== n)
        throw new TemplateError(name, `${fn} takes ${n} argument(s), got ${args.length}`);
    };
    const num = (v: Value) => {
      const n = typeof v === 'number' ? v : Number(v);
      if (!Number.isFinite(n)) throw new TemplateError(name, `${fn}: ${JSON.stringify(v)} is not a number`);
      return n;
    };
    switch (fn) {
      case 'quote':
        return args.map((a) => JSON.stringify(text(a))).join(' ');
      case 'default':
        arity(2);
        return truthy(args[1]) ? args[1] : args[0];
      case 'toYaml':
        arity(1);
        return toYaml(args[0]);
      case 'nindent':
        arity(2);
        return `\n${indentLines(num(args[0]), String(args[1]))}`;
      case 'indent':
        arity(2);
        return indentLines(num(args[0]), String(args[1]));
      case 'int':
        arity(1);
        return Math.trunc(args[0] === undefined || args[0] === null ? 0 : num(args[0]));
      case 'not':
        arity(1);
        return !truthy(args[0]);
      case 'and':
        return args.every(truthy) ? args.at(-1) : args.find((a) => !truthy(a));
      case 'or':
        return args.find(truthy) ?? args.at(-1);
      case 'empty':
        arity(1);
        return !truthy(args[0]);
      case 'eq':
        arity(2);
        return args[0] === args[1];
      case 'ne':
        arity(2);
        return args[0] !== args[1];
      case 'gt':
        arity(2);
        return num(args[0]) > num(args[1]);
      case 'lt':
        arity(2);
        return num(args[0]) < num(args[1]);
      case 'trunc':
        arity(2);
        return String(args[1]).slice(0, num(args[0]));
      case 'trimSuffix':
        arity(2);
        return String(args[1]).endsWith(String(args[0]))
          ? String(args[1]).slice(0, -String(args[0]).length)
          : String(args[1]);
      case 'required':
        arity(2);
        if (!truthy(args[1])) throw new TemplateFailure(String(args[0]));
        return args[1];
      case 'fail':
        arity(1);
        throw new TemplateFailure(String(args[0]));
      case 'include': {
        arity(2);
        const body = this.defines.get(String(args[0]));
        if (body === undefined)
          throw new TemplateError(name, `include of undefined template ${String(args[0])}`);
        return this.nodes(name, body, { dot: args[1], root: scope.root });
      }
      default:
        throw new TemplateError(name, `function ${fn} is not supported by this renderer`);
    }
  }
}
