/**
 * The API requests of one unit of work (a reconcile), seen by whoever started it: an
 * `AsyncLocalStorage` holding a hook that {@link HttpTransport.request} calls per request. Empty
 * unless tracing is on: then `getStore()` is the only cost of a request.
 *
 * @module
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Called when a request starts (`method`, absolute `url`); returns what is called once it ends,
 * with the HTTP status when one came and the error when it failed.
 */
export type RequestObserver = (
  method: string,
  url: URL,
) => ((status: number | undefined, error?: unknown) => void) | undefined;

const scope = new AsyncLocalStorage<RequestObserver>();

/** Runs `fn` so that the requests it (and what it schedules) makes are told to `observer`. */
export function withRequestObserver<R>(observer: RequestObserver, fn: () => R): R {
  return scope.run(observer, fn);
}

/** The observer of the work running now, if any. */
export function currentRequestObserver(): RequestObserver | undefined {
  return scope.getStore();
}
