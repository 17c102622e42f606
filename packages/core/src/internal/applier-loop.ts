/**
 * The machinery behind `applier`: argument checks, and the per-subscription loop state (latest
 * value, in-flight flag, rerun flag and timer per key; backoff; token bucket) that turns reconcile
 * outcomes into results and re-emissions.
 *
 * Not exported from the package. `createApplier`'s last parameter is a test-only window on each
 * subscription's loop, used to assert that per-key state is released.
 */
import { Observable, Subject, defer, finalize, from } from 'rxjs';
import type { ObservableInput, OperatorFunction, SchedulerLike, Subscription } from 'rxjs';

import { Action } from '../action.js';
import type { ApplierOptions, ReconcileResult } from '../applier-types.js';
import { DEFAULT_BACKOFF_BASE_MS, PerKeyBackoff } from '../backoff.js';
import type { ReconcileError } from '../errors.js';
import { TerminalError, findTerminalError, isTerminalError, toReconcileError } from '../errors.js';
import { InvalidArgumentError } from '../invalid-argument-error.js';
import { DEFAULT_RATE_LIMIT_BURST, DEFAULT_RATE_LIMIT_QPS, TokenBucket } from '../rate-limiter.js';
import { KeyOfError, runByKey } from '../run-by-key.js';
import type { RunByKeyObserver } from '../run-by-key.js';
import { directObservable, runDirect } from './direct.js';
import { assertFunction, assertOptionalObject, assertScheduler } from './validate.js';

const OPERATOR = 'applier';

/** A value on its way to runByKey, with its key and the loop of the subscription it belongs to. */
interface Trigger<T, K> {
  readonly key: K;
  readonly value: T;
  readonly loop: ApplierLoop<T, K>;
}

/** What a reconcile produced, before it is turned into a result. */
type Raw = { readonly ok: true; readonly action: Action } | { readonly ok: false; readonly thrown: unknown };

/** Per-key bookkeeping; exists from a key's first trigger until it goes idle. */
interface KeyState<T> {
  latest: T;
  /** A reconcile of this key is running (between runByKey starting it and its outcome). */
  inFlight: boolean;
  /** A trigger arrived while in flight: runByKey will rerun the key after this reconcile. */
  rerunPending: boolean;
  /** Pending requeue / retry. */
  timer: Subscription | undefined;
  /** The pending timer is an error retry holding a token of the bucket. */
  reserved: boolean;
}

/** Read-only counters of one subscription's loop, for tests. */
export interface ApplierProbe {
  /** Keys with state (latest value, flags or timer). */
  readonly keys: number;
  /** Pending requeue / retry timers. */
  readonly timers: number;
  /** Keys with a backoff failure count. */
  readonly backoffKeys: number;
}

interface Settings<K> {
  readonly concurrency: number | undefined;
  readonly observer: RunByKeyObserver<K> | undefined;
  readonly backoff: { readonly baseMs?: number; readonly maxMs?: number; readonly jitter?: number };
  readonly rateLimit: { readonly qps: number; readonly burst: number } | Bucket | false;
  readonly random: (() => number) | undefined;
  readonly onPending: ((keys: number) => void) | undefined;
}

/** What the loop needs of a token bucket (a shared `TokenBucket`, checked structurally). */
interface Bucket {
  take(nowMs: number): number;
  restore(nowMs: number): void;
}

function isBucket(value: unknown): value is Bucket {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as Partial<Bucket>).take === 'function' &&
    typeof (value as Partial<Bucket>).restore === 'function'
  );
}

/**
 * Validates the arguments of `applier` (throwing {@link InvalidArgumentError}) and builds it.
 * @param onLoop test-only: receives each subscription's loop.
 */
export function createApplier<T, K>(
  keyOf: (value: T) => K,
  reconcile: (value: T, key: K) => ObservableInput<Action>,
  options: ApplierOptions<K> | undefined,
  scheduler: SchedulerLike,
  onLoop?: (probe: ApplierProbe) => void,
): OperatorFunction<T, ReconcileResult<T, K>> {
  assertFunction(OPERATOR, 'keyOf', keyOf);
  assertFunction(OPERATOR, 'reconcile', reconcile);
  assertScheduler(OPERATOR, 'scheduler', scheduler);
  const settings = validateOptions(options);
  // Built once, so runByKey validates concurrency/observer now; the work reaches the right
  // subscription's loop through the trigger.
  const run = runByKey<Trigger<T, K>, K, ReconcileResult<T, K>>(
    (trigger) => trigger.key,
    (trigger) => trigger.loop.work(trigger),
    {
      ...(settings.concurrency === undefined ? {} : { concurrency: settings.concurrency }),
      ...(settings.observer === undefined ? {} : { observer: settings.observer }),
    },
    scheduler,
  );

  return (source) =>
    defer(() => {
      const loop = new ApplierLoop<T, K>(reconcile, settings, scheduler);
      onLoop?.(loop);
      return triggersOf(source, keyOf, loop).pipe(
        run,
        finalize(() => loop.dispose()),
      );
    });
}

