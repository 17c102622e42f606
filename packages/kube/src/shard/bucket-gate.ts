/**
 * The in-process half of fencing: which buckets take keys now, how many reconciles of each are in
 * flight, and a way to cancel them. A reconcile enters only through an open bucket; closing a
 * bucket stops intake at once; `drained$` says when its last reconcile in flight ended; `cancel`
 * unsubscribes those still running. `ShardRing` opens a bucket only after acquiring its fence and
 * releases the fence only once the bucket is closed and drained (or cancelled).
 *
 * @module
 */
import type { Observable } from 'rxjs';
import { BehaviorSubject, defer, filter, finalize, map, Subject, take, takeUntil } from 'rxjs';

/**
 * Intake and in-flight reconciles per bucket.
 *
 * ## Example
 * ```ts
 * declare const reconcile$: Observable<Action>; // one key's reconcile
 * const gate = new BucketGate();
 * gate.open(3);
 * const run$ = gate.run(3, reconcile$); // undefined when bucket 3 takes no keys
 * gate.close(3);
 * await firstValueFrom(gate.drained$(3));
 * ```
 *
 * ## Semantics
 * - `run(bucket, work$)`: `undefined` when the bucket is closed; else `work$`, counted in flight
 *   from subscription to its end, and unsubscribed by `cancel(bucket)`.
 * - `close` never touches reconciles in flight; `cancel` does (and closes).
 *
 * ## Memory
 * One counter per bucket with reconciles in flight; the set of open buckets.
 */
export class BucketGate {
  private readonly openBuckets = new Set<number>();
  private readonly counts = new BehaviorSubject<ReadonlyMap<number, number>>(new Map());
  private readonly cancels = new Subject<number>();

  /** Buckets taking keys now. */
  get opened(): ReadonlySet<number> {
    return this.openBuckets;
  }

  /** Reconciles in flight in `bucket`. */
  inFlight(bucket: number): number {
    return this.counts.value.get(bucket) ?? 0;
  }

  /** Whether `bucket` takes keys. */
  isOpen(bucket: number): boolean {
    return this.openBuckets.has(bucket);
  }

  /** Starts taking `bucket`'s keys. */
  open(bucket: number): void {
    this.openBuckets.add(bucket);
  }

  /** Stops taking `bucket`'s keys; reconciles in flight go on. */
  close(bucket: number): void {
    this.openBuckets.delete(bucket);
  }

  /** Closes `bucket` and unsubscribes its reconciles in flight. */
  cancel(bucket: number): void {
    this.close(bucket);
    this.cancels.next(bucket);
  }

  /** Emits once (then completes) when `bucket` has no reconcile in flight; at once if none. */
  drained$(bucket: number): Observable<void> {
    return this.counts.pipe(
      filter((c) => (c.get(bucket) ?? 0) === 0),
      take(1),
      map(() => undefined),
    );
  }

  /** `work$` counted in `bucket`, or `undefined` when the bucket takes no keys now. */
  run<T>(bucket: number, work$: Observable<T>): Observable<T> | undefined {
    if (!this.openBuckets.has(bucket)) return undefined;
    return defer(() => {
      this.add(bucket, 1);
      return work$.pipe(
        takeUntil(this.cancels.pipe(filter((b) => b === bucket))),
        finalize(() => this.add(bucket, -1)),
      );
    });
  }

  private add(bucket: number, delta: number): void {
    const next = new Map(this.counts.value);
    const count = (next.get(bucket) ?? 0) + delta;
    if (count === 0) next.delete(bucket);
    else next.set(bucket, count);
    this.counts.next(next);
  }
}
