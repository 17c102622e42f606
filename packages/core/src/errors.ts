/**
 * Reconcile errors: {@link TerminalError} (do not retry) and {@link ReconcileError} (what the
 * applier reports for any other failure), plus {@link toReconcileError}, which turns whatever user
 * code threw into a `ReconcileError` exactly once.
 *
 * @module
 */

/**
 * A reconcile failure that must not be retried (controller-runtime's `reconcile.TerminalError`):
 * the input is invalid and only a change to the object can fix it. The {@link applier} reports it
 * with outcome `'terminal'`, forgets the key's backoff and does not requeue; the next change to the
 * object triggers a fresh reconcile as usual.
 *
 * Recognised by its `_tag` (so it also works across duplicated copies of this package), anywhere in
 * a `cause` chain: `new Error('sync failed', { cause: new TerminalError(...) })` is terminal too.
 *
 * ## Example
 * ```ts
 * const spec: { image?: string } = {};
 * if (!spec.image) throw new TerminalError('default/web: spec.image is empty; set spec.image');
 * ```
 */
export class TerminalError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'TerminalError' as const;
  override readonly name = 'TerminalError';
  /** The underlying failure, if any. */
  override readonly cause: unknown;

  /**
   * @param message what failed, on which object, and what the user must change.
   * @param cause the underlying error, kept as is.
   */
  constructor(message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause });
    this.cause = cause;
  }
}

/**
 * Whether `value` is a {@link TerminalError} (checked by `_tag`, not `instanceof`).
 *
 * ## Example
 * ```ts
 * catchError((e) => (isTerminalError(e) ? EMPTY : throwError(() => e)))
 * ```
 */
export function isTerminalError(value: unknown): value is TerminalError {
  return (
    value !== null && typeof value === 'object' && (value as { _tag?: unknown })._tag === 'TerminalError'
  );
}

/**
 * A reconcile of `key` failed and will be retried with backoff. `cause` is exactly what the
 * reconcile threw (an `Error`, a string, any value); `message` names the key and the cause.
 *
 * ## Example
 * ```ts
 * of('default/web')
 *   .pipe(
 *     applier((name) => name, () => throwError(() => new Error('bucket busy'))),
 *     filter((r) => r.outcome === 'error'),
 *   )
 *   .subscribe((r) => console.warn(r.error?.message)); // default/web: bucket busy
 * ```
 */
export class ReconcileError<K = unknown> extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'ReconcileError' as const;
  override readonly name = 'ReconcileError';
  /** The key whose reconcile failed. */
  readonly key: K;
  /** What the reconcile threw, unchanged. */
  override readonly cause: unknown;

  /**
   * @param key the key whose reconcile failed.  @param cause what was thrown.
   * @param message defaults to `reconcile of <key> failed: <description of cause>`.
   */
  constructor(
    key: K,
    cause: unknown,
    message = `reconcile of ${formatKey(key)} failed: ${describeThrown(cause)}`,
  ) {
    super(message, { cause });
    this.key = key;
    this.cause = cause;
  }
}

/**
 * Normalises anything a reconcile threw into a {@link ReconcileError} for `key`, once: a
 * `ReconcileError` for the same key is returned as is, everything else (an `Error` of any class, a
 * string, a plain object, `undefined`) becomes the `cause` of a new one whose message describes it.
 *
 * ## Example
 * ```ts
 * toReconcileError('default/web', new TypeError('x is undefined')).message
 * // 'reconcile of "default/web" failed: TypeError: x is undefined'
 * toReconcileError('default/web', 'boom').cause // 'boom'
 * ```
 * @param key the key whose reconcile failed.  @param thrown the thrown value, unchanged.
 */
export function toReconcileError<K>(key: K, thrown: unknown): ReconcileError<K> {
  if (thrown instanceof ReconcileError && Object.is(thrown.key, key)) return thrown as ReconcileError<K>;
  return new ReconcileError(key, thrown);
}

/**
 * Returns the first {@link TerminalError} in `thrown`'s `cause` chain (itself included), or
 * `undefined`; like Go's `errors.As`. Looks at most 16 levels deep (cause chains can be cyclic).
 *
 * ## Example
 * ```ts
 * findTerminalError(new Error('apply failed', { cause: new TerminalError('bad spec') }))?.message // 'bad spec'
 * ```
 */
export function findTerminalError(thrown: unknown): TerminalError | undefined {
  let current = thrown;
  for (let depth = 0; depth < 16 && current !== null && typeof current === 'object'; depth += 1) {
    if (isTerminalError(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A key as it appears in messages: strings quoted, other values JSON or `String()`. */
function formatKey(key: unknown): string {
  if (typeof key === 'string') return JSON.stringify(key);
  if (typeof key === 'object' && key !== null) {
    try {
      return JSON.stringify(key);
    } catch {
      return Object.prototype.toString.call(key);
    }
  }
  if (typeof key === 'function') return '[function]';
  if (typeof key === 'symbol') return key.toString();
  if (typeof key === 'number' || typeof key === 'bigint' || typeof key === 'boolean') return key.toString();
  return key === null ? 'null' : 'undefined';
}

/** A one-line description of a thrown value, for messages. */
function describeThrown(thrown: unknown): string {
  if (thrown instanceof Error) {
    const message = thrown.message === '' ? '(no message)' : thrown.message;
    return thrown.name === 'Error' ? message : `${thrown.name}: ${message}`;
  }
  if (typeof thrown === 'string') return thrown === '' ? 'an empty string was thrown' : thrown;
  if (thrown === undefined || thrown === null) {
    return `${String(thrown)} was thrown (throw an Error with a message to make this actionable)`;
  }
  if (typeof thrown === 'object') {
    const message = (thrown as { message?: unknown }).message;
    if (typeof message === 'string' && message !== '') return message;
    try {
      const json = JSON.stringify(thrown);
      if (json !== undefined) return `non-Error value thrown: ${truncate(json)}`;
    } catch {
      // cyclic or BigInt-holding objects: fall through
    }
    return `non-Error value thrown: ${Object.prototype.toString.call(thrown)}`;
  }
  if (typeof thrown === 'function') return 'a function was thrown';
  const primitive = thrown as number | bigint | boolean | symbol;
  return `non-Error value thrown: ${primitive.toString()}`;
}

function truncate(text: string, max = 200): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}