/**
 * The source's values as triggers, merged with the loop's re-emissions, each told to the loop
 * before it goes on: one subscriber for what was map · tap · merge · tap per event (issue 21, the
 * lean event path). Completes once the source completed (which closes the loop, completing its
 * re-emissions); a throwing `keyOf` errors with {@link KeyOfError}.
 */
function triggersOf<T, K>(
  source: Observable<T>,
  keyOf: (value: T) => K,
  loop: ApplierLoop<T, K>,
): Observable<Trigger<T, K>> {
  return new Observable<Trigger<T, K>>((subscriber) => {
    let open = 2;
    const completed = (): void => {
      if (--open === 0) subscriber.complete();
    };
    const pass = (trigger: Trigger<T, K>): void => {
      try {
        loop.trigger(trigger);
      } catch (error) {
        subscriber.error(error);
        return;
      }
      subscriber.next(trigger);
    };
    const retries = loop.retries.subscribe({ next: pass, complete: completed });
    const upstream = source.subscribe({
      next: (value) => {
        let key: K;
        try {
          key = keyOf(value);
        } catch (error) {
          subscriber.error(new KeyOfError(OPERATOR, value, error));
          return;
        }
        pass({ key, value, loop });
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        loop.close(); // completes the re-emissions
        completed();
      },
    });
    return () => {
      upstream.unsubscribe();
      retries.unsubscribe();
    };
  });
}

/** One subscription's loop state. */
class ApplierLoop<T, K> implements ApplierProbe {
  private readonly states = new Map<K, KeyState<T>>();
  private readonly backoff: PerKeyBackoff<K>;
  private readonly bucket: Bucket | undefined;
  private readonly onPending: ((keys: number) => void) | undefined;
  private reported = 0;
  private readonly retrySubject = new Subject<Trigger<T, K>>();
  /** Re-emissions (requeues and retries), merged with the source in front of runByKey. */
  readonly retries: Observable<Trigger<T, K>> = this.retrySubject.asObservable();
  private closing = false;
  private timerCount = 0;

  constructor(
    private readonly reconcile: (value: T, key: K) => ObservableInput<Action>,
    settings: Settings<K>,
    private readonly scheduler: SchedulerLike,
  ) {
    this.backoff = new PerKeyBackoff<K>({
      ...settings.backoff,
      ...(settings.random === undefined ? {} : { random: settings.random }),
    });
    const limit = settings.rateLimit;
    this.bucket = limit === false ? undefined : isBucket(limit) ? limit : new TokenBucket(limit);
    this.onPending = settings.onPending;
  }

  /** Tells `onPending` the number of keys held, when it changed. */
  private report(): void {
    if (this.onPending === undefined || this.states.size === this.reported) return;
    this.reported = this.states.size;
    this.onPending(this.reported);
  }

  get keys(): number {
    return this.states.size;
  }

  get timers(): number {
    return this.timerCount;
  }

  get backoffKeys(): number {
    return this.backoff.size;
  }

  /** A value for `key` is about to enter runByKey (from the source or a timer). */
  trigger({ key, value }: Trigger<T, K>): void {
    const state = this.states.get(key);
    if (state === undefined) {
      this.states.set(key, {
        latest: value,
        inFlight: false,
        rerunPending: false,
        timer: undefined,
        reserved: false,
      });
      this.report();
      return;
    }
    state.latest = value;
    // A retry made moot by a newer trigger gives its token back (it fires through here too, with
    // its timer already cleared).
    if (state.reserved && state.timer !== undefined) this.bucket?.restore(this.scheduler.now());
    this.cancelTimer(state);
    if (state.inFlight) state.rerunPending = true;
  }

