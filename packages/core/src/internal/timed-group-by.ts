/**
 * The engine of `groupByKey`: rxjs `groupBy` whose groups complete after an idle `duration`, all
 * idle timers sharing one {@link TimedQueue}. Arguments are validated by the caller.
 *
 * `inspect` hands the live group map to tests, so they can assert it empties when keys go idle.
 *
 * Not exported from the package.
 */
import { Observable, Subject, Subscription } from 'rxjs';
import type { GroupedObservable, OperatorFunction, SchedulerLike } from 'rxjs';

import { KeyOfError } from './keyed-run.js';
import { TimedQueue } from './timed-queue.js';
import type { TimedSlot } from './timed-queue.js';

interface Lane<K, T> extends TimedSlot {
  readonly key: K;
  readonly subject: Subject<T>;
}

/** `groupByKey` without argument checks; see the module comment. */
export function timedGroupBy<T, K>(
  operator: string,
  keyOf: (value: T) => K,
  duration: number,
  scheduler: SchedulerLike,
  inspect?: (groups: ReadonlyMap<K, unknown>) => void,
): OperatorFunction<T, GroupedObservable<K, T>> {
  return (source) =>
    new Observable<GroupedObservable<K, T>>((subscriber) => {
      const groups = new Map<K, Lane<K, T>>();
      inspect?.(groups);
      const queue = new TimedQueue<Lane<K, T>>(scheduler, (lane) => {
        groups.delete(lane.key);
        lane.subject.complete();
      });
      const sourceSubscription = new Subscription();
      /** Subscriptions to group Observables; the source lives while > 0 even after the outer ended. */
      let subscribedGroups = 0;
      let outerClosed = false;
      let stopped = false;

      /** Ends intake: cancels the timer, unsubscribes the source, returns the open groups. */
      const stop = (): Lane<K, T>[] => {
        stopped = true;
        queue.clear();
        const open = [...groups.values()];
        groups.clear();
        sourceSubscription.unsubscribe();
        return open;
      };
      const release = (): void => {
        if (outerClosed && subscribedGroups === 0 && !stopped) stop();
      };
      const fail = (err: unknown): void => {
        for (const lane of stop()) lane.subject.error(err);
        subscriber.error(err);
      };

      const open = (key: K): Lane<K, T> => {
        const subject = new Subject<T>();
        const lane: Lane<K, T> = { due: 0, index: -1, filedAt: 0, seq: 0, key, subject };
        groups.set(key, lane);
        const group = Object.assign(
          new Observable<T>((groupSubscriber) => {
            subscribedGroups++;
            const inner = subject.subscribe(groupSubscriber);
            return () => {
              inner.unsubscribe();
              subscribedGroups--;
              release();
            };
          }),
          { key },
        );
        subscriber.next(group);
        return lane;
      };

      sourceSubscription.add(
        source.subscribe({
          next: (value) => {
            if (stopped) return;
            let key: K;
            try {
              key = keyOf(value);
            } catch (cause) {
              fail(new KeyOfError(operator, value, cause));
              return;
            }
            let lane = groups.get(key);
            if (lane === undefined) {
              if (outerClosed) return; // nobody could receive a new group
              lane = open(key);
              if (stopped) return; // the outer unsubscribed while receiving the group
              lane.due = scheduler.now() + duration;
              queue.arm(lane);
            } else {
              lane.due = scheduler.now() + duration;
            }
            lane.subject.next(value);
          },
          error: (err: unknown) => {
            if (!stopped) fail(err);
          },
          complete: () => {
            if (stopped) return;
            for (const lane of stop()) lane.subject.complete();
            subscriber.complete();
          },
        }),
      );

      return () => {
        outerClosed = true;
        release();
      };
    });
}
