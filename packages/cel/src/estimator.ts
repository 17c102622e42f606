/**
 * cel-go v0.10.1's static cost estimator (`checker/cost.go`) over `@marcbachmann/cel-js`'s parsed
 * AST, with apiextensions-apiserver v0.24.0's library costs (`schema/cel/library/cost.go`
 * `EstimateCallCost`) and kube-apiserver's `DeclType` sizes of a schema
 * (`third_party/forked/celopenapi/model/schemas.go`). Macros are costed as cel-go's parser
 * expands them (`parser/macro.go`); the arithmetic is cel-go's: unsigned 64-bit, saturating,
 * cost factors rounded up. Internal: `estimate.ts` is the public entry.
 *
 * @module
 */
import { type CelSchema, escapeProperty } from './schema.js';

export const MAX = (1n << 64n) - 1n;
export const REQUEST = 3n * 1024n * 1024n;

/** A range of sizes or costs (cel-go's `SizeEstimate`, `CostEstimate`). */
export interface Range {
  min: bigint;
  max: bigint;
}

export const add = (a: bigint, b: bigint): bigint => (a + b > MAX ? MAX : a + b);
export const mul = (a: bigint, b: bigint): bigint => (a * b > MAX ? MAX : a * b);
/** cel-go's `multiplyByCostFactor`: float64 arithmetic, rounded up. */
const factor = (x: bigint, f: number): bigint => {
  const xf = Number(x);
  if (xf > 0 && f > 0 && xf > Number(MAX) / f) return MAX;
  const r = Math.ceil(xf * f);
  return r >= 2 ** 64 ? MAX : BigInt(r);
};
const rAdd = (a: Range, b: Range): Range => ({ min: add(a.min, b.min), max: add(a.max, b.max) });
const rMul = (a: Range, b: Range): Range => ({ min: mul(a.min, b.min), max: mul(a.max, b.max) });
const rFactor = (a: Range, f: number): Range => ({ min: factor(a.min, f), max: factor(a.max, f) });
const rUnion = (a: Range, b: Range): Range => ({
  min: a.min < b.min ? a.min : b.min,
  max: a.max > b.max ? a.max : b.max,
});
const exact = (n: bigint): Range => ({ min: n, max: n });
const ZERO = exact(0n);
const ONE = exact(1n);
const UNKNOWN: Range = { min: 0n, max: MAX };

const TRAVERSAL = 0.1;
const REGEX = 0.25;

/** A CEL type with kube-apiserver's `MaxElements` (`DeclType`). */
export interface Decl {
  kind:
    | 'list'
    | 'map'
    | 'object'
    | 'string'
    | 'bytes'
    | 'duration'
    | 'timestamp'
    | 'dyn'
    | 'int'
    | 'uint'
    | 'double'
    | 'bool'
    | 'null'
    | 'other';
  max: bigint;
  elem?: Decl;
  key?: Decl;
  fields?: Map<string, Decl>;
}

export const simple = (kind: Decl['kind'], max = 0n): Decl => ({ kind, max });
const DYN = simple('dyn');

export const isObj = (v: unknown): v is CelSchema => typeof v === 'object' && v !== null && !Array.isArray(v);
export const num = (v: unknown): bigint | undefined =>
  typeof v === 'number' && Number.isInteger(v) ? BigInt(Math.max(0, v)) : undefined;

/** `estimateMinSizeJSON`. */
export function minSizeJSON(s: CelSchema | undefined): bigint {
  if (!s) return 1n;
  switch (s.type) {
    case 'boolean':
      return 4n;
    case 'number':
    case 'integer':
      return 1n;
    case 'string':
      switch (s.format) {
        case 'duration':
          return 3n;
        case 'date':
          return 12n;
        case 'date-time':
          return 21n;
        default:
          return 2n;
      }
    case 'array':
      return 2n;
    case 'object': {
      let size = 2n;
      const required = Array.isArray(s['required']) ? (s['required'] as unknown[]) : [];
      for (const name of required) {
        if (typeof name !== 'string') continue;
        const p = s.properties?.[name];
        if (!isObj(p) || p['default'] !== undefined) continue;
        size += BigInt(Buffer.byteLength(name)) + minSizeJSON(p) + 4n;
      }
      return size;
    }
    default:
      return 1n;
  }
}

