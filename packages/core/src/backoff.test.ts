import { describe, expect, it } from 'vitest';

import {
  DEFAULT_BACKOFF_BASE_MS,
  DEFAULT_BACKOFF_JITTER,
  DEFAULT_BACKOFF_MAX_MS,
  PerKeyBackoff,
} from './backoff.js';
import { InvalidArgumentError } from './invalid-argument-error.js';

describe('PerKeyBackoff', () => {
  it('uses controller-runtime defaults', () => {
    expect(DEFAULT_BACKOFF_BASE_MS).toBe(5);
    expect(DEFAULT_BACKOFF_MAX_MS).toBe(1_000_000);
    expect(DEFAULT_BACKOFF_JITTER).toBe(0.1);
  });

  it('doubles from 5 ms and caps at 1000 s', () => {
    const backoff = new PerKeyBackoff<string>({ random: () => 0 });
    const delays = Array.from({ length: 20 }, () => backoff.next('a'));
    // 5 × 2^17 = 655 360 ≤ 1e6 < 5 × 2^18 = 1 310 720
    expect(delays).toEqual([
      5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 5120, 10240, 20480, 40960, 81920, 163840, 327680, 655360,
      1_000_000, 1_000_000,
    ]);
    expect(backoff.failures('a')).toBe(20);
  });

  it('never overflows into Infinity or NaN after very many failures', () => {
    const backoff = new PerKeyBackoff<string>({ jitter: 0.5, random: () => 1 });
    let last = 0;
    for (let i = 0; i < 2000; i += 1) last = backoff.next('a');
    expect(last).toBe(1_000_000);
  });

  it('keeps keys independent and starts over after reset', () => {
    const backoff = new PerKeyBackoff<string>({ jitter: 0 });
    expect([backoff.next('a'), backoff.next('a'), backoff.next('b'), backoff.next('a')]).toEqual([
      5, 10, 5, 20,
    ]);
    expect(backoff.size).toBe(2);
    backoff.reset('a');
    expect(backoff.failures('a')).toBe(0);
    expect(backoff.size).toBe(1);
    expect(backoff.next('a')).toBe(5);
    expect(backoff.next('b')).toBe(10);
    backoff.clear();
    expect(backoff.size).toBe(0);
  });

  it('stretches each delay by random × jitter, within bounds and below the cap', () => {
    const samples = [0, 0.25, 0.5, 1];
    let i = 0;
    const backoff = new PerKeyBackoff<string>({
      baseMs: 100,
      maxMs: 1000,
      jitter: 0.2,
      random: () => samples[i++ % 4]!,
    });
    // raw 100, 200, 400, 800, 1000 (capped), × (1 + r × 0.2), then capped at 1000
    const delays = [1, 2, 3, 4, 5].map(() => backoff.next('a'));
    [100, 210, 440, 960, 1000].forEach((expected, n) => expect(delays[n]).toBeCloseTo(expected, 9));
    expect(delays[4]).toBe(1000);
  });

  it('with Math.random stays within [raw, raw × (1 + jitter)]', () => {
    const backoff = new PerKeyBackoff<string>({ jitter: 0.1 });
    for (let n = 0; n < 12; n += 1) {
      const raw = 5 * 2 ** n;
      const delay = backoff.next('a');
      expect(delay).toBeGreaterThanOrEqual(raw);
      expect(delay).toBeLessThanOrEqual(raw * 1.1);
    }
  });

  it('rejects bad options and a bad random with InvalidArgumentError', () => {
    const bad: [object, RegExp][] = [
      [{ baseMs: 0 }, /options\.baseMs must be a finite number of ms > 0; got 0/],
      [{ baseMs: Number.NaN }, /options\.baseMs/],
      [
        { maxMs: 1, baseMs: 5 },
        /options\.maxMs must be a finite number of ms >= options\.baseMs \(5\); got 1/,
      ],
      [{ maxMs: Number.POSITIVE_INFINITY }, /options\.maxMs/],
      [{ jitter: -0.1 }, /options\.jitter must be a finite number >= 0/],
      [{ random: 3 }, /options\.random must be a function/],
    ];
    for (const [options, message] of bad) {
      expect(() => new PerKeyBackoff(options)).toThrow(InvalidArgumentError);
      expect(() => new PerKeyBackoff(options)).toThrow(message);
    }
    const backoff = new PerKeyBackoff<string>({ random: () => 2 });
    expect(() => backoff.next('a')).toThrow(/options\.random must return a number in \[0, 1\].*; got 2/);
  });
});
