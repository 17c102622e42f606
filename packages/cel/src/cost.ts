/**
 * CEL's runtime cost, counted as cel-go v0.10.1 counts it for kube-apiserver v1.24
 * (`interpreter/runtimecost.go` `CostObserver`, apiextensions-apiserver's `library/cost.go`
 * `CallCost`): the engine has no step counter, so each node of a compiled expression's AST is
 * wrapped to charge its cost after it is evaluated.
 *
 * - literals 0; an identifier 1; a field select or an index 1 (an index by a variable: the
 *   variable only); `&&`, `||`, `?:` 0; a step that fails costs 1 (cel-go observes errors too);
 * - a list literal 10, a map literal 30 (0 when every element is a literal: cel-go folds them);
 * - a call 1, except: `==`/`!=` and ordering of strings or bytes cost ⌈min(size)·0.1⌉; `+` of
 *   strings or bytes ⌈(m+n)·0.1⌉; `in` a list its size; `startsWith`/`endsWith` ⌈size·0.1⌉;
 *   `contains` ⌈m·0.1⌉·⌈n·0.1⌉; `matches`/`find`/`findAll` ⌈(1+m)·0.1⌉·⌈regex·0.25⌉;
 *   `lowerAscii`, `upperAscii`, `substring`, `trim`, `url` ⌈size·0.1⌉; `replace`, `split`
 *   ⌈size·0.2⌉; `join` ⌈size(result)·0.2⌉; `isSorted`, `sum`, `min`, `max`, `indexOf`,
 *   `lastIndexOf` a traversal of their target;
 * - a macro as cel-go expands it into a fold: `all` 3 per element visited (the loop condition
 *   and the accumulator), `exists` 4, `exists_one` 2 per match, `map` 12, `filter` 13 per match,
 *   plus the
 *   result (1, `exists_one` 2) and the condition that ends a loop early; `has(a.b.c)` 1 per
 *   select but the last.
 *
 * When the count passes the meter's limit the evaluation stops (`CostLimitExceeded`) and stays
 * stopped, whatever the engine does with the error (quantifiers keep going after an error).
 *
 * @module
 */
import type { ASTNode } from '@marcbachmann/cel-js';

/** What one evaluation may spend, and what it spent. */
export interface CostMeter {
  /** The cost so far. */
  cost: number;
  /** The limit (`PerCallLimit`); the evaluation stops when `cost` exceeds it. */
  readonly limit: number;
  /** Set when `cost` exceeded `limit`: the evaluation's result is not to be used. */
  exceeded: boolean;
}

/** Thrown out of an evaluation whose cost exceeded its meter's limit. */
export class CostLimitExceeded extends Error {
  override readonly name = 'CostLimitExceeded';
  constructor() {
    super('operation cancelled: actual cost limit exceeded');
  }
}

/** The meter the running evaluation charges (evaluations are synchronous: one at a time). */
let current: CostMeter | undefined;

/** Runs `f` charging `meter`; restores the meter in force before. */
export function metered<T>(meter: CostMeter | undefined, f: () => T): T {
  const before = current;
  current = meter;
  try {
    return f();
  } finally {
    current = before;
  }
}

const TRAVERSAL = 0.1;
const REGEX = 0.25;

/** cel-go's `Sizer` size: runes of a string, bytes, list items, map entries; 1 for the rest. */
function sizeOf(v: unknown): number {
  if (typeof v === 'string') {
    let n = 0;
    for (let i = 0; i < v.length; i++) {
      const c = v.charCodeAt(i);
      if (c < 0xd800 || c > 0xdbff) n++;
    }
    return n;
  }
  if (v instanceof Uint8Array || Array.isArray(v)) return v.length;
  if (v instanceof Map) return v.size;
  if (typeof v === 'object' && v !== null && v.constructor === Object) return Object.keys(v).length;
  return 1;
}

const isSized = (v: unknown): boolean => typeof v === 'string' || v instanceof Uint8Array;

/** apiextensions-apiserver's `traversalCost`. */
function traversal(v: unknown): number {
  if (typeof v === 'string') return Math.floor(sizeOf(v) * TRAVERSAL);
  if (v instanceof Uint8Array) return Math.floor(v.length * TRAVERSAL);
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + traversal(x), 0);
  if (v instanceof Map) {
    let n = 0;
    for (const [k, x] of v) n += traversal(k) + traversal(x);
    return n;
  }
  if (typeof v === 'object' && v !== null && v.constructor === Object) {
    let n = 0;
    for (const [k, x] of Object.entries(v)) n += traversal(k) + traversal(x);
    return n;
  }
  return 1;
}

const ceil = (x: number): number => Math.ceil(x);