/** `estimateMaxStringLengthPerRequest`. */
function maxStringLength(s: CelSchema): bigint {
  if (s['x-kubernetes-int-or-string'] === true) return REQUEST - 2n;
  switch (s.format) {
    case 'duration':
    case 'date-time':
      return 32n;
    case 'date':
      return 12n;
    default:
      return REQUEST - 2n;
  }
}

const ROOT_STRING: CelSchema = { type: 'string' };

/** `WithTypeAndObjectMeta`. */
function withTypeAndObjectMeta(s: CelSchema): CelSchema {
  const p = s.properties ?? {};
  const m = p['metadata'];
  if (
    s.properties !== undefined &&
    p['kind']?.type === 'string' &&
    p['apiVersion']?.type === 'string' &&
    m?.type === 'object' &&
    m.properties !== undefined &&
    m.properties['name']?.type === 'string' &&
    m.properties['generateName']?.type === 'string'
  )
    return s;
  return {
    ...s,
    properties: {
      ...p,
      kind: ROOT_STRING,
      apiVersion: ROOT_STRING,
      metadata: { type: 'object', properties: { name: ROOT_STRING, generateName: ROOT_STRING } },
    },
  };
}

/** `SchemaDeclType`: the CEL type of a schema node, with its `MaxElements`. */
export function declOf(s: CelSchema | undefined, root: boolean): Decl | undefined {
  if (!s) return undefined;
  if (s['x-kubernetes-int-or-string'] === true) return simple('dyn', REQUEST - 2n);
  if (root) s = withTypeAndObjectMeta(s);
  switch (s.type) {
    case 'array': {
      if (!isObj(s.items)) return undefined;
      const elem = declOf(s.items, s.items['x-kubernetes-embedded-resource'] === true);
      const max = num(s['maxItems']) ?? (REQUEST - 2n) / (minSizeJSON(s.items) + 1n);
      return elem ? { kind: 'list', max, elem } : undefined;
    }
    case 'object': {
      const ap = s.additionalProperties;
      if (isObj(ap)) {
        const elem = declOf(ap, ap['x-kubernetes-embedded-resource'] === true);
        const max = num(s['maxProperties']) ?? (REQUEST - 2n) / (minSizeJSON(ap) + 6n);
        return elem ? { kind: 'map', max, key: simple('string'), elem } : undefined;
      }
      const fields = new Map<string, Decl>();
      for (const [name, p] of Object.entries(s.properties ?? {})) {
        if (!isObj(p)) continue;
        const t = declOf(p, p['x-kubernetes-embedded-resource'] === true);
        const escaped = escapeProperty(name);
        if (t && escaped !== undefined) fields.set(escaped, t);
      }
      return { kind: 'object', max: 0n, fields };
    }
    case 'string':
      switch (s.format) {
        case 'byte':
          return simple('bytes', num(s['maxLength']) ?? maxStringLength(s));
        case 'duration':
          return simple('duration', maxStringLength(s));
        case 'date':
        case 'date-time':
          return simple('timestamp', maxStringLength(s));
        default: {
          const ml = num(s['maxLength']);
          return simple('string', ml !== undefined ? ml * 4n : maxStringLength(s));
        }
      }
    case 'boolean':
      return simple('bool');
    case 'number':
      return simple('double');
    case 'integer':
      return simple('int');
    default:
      return undefined;
  }
}

/** The engine's parsed node, as far as estimating goes. */
interface Node {
  op: string;
  args: unknown;
  meta?: { macro?: unknown };
}
const isNode = (x: unknown): x is Node => typeof x === 'object' && x !== null && 'op' in x && 'args' in x;

/** What the estimate knows of an expression (cel-go's `AstNode`). */
interface Est {
  cost: Range;
  type: Decl;
  /** The field path from `self` (`@items`, `@keys`, `@values`); undefined: none. */
  path?: string[];
  /** `ComputedSize`: a literal's size, or a call's result size. */
  size?: Range;
}

/** Thrown for what the estimator does not know: the rule is then not estimated. */
export class NotEstimated extends Error {}

const ACCU = '__result__';

export class Coster {
  private readonly scopes = new Map<string, Est[]>();
  /**
   * `vars`: the variables' types; `sizer`: the size of what a path names (the first element is a
   * variable), cel-go's `EstimateSize`.
   */
  constructor(
    private readonly vars: ReadonlyMap<string, Decl>,
    private readonly sizer: (path: string[]) => Range | undefined,
  ) {}

