/**
 * The estimated cost of a CRD's validation rules, checked when the CRD is written, as
 * kube-apiserver v1.24 checks it:
 *
 * - each rule's worst case is cel-go v0.10.1's static estimate (`checker/cost.go`), with
 *   apiextensions-apiserver v0.24.0's library costs (`schema/cel/library/cost.go`
 *   `EstimateCallCost`) and sizes from the schema (`schema/cel/compilation.go` `sizeEstimator`,
 *   `third_party/forked/celopenapi/model/schemas.go` `SchemaDeclType`: `maxItems`,
 *   `maxProperties`, `maxLength` (×4 for strings), else what fits in a 3 MiB request);
 * - it is multiplied by the rule's cardinality: the product of the `maxItems`/`maxProperties` of
 *   the lists and maps above it, or, where one is unbounded, how many of the rule's node fit in a
 *   3 MiB request (`MaxCardinality`);
 * - a rule above 10,000,000 is refused, and a CRD whose rules add up to more than 100,000,000
 *   (`pkg/apis/apiextensions/validation/validation.go`), with kube-apiserver's messages.
 *
 * Macros are costed as cel-go v0.10.1's parser expands them (`parser/macro.go`). The arithmetic
 * is cel-go's: unsigned 64-bit, saturating; cost factors rounded up.
 *
 * @module @rxkube/cel/estimate
 */
import { Environment } from '@marcbachmann/cel-js';

import { add, Coster, type Decl, declOf, isObj, MAX, minSizeJSON, mul, num, REQUEST } from './estimator.js';
import type { CelSchema } from './schema.js';

/**
 * `StaticEstimatedCostLimit`: the most one rule may cost, times its cardinality.
 *
 * ## Example
 * ```ts
 * import { estimateRuleCost, STATIC_ESTIMATED_COST_LIMIT } from '@rxkube/cel/estimate';
 *
 * const cost = estimateRuleCost('self.all(x, x > 0)', { type: 'array', items: { type: 'integer' } }, false);
 * const refused = cost !== undefined && cost > STATIC_ESTIMATED_COST_LIMIT;
 * ```
 */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000n;
/**
 * `StaticEstimatedCRDCostLimit`: the most a CRD's rules may cost together.
 *
 * ## Example
 * ```ts
 * import { STATIC_ESTIMATED_CRD_COST_LIMIT } from '@rxkube/cel/estimate';
 *
 * const total = 104_775_022n;
 * const refused = total > STATIC_ESTIMATED_CRD_COST_LIMIT; // true
 * ```
 */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000n;

let parser: Environment | undefined;

/**
 * cel-go's estimated worst-case cost (`MaxCost`) of `rule` on a schema node (`root`: the CRD's
 * root schema), as kube-apiserver v1.24 computes it when the CRD is written; `undefined` when the
 * rule does not parse or uses what the estimator does not know (then it is not refused for its
 * cost).
 *
 * ## Example
 * ```ts
 * import { estimateRuleCost } from '@rxkube/cel/estimate';
 *
 * // 1048575 strings fit in a 3 MiB request: each costs 5
 * estimateRuleCost('self.all(x, x.startsWith("a"))', { type: 'array', items: { type: 'string' } }, false); // 5242877n
 * ```
 */
export function estimateRuleCost(rule: string, schema: CelSchema, root: boolean): bigint | undefined {
  const decl = declOf(schema, root);
  if (!decl) return undefined;
  parser ??= new Environment({ enableOptionalTypes: true })
    .registerVariable('self', 'dyn')
    .registerVariable('oldSelf', 'dyn');
  try {
    const parsed = parser.parse(rule) as unknown as { ast: unknown };
    const vars = new Map<string, Decl>([
      ['self', decl],
      ['oldSelf', decl],
    ]);
    return new Coster(vars, (path) => schemaSize(decl, path)).cost(parsed.ast).cost.max;
  } catch {
    return undefined;
  }
}

/** `sizeEstimator.EstimateSize`: walk the path from the rule's node (the first element is a variable). */
function schemaSize(root: Decl, path: string[]): { min: bigint; max: bigint } | undefined {
  let at: Decl | undefined = root;
  for (const name of path.slice(1)) {
    if (name === '@items' || name === '@values') at = at.elem;
    else if (name === '@keys') at = at.key;
    else at = at.fields?.get(name);
    if (!at) return undefined;
  }
  return { min: 0n, max: at.max };
}

/**
 * `MaxCardinality`: how many of a node fit in a 3 MiB request, the times a rule under an
 * unbounded list or map is counted.
 *
 * ## Example
 * ```ts
 * import { maxCardinality } from '@rxkube/cel/estimate';
 *
 * maxCardinality({ type: 'string' }); // 1048576n: `"",` is 3 bytes
 * ```
 */
export function maxCardinality(schema: CelSchema): bigint {
  return REQUEST / (minSizeJSON(schema) + 1n);
}

