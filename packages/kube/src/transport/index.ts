/**
 * HTTP to the API server: requests, response limits, and watch streams decoded line by line into raw
 * watch events.
 *
 * The public names of `transport/`: the entry `@rxkube/kube/transport` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/transport
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export { HttpTransport, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './http-transport.js';
export type { HttpRequest, TransportOptions } from './http-transport.js';
export { DEFAULT_MAX_LINE_BYTES } from './watch-line-decoder.js';
export type { RawWatchEvent, WatchStatus } from './raw-watch-event.js';