  /** `sizeEstimate`: the computed size, else the schema's, else unknown. */
  size(e: Pick<Est, 'size' | 'path'>): Range {
    if (e.size) return e.size;
    return this.schemaSize(e.path) ?? UNKNOWN;
  }

  private schemaSize(path: string[] | undefined): Range | undefined {
    // cel-go gives no path of the accumulator to the estimator
    if (!path || path.length === 0 || path[0] === ACCU) return undefined;
    return this.sizer(path);
  }

  private ident(name: string): Est {
    const scope = this.scopes.get(name);
    const range = scope?.[scope.length - 1];
    if (range) {
      const t = range.type;
      const base = range.path ?? [];
      if (t.kind === 'list') return { cost: ONE, type: t.elem ?? DYN, path: [...base, '@items'] };
      if (t.kind === 'map') return { cost: ONE, type: t.key ?? DYN, path: [...base, '@keys'] };
      return { cost: ONE, type: DYN };
    }
    const declared = this.vars.get(name);
    if (declared) return { cost: ONE, type: declared, path: [name] };
    if (name === ACCU) return { cost: ONE, type: DYN, path: [ACCU] };
    // a type name (`int`, `string`, ...)
    return { cost: ONE, type: simple('other'), path: [name] };
  }

  private literal(v: unknown): Est {
    if (typeof v === 'string')
      return { cost: ZERO, type: simple('string'), size: exact(BigInt(Buffer.byteLength(v))) };
    if (v instanceof Uint8Array) return { cost: ZERO, type: simple('bytes'), size: exact(BigInt(v.length)) };
    const kind: Decl['kind'] =
      typeof v === 'bigint'
        ? 'int'
        : typeof v === 'number'
          ? 'double'
          : typeof v === 'boolean'
            ? 'bool'
            : v === null
              ? 'null'
              : typeof v === 'object' && v.constructor.name === 'UnsignedInt'
                ? 'uint'
                : 'other';
    return { cost: ZERO, type: simple(kind), size: ONE };
  }

  cost(x: unknown): Est {
    if (!isNode(x)) throw new NotEstimated('not a node');
    const a = x.args;
    switch (x.op) {
      case 'value':
        return this.literal(a);
      case 'id':
        return this.ident(a as string);
      case '.': {
        const [operand, field] = a as [unknown, string];
        const o = this.cost(operand);
        const k = o.type.kind;
        const t =
          k === 'object' ? (o.type.fields?.get(field) ?? DYN) : k === 'map' ? (o.type.elem ?? DYN) : DYN;
        return {
          cost: rAdd(o.cost, k === 'map' || k === 'object' ? ONE : ZERO),
          type: t,
          path: [...(o.path ?? []), field],
        };
      }
      case '[]': {
        const [operand, index] = a as [unknown, unknown];
        const o = this.cost(operand);
        const i = this.cost(index);
        const k = o.type.kind;
        if (k !== 'list' && k !== 'map' && k !== 'dyn') throw new NotEstimated(`index of ${k}`);
        // on dyn both index_list and index_map fit (an int index); the last one's path is kept
        return {
          cost: rAdd(rAdd(o.cost, i.cost), ONE),
          type: o.type.elem ?? DYN,
          path: [...(o.path ?? []), k === 'list' ? '@items' : '@values'],
        };
      }
      case 'list': {
        const els = (a as unknown[]).map((e) => this.cost(e));
        const cost = els.reduce((s, e) => rAdd(s, e.cost), ZERO);
        return {
          cost: rAdd(cost, exact(10n)),
          type: { kind: 'list', max: 0n, elem: els[0]?.type ?? DYN },
          size: exact(BigInt(els.length)),
        };
      }
      case 'map': {
        const entries = a as [unknown, unknown][];
        let cost = ZERO;
        let key: Decl = DYN;
        let elem: Decl = DYN;
        entries.forEach(([k, v], i) => {
          const ek = this.cost(k);
          const ev = this.cost(v);
          cost = rAdd(rAdd(cost, ek.cost), ev.cost);
          if (i === 0) [key, elem] = [ek.type, ev.type];
        });
        return {
          cost: rAdd(cost, exact(30n)),
          type: { kind: 'map', max: 0n, key, elem },
          size: exact(BigInt(entries.length)),
        };
      }
      case '&&':
      case '||': {
        const [l, r] = (a as unknown[]).map((e) => this.cost(e)) as [Est, Est];
        return { cost: { min: l.cost.min, max: add(l.cost.max, r.cost.max) }, type: simple('bool') };
      }
      case '?:': {
        const [c, t, f] = (a as unknown[]).map((e) => this.cost(e)) as [Est, Est, Est];
        return {
          cost: rAdd(c.cost, rUnion(t.cost, f.cost)),
          type: t.type.kind === 'dyn' || t.type.kind === 'null' ? f.type : t.type,
          size: rUnion(this.size(t), this.size(f)),
        };
      }
      case 'call':
        return this.call(x, a as [string, unknown[]]);
      case 'rcall': {
        const [fn, target, args] = a as [string, unknown, unknown[]];
        if (['all', 'exists', 'exists_one', 'map', 'filter'].includes(fn))
          return this.macro(fn, target, args);
        return this.call(x, [fn, args], target);
      }
      default: {
        // cel-go parses a negative number as one literal
        if (
          x.op === '-_' &&
          isNode(a) &&
          a.op === 'value' &&
          (typeof a.args === 'bigint' || typeof a.args === 'number')
        )
          return this.literal(a.args);
        const operands = Array.isArray(a) ? (a as unknown[]) : [a];
        return this.call(x, [x.op, operands]);
      }
    }
  }

