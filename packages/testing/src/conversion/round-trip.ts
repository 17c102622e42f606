/**
 * `checkConversionRoundTrip`: a fast-check property users call in their own tests — every object
 * of a version, converted to every other version of its kind and back, comes back equal. The
 * conversions run as the webhook server runs them (`convertObject` of `@rxkube/kube/webhook`:
 * through the hub, metadata kept, apiVersion set).
 *
 * @module
 */
import type { KubeObject } from '@rxkube/kube';
import type { Conversion } from '@rxkube/kube/webhook';
import { convertObject } from '@rxkube/kube/webhook';
import fc from 'fast-check';

/**
 * Options of {@link checkConversionRoundTrip}.
 *
 * ## Example
 * ```ts
 * import fc from 'fast-check';
 * import type { ConversionRoundTripOptions } from '@rxkube/testing/conversion';
 * const options: ConversionRoundTripOptions = {
 *   group: 'example.com',
 *   kind: 'Gadget',
 *   specs: { v1: fc.record({ size: fc.nat() }) },
 * };
 * ```
 */
export interface ConversionRoundTripOptions {
  /** The kind's API group. */
  readonly group: string;
  readonly kind: string;
  /** An arbitrary of `spec` per version to start from (at least one). */
  readonly specs: Readonly<Record<string, fc.Arbitrary<unknown>>>;
  /** Arbitrary labels and annotations are added to the objects (default true). */
  readonly metadata?: boolean;
  /** Runs per starting version (default 200). */
  readonly numRuns?: number;
}

/**
 * Checks with fast-check that every object of each version in `options.specs`, converted to each
 * other version of the conversion (hub and spokes) and back, is unchanged; throws fast-check's
 * report with the smallest counterexample (the object and the versions) otherwise.
 *
 * ## Example
 * ```ts
 * import fc from 'fast-check';
 * import { checkConversionRoundTrip } from '@rxkube/testing/conversion';
 * import type { Conversion } from '@rxkube/kube/webhook';
 * declare const gadgetConversion: Conversion;
 * checkConversionRoundTrip(gadgetConversion, {
 *   group: 'example.com',
 *   kind: 'Gadget',
 *   specs: { v1: fc.record({ size: fc.nat() }), v2: fc.record({ replicas: fc.nat() }) },
 * });
 * ```
 * @throws {Error} the fast-check report when a round trip changes an object or a conversion throws.
 */
export function checkConversionRoundTrip(conversion: Conversion, options: ConversionRoundTripOptions): void {
  const versions = [conversion.hub, ...Object.keys(conversion.spokes)];
  const starts = Object.entries(options.specs);
  if (starts.length === 0)
    throw new TypeError(
      'checkConversionRoundTrip: options.specs needs an arbitrary for at least one version',
    );
  for (const [version] of starts) {
    if (!versions.includes(version)) {
      throw new TypeError(
        `checkConversionRoundTrip: version ${version} is neither the hub (${conversion.hub}) nor a spoke (${Object.keys(conversion.spokes).join(', ')})`,
      );
    }
  }
  const lookup = (group: string, kind: string): Conversion | undefined =>
    group === options.group && kind === options.kind ? conversion : undefined;
  const labels = fc.dictionary(fc.constantFrom('app', 'tier', 'example.com/x'), fc.string({ maxLength: 8 }), {
    maxKeys: 2,
  });
  for (const [version, spec] of starts) {
    const object = fc.record({
      spec,
      labels: options.metadata === false ? fc.constant({}) : labels,
      annotations: options.metadata === false ? fc.constant({}) : labels,
    });
    const details = fc.check(
      fc.property(object, fc.constantFrom(...versions.filter((v) => v !== version)), (o, other) => {
        const start: KubeObject = {
          apiVersion: `${options.group}/${version}`,
          kind: options.kind,
          metadata: {
            name: 'round-trip',
            namespace: 'default',
            uid: '00000000-0000-0000-0000-000000000001',
            ...(Object.keys(o.labels).length > 0 ? { labels: o.labels } : {}),
            ...(Object.keys(o.annotations).length > 0 ? { annotations: o.annotations } : {}),
          },
          spec: o.spec,
        };
        const there = convertObject(structuredClone(start), `${options.group}/${other}`, lookup);
        const back = convertObject(there, `${options.group}/${version}`, lookup);
        if (!sameJson(back, start)) {
          throw new Error(
            `${options.kind} ${version} → ${other} → ${version} changed the object:\n  start ${JSON.stringify(start)}\n  back  ${JSON.stringify(back)}`,
          );
        }
      }),
      { numRuns: options.numRuns ?? 200 },
    );
    if (details.failed) {
      const error = details.errorInstance;
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`${reason}\n${fc.defaultReportMessage(details)}`, { cause: error });
    }
  }
}

/** Equal as JSON (absent and empty label/annotation maps alike, as the API server stores them). */
function sameJson(a: KubeObject, b: KubeObject): boolean {
  return JSON.stringify(normalise(a)) === JSON.stringify(normalise(b));
}

function normalise(o: unknown): unknown {
  if (Array.isArray(o)) return o.map(normalise);
  if (o === null || typeof o !== 'object') return o;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o).sort()) {
    const v = (o as Record<string, unknown>)[k];
    if (v === undefined) continue;
    if (
      (k === 'labels' || k === 'annotations') &&
      typeof v === 'object' &&
      v !== null &&
      Object.keys(v).length === 0
    )
      continue;
    out[k] = normalise(v);
  }
  return out;
}
