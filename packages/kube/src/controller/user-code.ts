/**
 * Isolation of the functions operator authors write (docs/promises.md promise 11): each failure becomes a
 * {@link UserCodeError} that fails only the object it ran for, is logged once (controller, key,
 * hook) and counted; the pipeline around it keeps running.
 *
 * @module
 */
import { Observable, Subject } from 'rxjs';
import type { MonoTypeOperatorFunction, Subscription } from 'rxjs';

import { isUserCodeError, UserCodeError } from '../user-code-error.js';
import type { UserCodeHook } from '../user-code-error.js';
import type { ControllerLogger, ControllerObserver } from './options.js';

/** Reports one user-code failure: counted, and logged unless the reconcile's result carries it. */
export interface UserCodeReporter {
  /** Counts `error` and logs it (hooks that do not fail a reconcile: map, predicate, indexer, …). */
  (error: UserCodeError): void;
  /** Counts `error` without logging it (the reconcile's result line will name it). */
  count(error: UserCodeError): void;
  /** A reconcile "panicked": it threw synchronously (`observer.panicked`). */
  panic(): void;
}

/**
 * A reporter that logs at `error` with `{ controller, key, hook }` and calls
 * `observer.userCodeError(hook)`.
 */
export function userCodeReporter(
  controller: string | undefined,
  log: ControllerLogger,
  observer: ControllerObserver | undefined,
): UserCodeReporter {
  const count = (error: UserCodeError): void => observer?.userCodeError?.(error.hook);
  const report = (error: UserCodeError): void => {
    count(error);
    log.error?.(error.message, {
      ...(controller !== undefined ? { controller } : {}),
      ...(error.key !== undefined ? { key: error.key } : {}),
      hook: error.hook,
      error: error.cause,
    });
  };
  return Object.assign(report, { count, panic: () => observer?.panicked?.() });
}

/** `thrown` as a {@link UserCodeError} of `hook` for `key` (kept when it already names its controller). */
export function asUserCodeError(
  hook: UserCodeHook,
  thrown: unknown,
  key: string | undefined,
  controller: string | undefined,
): UserCodeError {
  const known = isUserCodeError(thrown) ? thrown : undefined;
  if (known !== undefined && (known.controller !== undefined || controller === undefined)) return known;
  const at = known?.key ?? key;
  return new UserCodeError(known?.hook ?? hook, known !== undefined ? known.cause : thrown, {
    ...(controller !== undefined ? { controller } : {}),
    ...(at !== undefined ? { key: at } : {}),
  });
}

/**
 * Runs a predicate operator so that its failure fails only the value it was judging: that value is
 * let through (a filter that cannot decide must not lose a reconcile), `onError` is told, and the
 * predicate is subscribed afresh (its memory starts over) for the next values.
 *
 * ## Semantics
 * - Values are fed one at a time; an error thrown while judging one is attributed to it. An
 *   error of the predicate's own timers (no value being judged) is reported without a value.
 * - complete / error of the source: forwarded. unsubscribe: both sides released.
 */
export function isolatePredicate<T>(
  predicate: MonoTypeOperatorFunction<T>,
  onError: (error: unknown, value: T | undefined) => void,
): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      let input: Subject<T>;
      let inner: Subscription | undefined;
      let judging: { readonly value: T } | undefined;
      const connect = (): void => {
        input = new Subject<T>();
        inner = input.pipe(predicate).subscribe({
          next: (value) => subscriber.next(value),
          error: (error: unknown) => {
            const failed = judging;
            judging = undefined;
            onError(error, failed?.value);
            if (failed !== undefined) subscriber.next(failed.value);
            connect();
          },
          complete: () => subscriber.complete(),
        });
      };
      connect();
      const upstream = source.subscribe({
        next: (value) => {
          judging = { value };
          try {
            input.next(value);
          } finally {
            judging = undefined;
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => input.complete(),
      });
      return () => {
        upstream.unsubscribe();
        inner?.unsubscribe();
      };
    });
}