  /** A call: its target's cost, its arguments', and the function's (`costCall`, `functionCost`). */
  private call(x: Node, [fn, rawArgs]: [string, unknown[]], rawTarget?: unknown): Est {
    if (fn === 'has' && x.meta?.macro !== undefined) return { cost: ZERO, type: simple('bool') };
    const args = rawArgs.map((e) => this.cost(e));
    const target = rawTarget === undefined ? undefined : this.cost(rawTarget);
    const argSum = args.reduce((s, e) => rAdd(s, e.cost), ZERO);
    const withTarget = (c: Range): Range => (target ? rAdd(target.cost, c) : c);
    const type = resultType(fn, target, args);
    // apiextensions-apiserver's library (`EstimateCallCost`), by function name; no result size
    const lib = this.library(fn, target, args);
    if (lib) return { cost: withTarget(rAdd(lib, argSum)), type };
    const kinds = args.map((e) => e.type.kind);
    const costs: Range[] = [];
    let size: Range | undefined;
    const one = (): void => {
      costs.push(rAdd(ONE, argSum));
    };
    const compare = (): void => {
      const l = this.size(args[0] as Est);
      const r = this.size(args[1] as Est);
      const smallest = l.max < r.max ? l.max : r.max;
      costs.push(rAdd(rFactor({ min: smallest > 0n ? 1n : 0n, max: smallest }, TRAVERSAL), argSum));
    };
    switch (fn) {
      case '==':
      case '!=':
        compare();
        break;
      case '<':
      case '<=':
      case '>':
      case '>=': {
        const sized = (k: Decl['kind'] | undefined): boolean => k === 'string' || k === 'bytes';
        const [l, r] = kinds;
        if (l === 'dyn' && r === 'dyn') {
          compare();
          one();
        } else if ((sized(l) && (r === l || r === 'dyn')) || (sized(r) && l === 'dyn')) compare();
        else one();
        break;
      }
      case '+': {
        const l = this.size(args[0] as Est);
        const r = this.size(args[1] as Est);
        const sum = rAdd(l, r);
        const dyn = kinds[0] === 'dyn' && kinds[1] === 'dyn';
        const k = kinds[0] === 'dyn' ? kinds[1] : kinds[0];
        if (dyn || k === 'string' || k === 'bytes') {
          costs.push(rAdd(rFactor(sum, TRAVERSAL), argSum));
          size = sum;
        }
        if (dyn || k === 'list') {
          costs.push(rAdd(ONE, argSum));
          size = sum;
        }
        if (dyn || !(k === 'string' || k === 'bytes' || k === 'list')) one();
        break;
      }
      case 'in': {
        const k = kinds[1];
        if (k === 'list' || k === 'dyn') costs.push(rAdd(this.size(args[1] as Est), argSum));
        if (k !== 'list') one();
        break;
      }
      case 'startsWith':
      case 'endsWith':
        if (target && args.length === 1)
          costs.push(rAdd(rFactor(this.size(args[0] as Est), TRAVERSAL), argSum));
        else one();
        break;
      case 'bytes':
      case 'string': {
        const from = fn === 'bytes' ? 'string' : 'bytes';
        if (!target && args.length === 1 && (kinds[0] === from || kinds[0] === 'dyn'))
          costs.push(rAdd(rFactor(this.size(args[0] as Est), TRAVERSAL), argSum));
        if (target || args.length !== 1 || kinds[0] !== from) one();
        break;
      }
      case 'matches':
        if (target && args.length === 1) {
          const str = rFactor(rAdd(this.size(target), ONE), TRAVERSAL);
          const re = rFactor(this.size(args[0] as Est), REGEX);
          costs.push(rAdd(rMul(str, re), argSum));
        } else one();
        break;
      case 'contains':
        if (target && args.length === 1) {
          const str = rFactor(this.size(target), TRAVERSAL);
          const sub = rFactor(this.size(args[0] as Est), TRAVERSAL);
          costs.push(rAdd(rMul(str, sub), argSum));
        } else one();
        break;
      default:
        if (!KNOWN_O1.has(fn)) throw new NotEstimated(`function ${fn}`);
        one();
    }
    const cost = costs.reduce((u, c) => ({
      min: u.min < c.min ? u.min : c.min,
      max: u.max > c.max ? u.max : c.max,
    }));
    return { cost: withTarget(cost), type, ...(size ? { size } : {}) };
  }

