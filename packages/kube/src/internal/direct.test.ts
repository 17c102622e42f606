// The same contract as @rxkube/core's internal/direct.test.ts: the two copies of the protocol must agree.
import { Observable, of } from 'rxjs';
import { describe, expect, it } from 'vitest';

import { directObservable, runDirect } from './direct.js';

/** A log of what a run did, in order. */
function recorder() {
  const log: string[] = [];
  const sink = {
    next: (v: unknown) => log.push(`next ${String(v)}`),
    error: (e: unknown) => log.push(`error ${e instanceof Error ? e.message : String(e)}`),
    complete: () => log.push('complete'),
  };
  return { log, sink };
}

describe('runDirect', () => {
  it('runs a directObservable without subscribing, as a Subscriber would: the end, then the teardown', () => {
    const sourceOf = (log: string[]) =>
      directObservable<number>((sink) => {
        sink.next(1);
        sink.complete();
        sink.next(2); // after the end: dropped
        return () => log.push('teardown');
      });
    const direct = recorder();
    const source = sourceOf(direct.log);
    let subscribed = 0;
    const subscribe = source.subscribe.bind(source);
    source.subscribe = ((...args: Parameters<typeof subscribe>) => {
      subscribed++;
      return subscribe(...args);
    }) as typeof source.subscribe;
    runDirect(source, direct.sink);
    expect(direct.log).toEqual(['next 1', 'complete', 'teardown']);
    expect(subscribed).toBe(0);
    // subscribing as usual: the same notifications, in the same order
    const viaRx = recorder();
    sourceOf(viaRx.log).subscribe(viaRx.sink);
    expect(viaRx.log).toEqual(direct.log);
  });

  it('stops: no notification after unsubscribe, the teardown once; closed is seen by the producer', () => {
    let emit: ((v: number) => void) | undefined;
    let closed: (() => boolean) | undefined;
    let teardowns = 0;
    const source = directObservable<number>((sink) => {
      emit = (v) => sink.next(v);
      closed = () => sink.closed;
      return () => teardowns++;
    });
    const { log, sink } = recorder();
    const run = runDirect(source, sink);
    emit?.(1);
    expect(closed?.()).toBe(false);
    run.unsubscribe();
    run.unsubscribe();
    emit?.(2);
    expect(log).toEqual(['next 1']);
    expect(teardowns).toBe(1);
    expect(closed?.()).toBe(true);
  });

  it('turns a throwing start into an error, and errors end the run once', () => {
    const { log, sink } = recorder();
    runDirect(
      directObservable<number>(() => {
        throw new Error('boom');
      }),
      sink,
    );
    const second = recorder();
    let teardowns = 0;
    runDirect(
      directObservable<number>((s) => {
        s.error(new Error('first'));
        s.error(new Error('second'));
        s.complete();
        return () => teardowns++;
      }),
      second.sink,
    );
    expect(log).toEqual(['error boom']);
    expect(second.log).toEqual(['error first']);
    expect(teardowns).toBe(1);
  });

  it('subscribes to any other Observable', () => {
    const { log, sink } = recorder();
    runDirect(of(1, 2), sink);
    runDirect(new Observable<number>((s) => s.error(new Error('x'))), sink);
    expect(log).toEqual(['next 1', 'next 2', 'complete', 'error x']);
  });
});
