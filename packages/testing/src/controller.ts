/**
 * `@rxkube/testing/controller`: what a test of code built on `@rxkube/kube` needs without an API
 * server — objects and watch events for marbles, a `WatchRegistry` of scripted watches, and a stub
 * `Client` that records writes and answers reads. `@rxkube/kube` is an (optional) peer dependency
 * of `@rxkube/testing`: this entry needs it; the API server (`@rxkube/testing`) does not.
 *
 * @module @rxkube/testing/controller
 */
export { ownedBy, listed, testObject, watchEvent } from './controller/watch-events.js';
export { ScriptedWatchRegistry } from './controller/scripted-watch-registry.js';
export type { WatchScript } from './controller/scripted-watch-registry.js';
export { stubClient } from './controller/stub-client.js';
export type { StubClient, StubClientOptions, StubWrite } from './controller/stub-client.js';
