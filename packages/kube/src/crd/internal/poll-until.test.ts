import { TestScheduler } from 'rxjs/testing';
import { beforeEach, expect, it } from 'vitest';

import type { ProbeResult } from './poll-until.js';
import { pollUntil } from './poll-until.js';

let testScheduler: TestScheduler;
beforeEach(() => {
  testScheduler = new TestScheduler((actual, expected) => {
    expect(actual).toEqual(expected);
  });
});

const wait = (w: string): ProbeResult<string> => ({ done: false, waitingFor: w });
const done = (v: string): ProbeResult<string> => ({ done: true, value: v });
const onTimeout = (w: string | undefined): Error => new Error(`timeout; last: ${w ?? 'none'}`);

it('probes at 0, interval, 2·interval … and emits the first done value', () => {
  testScheduler.run(({ cold, expectObservable }) => {
    const answers = [wait('a'), wait('b'), done('ok')];
    let calls = 0;
    const probe = () => cold('-(r|)', { r: answers[calls++]! });
    // probes start at 0, 10, 20; each answers 1 frame later; the third is done at 21
    expectObservable(pollUntil(probe, { intervalMs: 10, timeoutMs: 100, onTimeout }, testScheduler)).toBe(
      '21ms (v|)',
      { v: 'ok' },
    );
  });
});

it('never runs two probes at once: ticks during a slow probe are skipped', () => {
  testScheduler.run(({ cold, expectObservable, flush }) => {
    const starts: number[] = [];
    let calls = 0;
    const probe = () => {
      starts.push(testScheduler.now());
      return calls++ === 0 ? cold('25ms (r|)', { r: wait('slow') }) : cold('(r|)', { r: done('ok') });
    };
    // first probe runs 0..25 (ticks at 10 and 20 dropped), next tick at 30 is done at once
    expectObservable(pollUntil(probe, { intervalMs: 10, timeoutMs: 100, onTimeout }, testScheduler)).toBe(
      '30ms (v|)',
      { v: 'ok' },
    );
    flush();
    expect(starts).toEqual([0, 30]);
  });
});

it('fails after timeoutMs with what it was last waiting for', () => {
  testScheduler.run(({ cold, expectObservable }) => {
    let calls = 0;
    const probe = () => cold('(r|)', { r: wait(`try ${String(++calls)}`) });
    // probes at 0, 10, 20, 30, 40 all wait; the timeout fires at 45
    expectObservable(pollUntil(probe, { intervalMs: 10, timeoutMs: 45, onTimeout }, testScheduler)).toBe(
      '45ms #',
      undefined,
      new Error('timeout; last: try 5'),
    );
  });
});

it('forwards a probe error at once and stops polling', () => {
  testScheduler.run(({ cold, expectObservable, flush }) => {
    let calls = 0;
    const probe = () =>
      ++calls === 2
        ? cold<ProbeResult<string>>('-#', undefined, new Error('names refused'))
        : cold('(r|)', { r: wait('x') });
    expectObservable(pollUntil(probe, { intervalMs: 10, timeoutMs: 100, onTimeout }, testScheduler)).toBe(
      '11ms #',
      undefined,
      new Error('names refused'),
    );
    flush();
    expect(calls).toBe(2);
  });
});

it('unsubscribing cancels the timer and the running probe', () => {
  testScheduler.run(({ cold, expectObservable, expectSubscriptions }) => {
    const slow = cold<ProbeResult<string>>('50ms (r|)', { r: done('late') });
    expectObservable(
      pollUntil(() => slow, { intervalMs: 10, timeoutMs: 100, onTimeout }, testScheduler),
      '^ 20ms !',
    ).toBe('');
    expectSubscriptions(slow.subscriptions).toBe('^ 20ms !');
  });
});
