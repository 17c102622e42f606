/**
 * `UserCodeError`: a function the operator author wrote threw (or returned something unusable)
 * while rxkube ran it for one object. It names the hook, the controller and the key, and keeps
 * what was thrown as `cause`. Such an error fails only the object it ran for (docs/promises.md
 * promise 11): it is logged once, counted (`rxkube_user_code_errors_total{controller,hook}`) and,
 * where a retry can help, retried with the key's backoff.
 *
 * @module
 */

/**
 * Which user-supplied function failed.
 *
 * ## Example
 * ```ts
 * if (isUserCodeError(error) && error.hook === 'map') console.warn('a watches[].map threw', error.key);
 * ```
 */
export type UserCodeHook =
  'reconcile' | 'map' | 'predicate' | 'indexer' | 'transform' | 'cleanup' | 'status' | 'record';

/**
 * Every {@link UserCodeHook}, in a stable order (metrics initialise one series each).
 *
 * ## Example
 * ```ts
 * import { Counter } from 'prom-client';
 *
 * const userCodeErrors = new Counter({ name: 'widget_user_code_errors_total', help: 'User code that failed', labelNames: ['controller', 'hook'] });
 * for (const hook of USER_CODE_HOOKS) userCodeErrors.inc({ controller: 'widgets', hook }, 0); // one series each
 * ```
 */
export const USER_CODE_HOOKS: readonly UserCodeHook[] = Object.freeze([
  'reconcile',
  'map',
  'predicate',
  'indexer',
  'transform',
  'cleanup',
  'status',
  'record',
]);

const WHAT_NEXT: Readonly<Record<UserCodeHook, string>> = {
  reconcile:
    'the reconcile must return an ObservableInput of one Action (e.g. `of(Action.awaitChange())`) and report failures through it; it is retried with backoff',
  map: 'the watches[].map function must return an array of { namespace?, name }; it is retried with backoff for this object',
  predicate:
    'the predicate failed for this object, which was let through (a reconcile is never lost to a broken filter)',
  indexer:
    'the indexer must return an array of strings; this object is missing from that index until its next change',
  transform: 'the transform must return an object; this object is stored as received',
  cleanup: "the finalizer's cleanup failed synchronously; it is retried with backoff",
  status: 'the status recipe failed; the reconcile is retried with backoff',
  record: 'the Event could not be built; nothing was recorded',
};

/**
 * A user-supplied function failed for one object.
 *
 * ## Example
 * ```ts
 * controller({ for: widgetType, client }).run(reconcile).subscribe((r) => {
 *   if (isUserCodeError(r.error?.cause)) console.error(r.error.cause.hook, r.error.cause.key);
 * });
 * ```
 */
export class UserCodeError extends Error {
  /** Discriminant for tagged-error matching (works across copies of this package). */
  readonly _tag = 'UserCodeError' as const;
  override readonly name = 'UserCodeError';
  /** What was thrown, unchanged. */
  override readonly cause: unknown;

  /**
   * @param hook the function that failed.  @param cause what it threw.
   * @param where the controller and the key (or object) it ran for, when known.
   */
  constructor(
    readonly hook: UserCodeHook,
    cause: unknown,
    readonly where: { readonly controller?: string; readonly key?: string } = {},
  ) {
    const at = [
      where.controller !== undefined ? `controller ${where.controller}` : undefined,
      where.key !== undefined ? `"${where.key}"` : undefined,
    ]
      .filter((s) => s !== undefined)
      .join(', ');
    super(`${hook} threw${at === '' ? '' : ` for ${at}`}: ${describe(cause)} — ${WHAT_NEXT[hook]}`, {
      cause,
    });
    this.cause = cause;
  }

  /** The controller it ran for, when known. */
  get controller(): string | undefined {
    return this.where.controller;
  }

  /** The key (`namespace/name`) it ran for, when known. */
  get key(): string | undefined {
    return this.where.key;
  }
}

/**
 * Whether `e` is a {@link UserCodeError} (by `_tag`, so it works across package copies).
 *
 * ## Example
 * ```ts
 * if (isUserCodeError(error)) console.error(`the ${error.hook} hook threw`, error.cause);
 * ```
 */
export function isUserCodeError(e: unknown): e is UserCodeError {
  return e !== null && typeof e === 'object' && (e as { _tag?: unknown })._tag === 'UserCodeError';
}

function describe(thrown: unknown): string {
  if (thrown instanceof Error)
    return thrown.name === 'Error' ? thrown.message : `${thrown.name}: ${thrown.message}`;
  if (typeof thrown === 'string') return thrown;
  try {
    return JSON.stringify(thrown) ?? String(thrown);
  } catch {
    return Object.prototype.toString.call(thrown);
  }
}