  /** `library.CostEstimator.EstimateCallCost`, without the arguments' costs. */
  private library(fn: string, target: Est | undefined, args: Est[]): Range | undefined {
    switch (fn) {
      case 'isSorted':
      case 'sum':
      case 'max':
      case 'min':
      case 'indexOf':
      case 'lastIndexOf': {
        if (!target) return undefined;
        const el = listElement(target);
        if (!el) return rFactor(this.size(target), TRAVERSAL);
        let elCost = ONE;
        if (el.type.kind === 'string' || el.type.kind === 'bytes')
          elCost = rAdd(elCost, rFactor(this.size(el), TRAVERSAL));
        return rMul(this.size(target), elCost);
      }
      case 'url':
        return args.length === 1 ? rFactor(this.size(args[0] as Est), TRAVERSAL) : undefined;
      case 'lowerAscii':
      case 'upperAscii':
      case 'substring':
      case 'trim':
        return target ? rFactor(this.size(target), TRAVERSAL) : undefined;
      case 'replace':
        return target && args.length >= 2 ? rFactor(this.size(target), 2 * TRAVERSAL) : undefined;
      case 'split':
        return target ? rFactor(this.size(target), 2 * TRAVERSAL) : undefined;
      case 'join': {
        if (!target) return undefined;
        let sz = ZERO;
        const list = this.size(target);
        const el = listElement(target);
        if (el) sz = rMul(list, this.size(el));
        if (args.length > 0) {
          const sep = this.size(args[0] as Est);
          sz = rAdd(
            sz,
            rMul(sep, { min: list.min > 0n ? list.min - 1n : 0n, max: list.max > 0n ? list.max - 1n : 0n }),
          );
        }
        return rFactor(sz, TRAVERSAL);
      }
      case 'find':
      case 'findAll': {
        if (!target || args.length < 1) return undefined;
        const str = rFactor(rAdd(this.size(target), ONE), TRAVERSAL);
        return rMul(str, rFactor(this.size(args[0] as Est), REGEX));
      }
      default:
        return undefined;
    }
  }