/**
 * A refusal for a rule's or a CRD's estimated cost (`field.Forbidden`).
 *
 * ## Example
 * ```ts
 * import type { CostCause } from '@rxkube/cel/estimate';
 *
 * const cause: CostCause = {
 *   field: 'spec.validation.openAPIV3Schema',
 *   message: 'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema exceeds budget by factor of more than 100x (…)',
 * };
 * ```
 */
export interface CostCause {
  /** The field path, e.g. `spec.validation.openAPIV3Schema.x-kubernetes-validations[0].rule`. */
  field: string;
  /** kube-apiserver's detail (without `Forbidden: `). */
  message: string;
}

/**
 * kube-apiserver's message for a cost above its limit (`getCostErrorMessage`): the factor as
 * `more than 100x`, to one decimal, or to six below 1.5.
 *
 * ## Example
 * ```ts
 * import { costErrorMessage } from '@rxkube/cel/estimate';
 *
 * costErrorMessage('estimated rule cost', 10_000_002n, 10_000_000n);
 * // 'estimated rule cost exceeds budget by factor of 1.000000x (try simplifying the rule, …)'
 * ```
 */
export function costErrorMessage(name: string, cost: bigint, limit: bigint): string {
  const f = Number(cost) / Number(limit);
  const by = f > 100 ? 'more than 100x' : f < 1.5 ? `${f.toFixed(6)}x` : `${f.toFixed(1)}x`;
  return `${name} exceeds budget by factor of ${by} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}

/** `extractMaxElements`; undefined: unbounded. */
function maxElements(s: CelSchema): bigint | undefined {
  if (s.type === 'object') {
    if (s.additionalProperties !== undefined) return num(s['maxProperties']);
    return 1n;
  }
  if (s.type === 'array') return num(s['maxItems']);
  return 1n;
}

/**
 * The refusals of a CRD version's schema for its rules' estimated cost, as kube-apiserver v1.24
 * gives them (`ValidateCustomResourceDefinitionOpenAPISchema`): each rule above
 * {@link STATIC_ESTIMATED_COST_LIMIT} (its cost times its cardinality), and, when the rules add
 * up to more than {@link STATIC_ESTIMATED_CRD_COST_LIMIT}, the (up to four) dearest rules of at
 * least 1 % of it and the schema itself. `compiles(rule, node, root)` says whether a rule compiled
 * (a rule that does not costs nothing).
 *
 * ## Example
 * ```ts
 * import { estimatedCostCauses } from '@rxkube/cel/estimate';
 *
 * const causes = estimatedCostCauses(
 *   { type: 'array', items: { type: 'string' }, 'x-kubernetes-validations': [{ rule: 'self.all(x, self.all(y, x == y))' }] },
 *   'spec.validation.openAPIV3Schema',
 * );
 * causes.length; // 3
 * ```
 */
export function estimatedCostCauses(
  schema: CelSchema,
  path: string,
  compiles: (rule: string, node: CelSchema, root: boolean) => boolean = () => true,
): CostCause[] {
  const causes: CostCause[] = [];
  let total = 0n;
  const dearest: { field: string; cost: bigint }[] = [];
  const visit = (s: unknown, at: string, card: bigint | undefined, root: boolean): void => {
    if (!isObj(s)) return;
    const child = (c: unknown, where: string): void => {
      const m = maxElements(s);
      visit(c, where, card === undefined || m === undefined ? undefined : mul(card, m), false);
    };
    if (isObj(s.additionalProperties)) child(s.additionalProperties, `${at}.additionalProperties`);
    for (const [k, p] of Object.entries(s.properties ?? {})) child(p, `${at}.properties[${k}]`);
    if (isObj(s.items)) child(s.items, `${at}.items`);
    const rules = s['x-kubernetes-validations'];
    if (!Array.isArray(rules)) return;
    rules.forEach((r: unknown, i) => {
      const field = `${at}.x-kubernetes-validations[${String(i)}].rule`;
      const rule = isObj(r) && typeof r['rule'] === 'string' ? r['rule'] : '';
      const est =
        rule.trim() !== '' && compiles(rule, s, root) ? (estimateRuleCost(rule, s, root) ?? 0n) : 0n;
      const times = card ?? maxCardinality(s);
      const cost = est === 0n ? 0n : MAX / est < times ? MAX : est * times;
      if (cost > STATIC_ESTIMATED_COST_LIMIT)
        causes.push({
          field,
          message: costErrorMessage('estimated rule cost', cost, STATIC_ESTIMATED_COST_LIMIT),
        });
      total = add(total, cost);
      if (cost >= STATIC_ESTIMATED_CRD_COST_LIMIT / 100n) {
        dearest.push({ field, cost });
        dearest.sort((a, b) => (a.cost > b.cost ? -1 : a.cost < b.cost ? 1 : 0));
        dearest.length = Math.min(dearest.length, 4);
      }
    });
  };
  visit(schema, path, 1n, true);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const d of dearest)
      causes.push({
        field: d.field,
        message: 'contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema',
      });
    causes.push({
      field: path,
      message: costErrorMessage(
        'x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema',
        total,
        STATIC_ESTIMATED_CRD_COST_LIMIT,
      ),
    });
  }
  return causes;
}