/** The cost of a call of `fn` on `args` (the target first) returning `result`. */
function callCost(fn: string, args: readonly unknown[], result: unknown): number {
  const [a, b] = args;
  switch (fn) {
    case '==':
    case '!=':
      return ceil(Math.min(sizeOf(a), sizeOf(b)) * TRAVERSAL);
    case '<':
    case '<=':
    case '>':
    case '>=':
      return isSized(a) && isSized(b) ? ceil(Math.min(sizeOf(a), sizeOf(b)) * TRAVERSAL) : 1;
    case '+':
      return isSized(a) && isSized(b) ? ceil((sizeOf(a) + sizeOf(b)) * TRAVERSAL) : 1;
    case 'in':
      return Array.isArray(b) ? b.length : 1;
    case 'startsWith':
    case 'endsWith':
      return typeof a === 'string' ? ceil(sizeOf(a) * TRAVERSAL) : 1;
    case 'contains':
      return typeof a === 'string' ? ceil(sizeOf(a) * TRAVERSAL) * ceil(sizeOf(b) * TRAVERSAL) : 1;
    case 'matches':
    case 'find':
    case 'findAll':
      return ceil((1 + sizeOf(a)) * TRAVERSAL) * ceil(sizeOf(b) * REGEX);
    case 'isSorted':
    case 'sum':
    case 'max':
    case 'min':
    case 'indexOf':
    case 'lastIndexOf':
      return args.length > 0 ? traversal(a) : 1;
    case 'url':
    case 'lowerAscii':
    case 'upperAscii':
    case 'substring':
    case 'trim':
      return ceil(sizeOf(a) * TRAVERSAL);
    case 'replace':
    case 'split':
      return ceil(sizeOf(a) * 2 * TRAVERSAL);
    case 'join':
      return ceil(sizeOf(result) * 2 * TRAVERSAL);
    default:
      return 1;
  }
}

/** The engine's AST node, as far as instrumenting it goes. */
interface Node {
  op: string;
  args: unknown;
  evaluate: (ev: unknown, ast: unknown, ctx: unknown) => unknown;
  readonly meta: {
    evaluate: (ev: unknown, ast: unknown, ctx: unknown) => unknown;
    alternate?: Node;
    macro?: {
      evaluate: (ev: unknown, ast: unknown, ctx: unknown) => unknown;
      args?: unknown;
      val?: unknown;
      exp?: unknown;
    };
  };
}

interface Slot {
  last: unknown;
}

const isNode = (x: unknown): x is Node =>
  typeof x === 'object' &&
  x !== null &&
  'op' in x &&
  'meta' in x &&
  typeof (x as { evaluate?: unknown }).evaluate === 'function';

const charge = (n: number): void => {
  const m = current;
  if (!m) return;
  m.cost += n;
  if (m.cost > m.limit) {
    m.exceeded = true;
    throw new CostLimitExceeded();
  }
};

const literal = (x: unknown): boolean => isNode(x) && x.op === 'value';

/**
 * Wraps every node of `ast` so that evaluating it charges the running meter. Call once, before
 * the first evaluation.
 */