  /** A macro as cel-go v0.10.1 expands it: a fold over its range (`costComprehension`). */
  private macro(fn: string, rawTarget: unknown, rawArgs: unknown[]): Est {
    const [v, ...rest] = rawArgs;
    if (!isNode(v) || v.op !== 'id') throw new NotEstimated('macro variable');
    const name = v.args as string;
    const range = this.cost(rawTarget);
    const scope = this.scopes.get(name) ?? [];
    this.scopes.set(name, [...scope, range]);
    let init: Range;
    let cond: Range;
    let step: Range;
    let result: Range;
    let type: Decl = simple('bool');
    const accu = ONE;
    try {
      const bodies = rest.map((e) => this.cost(e));
      const body = bodies[bodies.length - 1] as Est;
      switch (fn) {
        case 'all':
        case 'exists':
          init = ZERO;
          // @not_strictly_false(__result__) / @not_strictly_false(!__result__)
          cond = fn === 'all' ? exact(2n) : exact(3n);
          step = { min: accu.min, max: add(accu.max, body.cost.max) };
          result = accu;
          break;
        case 'exists_one':
          init = ZERO;
          cond = ZERO;
          // pred ? __result__ + 1 : __result__
          step = rAdd(body.cost, rUnion(exact(2n), accu));
          // __result__ == 1
          result = exact(2n);
          break;
        case 'map':
        case 'filter': {
          init = exact(10n);
          cond = ZERO;
          // __result__ + [f]   (filter: [x])
          const push = rAdd(exact(2n), rAdd(fn === 'map' ? body.cost : ONE, exact(10n)));
          const filter = fn === 'filter' ? bodies[0] : bodies.length === 2 ? bodies[0] : undefined;
          step = filter ? rAdd(filter.cost, rUnion(push, accu)) : push;
          result = accu;
          type = {
            kind: 'list',
            max: 0n,
            elem: fn === 'map' ? body.type : range.type.kind === 'list' ? (range.type.elem ?? DYN) : DYN,
          };
          break;
        }
        default:
          throw new NotEstimated(fn);
      }
    } finally {
      this.scopes.set(name, scope);
    }
    const count = this.size(range);
    const cost = rAdd(rAdd(rAdd(range.cost, init), result), rMul(count, rAdd(step, cond)));
    return { cost, type };
  }
}

/** `listElementNode`: the items of a list, with their path when the list has one. */
function listElement(list: Est): Est | undefined {
  if (list.type.kind !== 'list') return undefined;
  return {
    cost: ZERO,
    type: list.type.elem ?? DYN,
    ...(list.path ? { path: [...list.path, '@items'] } : {}),
  };
}

/** Functions whose cost is cel-go's O(1) unit (plus their arguments). */
const KNOWN_O1 = new Set([
  '!_',
  '-_',
  '-',
  '*',
  '/',
  '%',
  'size',
  'int',
  'uint',
  'double',
  'bool',
  'type',
  'dyn',
  'duration',
  'timestamp',
  'getDate',
  'getDayOfMonth',
  'getDayOfWeek',
  'getDayOfYear',
  'getFullYear',
  'getHours',
  'getMilliseconds',
  'getMinutes',
  'getMonth',
  'getSeconds',
  'charAt',
  'isURL',
  'getScheme',
  'getHost',
  'getHostname',
  'getPort',
  'getEscapedPath',
  'getQuery',
]);

const RESULT: Record<string, Decl['kind']> = {
  size: 'int',
  int: 'int',
  uint: 'uint',
  double: 'double',
  bool: 'bool',
  string: 'string',
  bytes: 'bytes',
  duration: 'duration',
  timestamp: 'timestamp',
  lowerAscii: 'string',
  upperAscii: 'string',
  replace: 'string',
  substring: 'string',
  trim: 'string',
  join: 'string',
  find: 'string',
  charAt: 'string',
  indexOf: 'int',
  lastIndexOf: 'int',
};

function resultType(fn: string, target: Est | undefined, args: Est[]): Decl {
  const kind = RESULT[fn];
  if (kind) return simple(kind);
  switch (fn) {
    case '+':
    case '-':
    case '*':
    case '/':
    case '%':
    case '-_': {
      const l = args[0]?.type;
      return l && l.kind !== 'dyn' ? l : (args[1]?.type ?? DYN);
    }
    case 'split':
    case 'findAll':
      return { kind: 'list', max: 0n, elem: simple('string') };
    case 'sum':
    case 'min':
    case 'max':
      return target?.type.elem ?? DYN;
    case 'dyn':
      return DYN;
    default:
      return [
        'startsWith',
        'endsWith',
        'contains',
        'matches',
        'isSorted',
        'in',
        '!_',
        '==',
        '!=',
        '<',
        '<=',
        '>',
        '>=',
      ].includes(fn) || fn.startsWith('is')
        ? simple('bool')
        : DYN;
  }
}
