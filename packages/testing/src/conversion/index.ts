/**
 * Conversion webhook checks for tests: {@link checkConversionRoundTrip} (needs `fast-check` and
 * `@rxkube/kube`).
 *
 * @module @rxkube/testing/conversion
 */
export { checkConversionRoundTrip } from './round-trip.js';
export type { ConversionRoundTripOptions } from './round-trip.js';
