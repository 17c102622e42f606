import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { acquireBucket, releaseBucket } from './hand-off.js';

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const steps = { s: 'stopped', d: 'drained', c: 'cancelled', r: 'released' } as const;

describe('releaseBucket (old owner)', () => {
  it('stops intake at once, waits for the drain, then releases', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const log: string[] = [];
      const drained$ = cold('   ----x|');
      const release = cold('        --y|');
      const expected = '        s---d-(r|)';
      //                          drained at 4, release answers 2 frames later: 6
      expectObservable(
        releaseBucket(
          {
            stopIntake: () => log.push('stop'),
            drained$,
            cancel: () => log.push('cancel'),
            release: () => {
              log.push('release');
              return release;
            },
          },
          10,
          scheduler,
        ),
      ).toBe(expected, steps);
      expectSubscriptions(drained$.subscriptions).toBe('^---!');
      expectSubscriptions(release.subscriptions).toBe(' ----^-!');
      flush();
      expect(log).toEqual(['stop', 'release']);
    });
  });

  it('cancels what is still in flight at the drain deadline, and releases only after', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const log: string[] = [];
      const drained$ = cold('--------------x|'); // would drain at 14
      const release = cold('  -y|');
      const expected = '      s----c(r|)';
      //                        deadline 5 → cancel; release answers at 6
      expectObservable(
        releaseBucket(
          {
            stopIntake: () => log.push('stop'),
            drained$,
            cancel: () => log.push('cancel'),
            release: () => {
              log.push('release');
              return release;
            },
          },
          5,
          scheduler,
        ),
      ).toBe(expected, steps);
      flush();
      expect(log).toEqual(['stop', 'cancel', 'release']);
    });
  });

  it('an already drained bucket is released at once; a release that completes empty counts', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(
        releaseBucket(
          {
            stopIntake: () => undefined,
            drained$: cold('x'),
            cancel: () => undefined,
            release: () => cold('|'),
          },
          5,
          scheduler,
        ),
      ).toBe('(sdr|)', steps);
    });
  });

  it('a failed release is an error (the fence is still held: the ring tries again)', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      expectObservable(
        releaseBucket(
          {
            stopIntake: () => undefined,
            drained$: cold('-x'),
            cancel: () => undefined,
            release: () => cold('-#', {}, 'conflict'),
          },
          5,
          scheduler,
        ),
      ).toBe('sd#', steps, 'conflict');
    });
  });
});

describe('acquireBucket (new owner)', () => {
  it('starts taking keys only after the fence is acquired', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      const log: string[] = [];
      const acquire = cold('---(t|)', { t: true });
      expectObservable(
        acquireBucket(
          () => {
            log.push('acquire');
            return acquire;
          },
          () => log.push(`start at ${scheduler.now()}`),
        ),
      ).toBe('---(t|)', { t: true });
      flush();
      expect(log).toEqual(['acquire', 'start at 3']);
    });
  });

  it('never starts when the fence is held by another', () => {
    const scheduler = newScheduler();
    scheduler.run(({ cold, expectObservable, flush }) => {
      let started = false;
      expectObservable(
        acquireBucket(
          () => cold('-(f|)', { f: false }),
          () => (started = true),
        ),
      ).toBe('-(f|)', {
        f: false,
      });
      flush();
      expect(started).toBe(false);
    });
  });
});