export function instrument(ast: ASTNode): void {
  const slots = new Map<Node, Slot>();
  const slot = (n: Node): Slot => {
    let s = slots.get(n);
    if (!s) slots.set(n, (s = { last: undefined }));
    return s;
  };

  /** Wraps `n`: evaluate, remember the value, charge `cost(value)` (`extra` per evaluation). */
  const wrap = (n: Node, cost: (value: unknown) => number, free = false): void => {
    const s = slot(n);
    n.evaluate = function (ev, ast, ctx) {
      if (current?.exceeded === true) throw new CostLimitExceeded();
      const meta = n.meta;
      let v: unknown;
      try {
        v = meta.alternate
          ? meta.alternate.evaluate(ev, meta.alternate, ctx)
          : meta.macro
            ? meta.macro.evaluate(ev, meta.macro, ctx)
            : meta.evaluate(ev, ast, ctx);
      } catch (e) {
        // cel-go observes a step whose value is an error too: a select or a call costs 1
        if (current && !current.exceeded && free === false) charge(1);
        throw e;
      }
      s.last = v;
      if (current) charge(cost(v));
      return v;
    };
  };

  const visit = (x: unknown): void => {
    if (Array.isArray(x)) return x.forEach(visit);
    if (!isNode(x) || slots.has(x)) return;
    slot(x);
    const n = x;
    const { alternate, macro } = n.meta;
    if (alternate?.op === 'comprehension' && Array.isArray(n.args)) return comprehension(n, alternate);
    if (macro && 'exp' in macro) {
      // cel.bind: its value and expression
      visit(macro.val);
      visit(macro.exp);
      return wrap(n, () => 0, true);
    }
    if (macro) return has(n, macro.args);
    const args = n.args;
    switch (n.op) {
      case 'value':
        return wrap(n, () => 0, true);
      case 'id':
        // a constant (a type name such as `int`) is a literal to cel-go
        return wrap(n, () => (n.meta.alternate ? 0 : 1));
      case 'accuValue':
        return wrap(n, () => 1);
      case '.':
      case '.?':
        visit(args);
        return wrap(n, () => 1);
      case '[]':
      case '[?]': {
        visit(args);
        // `m[k]`: cel-go charges the qualifier k, not the index itself (celcoststability_test.go)
        const byVariable = isNode((args as unknown[])[1]) && ((args as Node[])[1] as Node).op === 'id';
        return wrap(n, () => (byVariable ? 0 : 1));
      }
      case '&&':
      case '||':
      case '?:':
        visit(args);
        return wrap(n, () => 0, true);
      case 'list': {
        visit(args);
        const folded = (args as unknown[]).every(literal);
        return wrap(n, () => (folded ? 0 : 10));
      }
      case 'map': {
        visit(args);
        const folded = (args as unknown[][]).every((e) => e.every(literal));
        return wrap(n, () => (folded ? 0 : 30));
      }
      case 'call':
      case 'rcall': {
        const [fn, ...rest] = args as [string, ...unknown[]];
        const operands = (
          n.op === 'rcall' ? [rest[0], ...(rest[1] as unknown[])] : (rest[0] as unknown[])
        ).filter(isNode);
        operands.forEach(visit);
        const slotsOf = operands.map(slot);
        // a conversion of a literal is folded by cel-go (OptOptimize)
        const folded = n.op === 'call' && operands.length === 1 && operands.every(literal);
        return wrap(n, (v) =>
          folded
            ? 0
            : callCost(
                fn,
                slotsOf.map((o) => o.last),
                v,
              ),
        );
      }
      default: {
        // unary and binary operators: `!_`, `-_`, `==`, `+`, `in`, ...
        const operands = (Array.isArray(args) ? args : [args]).filter(isNode);
        operands.forEach(visit);
        const slotsOf = operands.map(slot);
        const constIn =
          n.op === 'in' && operands[1]?.op === 'list' && (operands[1].args as unknown[]).every(literal);
        return wrap(n, (v) =>
          constIn
            ? 0
            : callCost(
                n.op,
                slotsOf.map((o) => o.last),
                v,
              ),
        );
      }
    }
  };

  /** `has(a.b.c)`: the engine evaluates `a` only; cel-go charges a select per field but the last. */
  const has = (n: Node, macroArgs: unknown): void => {
    let selects = 0;
    let at: unknown = Array.isArray(macroArgs) ? macroArgs[0] : undefined;
    while (isNode(at) && (at.op === '.' || at.op === '.?')) {
      selects++;
      at = (at.args as unknown[])[0];
    }
    visit(at);
    wrap(n, () => Math.max(0, selects - 1), true);
  };

  /** A macro the engine runs as a comprehension, charged as cel-go's fold of it. */
  const comprehension = (n: Node, c: Node): void => {
    const fn = (n.args as unknown[])[0];
    const a = c.args as { iterable: unknown; init: unknown; step: unknown };
    visit(a.iterable);
    visit(a.init);
    const iterable = isNode(a.iterable) ? slot(a.iterable) : { last: undefined };
    let steps = 0;
    const perStep = fn === 'all' ? 3 : fn === 'exists' ? 4 : 0;
    const earlyEnd = fn === 'all' ? 2 : fn === 'exists' ? 3 : 0;
    const step = a.step;
    if (isNode(step)) {
      // accumulator nodes (`accuPush`, `accuInc`, the false branch's `accuValue`): the fold's step
      const accu = (x: unknown, cost: number): void => {
        if (!isNode(x)) return;
        if (x.op === 'accuPush') {
          visit(x.args);
          wrap(x, () => cost);
        } else if (x.op === 'accuInc') wrap(x, () => 2);
        // the untaken branch `@result` of cel-go's conditional step costs nothing
        else if (x.op === 'accuValue') wrap(x, () => 0, true);
        else visit(x);
      };
      if (step.op === '?:' && fn !== 'all' && fn !== 'exists') {
        const [cond, yes, no] = step.args as unknown[];
        visit(cond);
        accu(yes, 12);
        accu(no, 0);
        wrap(step, () => 0, true);
      } else if (step.op === 'accuPush') accu(step, 12);
      else visit(step);
      const inner = step.evaluate;
      step.evaluate = function (ev, ast, ctx) {
        steps++;
        if (current) charge(perStep);
        return inner.call(this, ev, ast, ctx);
      };
    }
    const s = slot(n);
    n.evaluate = function (ev, _ast, ctx) {
      if (current?.exceeded === true) throw new CostLimitExceeded();
      const before = steps;
      const v = c.evaluate(ev, c, ctx);
      s.last = v;
      if (current) {
        const early = steps - before < sizeOf(iterable.last) ? earlyEnd : 0;
        charge((fn === 'exists_one' ? 2 : 1) + early);
      }
      return v;
    };
  };

  visit(ast);
}
