/**
 * Closes the race between a write's response and its watch echo: the server may deliver the
 * echo before the response that tells `OwnWrites` which resourceVersion the write produced. While
 * a controller write of a key is in flight, that key's primary events are held; when the last
 * write settles they go on in order (then `suppressOwnEcho` recognises the echoes).
 *
 * @module
 */
import { Observable, Subject } from 'rxjs';
import type { MonoTypeOperatorFunction } from 'rxjs';

import type { KubeObject, WatchEvent } from '../../types.js';
import { objectKey } from '../../types.js';

/** Counts the controller's own writes in flight per key. */
export class WritesInFlight {
  private readonly counts = new Map<string, number>();
  private readonly settled = new Subject<string>();
  /** Emits a key when its last write in flight settled. */
  readonly settled$ = this.settled.asObservable();

  begin(key: string): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  /** Call after the write's response was recorded (or it failed). */
  end(key: string): void {
    const n = (this.counts.get(key) ?? 0) - 1;
    if (n > 0) {
      this.counts.set(key, n);
      return;
    }
    this.counts.delete(key);
    this.settled.next(key);
  }

  busy(key: string): boolean {
    return this.counts.has(key);
  }
}

/**
 * Holds `Apply`/`Delete` events of a key while `writes.busy(key)`, releasing them in order when its
 * writes settle. Memory: the events of busy keys only; all dropped on unsubscribe.
 */
export function holdWhileWriting<T extends KubeObject>(
  writes: WritesInFlight,
): MonoTypeOperatorFunction<WatchEvent<T>> {
  return (source) =>
    new Observable((subscriber) => {
      const held = new Map<string, WatchEvent<T>[]>();
      const settledSub = writes.settled$.subscribe((key) => {
        const events = held.get(key);
        if (events === undefined) return;
        held.delete(key);
        for (const e of events) subscriber.next(e);
      });
      const sourceSub = source.subscribe({
        next: (e) => {
          if (e.type === 'Apply' || e.type === 'Delete') {
            const key = objectKey(e.object);
            const queue = held.get(key);
            if (queue !== undefined || writes.busy(key)) {
              if (queue === undefined) held.set(key, [e]);
              else queue.push(e);
              return;
            }
          }
          subscriber.next(e);
        },
        error: (err: unknown) => subscriber.error(err),
        complete: () => subscriber.complete(),
      });
      return () => {
        sourceSub.unsubscribe();
        settledSub.unsubscribe();
        held.clear();
      };
    });
}