  /** runByKey starts a reconcile: returns an Observable of exactly one result that never errors. */
  work(trigger: Trigger<T, K>): Observable<ReconcileResult<T, K>> {
    const { key, value } = trigger;
    let state = this.states.get(key);
    if (state === undefined) {
      // Not expected (every trigger creates state first); stay correct anyway.
      state = { latest: value, inFlight: false, rerunPending: false, timer: undefined, reserved: false };
      this.states.set(key, state);
      this.report();
    }
    state.inFlight = true;
    state.rerunPending = false;
    const startedAt = this.scheduler.now();
    // One fused stage instead of defer → take(1) → map → throwIfEmpty → catchError → map: the
    // same outcome (the first value, an empty completion or an error — thrown synchronously or
    // not — settles the run once; the reconcile's Observable is then unsubscribed), one
    // subscriber per reconcile instead of seven (issue 21, the lean event path).
    return directObservable<ReconcileResult<T, K>>((subscriber) => {
      let settled = false;
      let inner: { unsubscribe(): void } | undefined;
      const finish = (raw: Raw): void => {
        if (settled) return;
        settled = true;
        // the reconcile's Observable is unsubscribed after the result went out (the teardown
        // below), as take(1) did
        let result: ReconcileResult<T, K>;
        try {
          result = this.settle(trigger, raw, startedAt);
        } catch (error) {
          subscriber.error(error);
          return;
        }
        subscriber.next(result);
        subscriber.complete();
      };
      let input: Observable<unknown>;
      try {
        input = from(this.reconcile(value, key));
      } catch (thrown) {
        finish({ ok: false, thrown });
        return undefined;
      }
      const sub = runDirect(input, {
        next: (emitted) => finish(Action.is(emitted) ? { ok: true, action: emitted } : notAnAction(emitted)),
        error: (thrown: unknown) => finish({ ok: false, thrown }),
        complete: () => {
          // the Error (and its stack) only when the reconcile really completed empty
          if (!settled) finish({ ok: false, thrown: new TypeError(EMPTY_MESSAGE) });
        },
      });
      if (settled) sub.unsubscribe();
      else inner = sub;
      return () => inner?.unsubscribe();
    });
  }

  /** Turns an outcome into a result: backoff, timers, release of idle keys. */
  private settle({ key, value }: Trigger<T, K>, raw: Raw, startedAt: number): ReconcileResult<T, K> {
    const now = this.scheduler.now();
    const durationMs = now - startedAt;
    const state = this.states.get(key);
    if (state !== undefined) state.inFlight = false;
    const canSchedule = state !== undefined && !this.closing && !state.rerunPending;
    let result: ReconcileResult<T, K>;

    if (raw.ok) {
      this.backoff.reset(key);
      if (raw.action.type === 'awaitChange') {
        result = { key, value, outcome: 'success', action: raw.action, durationMs };
      } else if (canSchedule) {
        this.schedule(state, key, raw.action.afterMs);
        result = {
          key,
          value,
          outcome: 'requeue',
          action: raw.action,
          durationMs,
          retryInMs: raw.action.afterMs,
        };
      } else {
        result = { key, value, outcome: 'requeue', action: raw.action, durationMs };
      }
    } else if (findTerminalError(raw.thrown) !== undefined) {
      this.backoff.reset(key);
      const error = isTerminalError(raw.thrown)
        ? raw.thrown
        : new TerminalError(toReconcileError(key, raw.thrown).message, raw.thrown);
      result = { key, value, outcome: 'terminal', error, durationMs };
    } else {
      const error: ReconcileError<K> = toReconcileError(key, raw.thrown);
      if (canSchedule) {
        // Only a failure that schedules a retry counts: a rerun for a newer trigger is not a retry.
        const delay = Math.max(this.backoff.next(key), this.bucket?.take(now) ?? 0);
        this.schedule(state, key, delay);
        state.reserved = this.bucket !== undefined;
        result = { key, value, outcome: 'error', error, durationMs, retryInMs: delay };
      } else {
        result = { key, value, outcome: 'error', error, durationMs };
      }
    }

    if (state !== undefined && state.timer === undefined && !state.rerunPending) this.release(key);
    return result;
  }

  private schedule(state: KeyState<T>, key: K, delay: number): void {
    this.timerCount += 1;
    state.reserved = false;
    state.timer = this.scheduler.schedule(() => {
      state.timer = undefined;
      state.reserved = false;
      this.timerCount -= 1;
      this.retrySubject.next({ key, value: state.latest, loop: this });
    }, delay);
  }

  private cancelTimer(state: KeyState<T>): void {
    if (state.timer === undefined) return;
    state.timer.unsubscribe();
    state.timer = undefined;
    state.reserved = false;
    this.timerCount -= 1;
  }

  /** Forgets a key that went idle: no run, no rerun waiting, no timer. */
  private release(key: K): void {
    this.states.delete(key);
    this.backoff.reset(key);
    this.report();
  }

  /** The source completed: no more re-emissions; keys that only waited for a timer are released. */
  close(): void {
    this.closing = true;
    for (const [key, state] of this.states) {
      // A timer exists only while its key is idle; keys without one are waiting in runByKey or
      // running, and are released when their reconcile settles.
      if (state.timer === undefined) continue;
      this.cancelTimer(state);
      this.release(key);
    }
    this.retrySubject.complete();
  }

  /** The subscription ended (complete, error or unsubscribe): cancel every timer, drop all state. */
  dispose(): void {
    this.closing = true;
    for (const state of this.states.values()) this.cancelTimer(state);
    this.states.clear();
    this.backoff.clear();
    this.report();
    this.retrySubject.complete();
  }
}

const EMPTY_MESSAGE =
  'reconcile completed without emitting an Action; emit Action.awaitChange() or Action.requeue(ms) ' +
  '(e.g. `return of(Action.awaitChange())`), or throw to report a failure';

function notAnAction(emitted: unknown): Raw {
  let shown: string;
  try {
    shown = JSON.stringify(emitted) ?? typeof emitted;
  } catch {
    shown = Object.prototype.toString.call(emitted);
  }
  return {
    ok: false,
    thrown: new TypeError(
      `reconcile emitted ${shown.length > 200 ? `${shown.slice(0, 200)}…` : shown} instead of an Action; ` +
        'emit Action.awaitChange() or Action.requeue(ms) (afterMs finite and >= 0)',
    ),
  };
}

function validateOptions<K>(options: ApplierOptions<K> | undefined): Settings<K> {
  assertOptionalObject(OPERATOR, 'options', options);
  const opts = options ?? {};
  const backoff = opts.backoff ?? {};
  assertOptionalObject(OPERATOR, 'options.backoff', opts.backoff);
  const { baseMs, maxMs, jitter } = backoff;
  if (baseMs !== undefined && !(typeof baseMs === 'number' && Number.isFinite(baseMs) && baseMs > 0)) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.backoff.baseMs',
      baseMs,
      'must be a finite number of ms > 0',
    );
  }
  const floor = baseMs ?? DEFAULT_BACKOFF_BASE_MS;
  if (maxMs !== undefined && !(typeof maxMs === 'number' && Number.isFinite(maxMs) && maxMs >= floor)) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.backoff.maxMs',
      maxMs,
      `must be a finite number of ms >= options.backoff.baseMs (${floor})`,
    );
  }
  if (jitter !== undefined && !(typeof jitter === 'number' && Number.isFinite(jitter) && jitter >= 0)) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.backoff.jitter',
      jitter,
      'must be a finite number >= 0 (0 = none)',
    );
  }
  const rateLimit = opts.rateLimit ?? { qps: DEFAULT_RATE_LIMIT_QPS, burst: DEFAULT_RATE_LIMIT_BURST };
  if (rateLimit !== false && !isBucket(rateLimit)) {
    if (rateLimit === null || typeof rateLimit !== 'object') {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.rateLimit',
        rateLimit,
        'must be { qps, burst }, a TokenBucket or false',
      );
    }
    const { qps, burst } = rateLimit;
    if (!(typeof qps === 'number' && Number.isFinite(qps) && qps > 0)) {
      throw new InvalidArgumentError(OPERATOR, 'options.rateLimit.qps', qps, 'must be a finite number > 0');
    }
    if (!(typeof burst === 'number' && Number.isInteger(burst) && burst >= 1)) {
      throw new InvalidArgumentError(OPERATOR, 'options.rateLimit.burst', burst, 'must be an integer >= 1');
    }
  }
  if (opts.random !== undefined) assertFunction(OPERATOR, 'options.random', opts.random);
  if (opts.onPending !== undefined) assertFunction(OPERATOR, 'options.onPending', opts.onPending);
  return {
    concurrency: opts.concurrency,
    observer: opts.observer,
    backoff: {
      ...(baseMs === undefined ? {} : { baseMs }),
      ...(maxMs === undefined ? {} : { maxMs }),
      ...(jitter === undefined ? {} : { jitter }),
    },
    rateLimit,
    random: opts.random,
    onPending: opts.onPending,
  };
}
