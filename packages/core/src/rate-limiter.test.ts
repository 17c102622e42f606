import { describe, expect, it } from 'vitest';

import { InvalidArgumentError } from './invalid-argument-error.js';
import { DEFAULT_RATE_LIMIT_BURST, DEFAULT_RATE_LIMIT_QPS, TokenBucket } from './rate-limiter.js';

describe('TokenBucket', () => {
  it('defaults to 10 qps with a burst of 100 (controller-runtime)', () => {
    expect([DEFAULT_RATE_LIMIT_QPS, DEFAULT_RATE_LIMIT_BURST]).toEqual([10, 100]);
    const bucket = new TokenBucket();
    const delays = Array.from({ length: 103 }, () => bucket.take(0));
    expect(delays.slice(0, 100).every((d) => d === 0)).toBe(true);
    // the burst is spent; each further token at the same instant costs 1000 / 10 = 100 ms more
    expect(delays.slice(100)).toEqual([100, 200, 300]);
  });

  it('refills continuously and never above the burst', () => {
    const bucket = new TokenBucket({ qps: 10, burst: 2 });
    expect([bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([0, 0, 100]);
    // at 100 ms one token came back and paid the debt: the next one waits 100 ms
    expect(bucket.take(100)).toBe(100);
    // at 10 s: 2 - 1 (debt) + 99 refilled, capped at 2
    expect(bucket.available(10_000)).toBe(2);
    expect([bucket.take(10_000), bucket.take(10_000), bucket.take(10_000)]).toEqual([0, 0, 100]);
    // partial refill: 50 ms gives half a token
    expect(bucket.take(10_050)).toBe(150);
  });

  it('spaces reservations taken later in time by 1000 / qps', () => {
    const bucket = new TokenBucket({ qps: 4, burst: 1 });
    expect(bucket.take(0)).toBe(0);
    expect(bucket.take(0)).toBe(250);
    expect(bucket.take(250)).toBe(250);
    expect(bucket.take(1000)).toBe(0);
  });

  it('restore gives a cancelled reservation back, never above the burst', () => {
    const bucket = new TokenBucket({ qps: 10, burst: 1 });
    expect([bucket.take(0), bucket.take(0)]).toEqual([0, 100]);
    bucket.restore(0); // the second reservation was cancelled
    expect(bucket.take(0)).toBe(100);
    bucket.restore(0);
    bucket.restore(0);
    bucket.restore(0);
    expect(bucket.available(0)).toBe(1);
    expect(() => bucket.restore(Number.NaN)).toThrow(InvalidArgumentError);
  });

  it('refills nothing when the clock goes backwards', () => {
    const bucket = new TokenBucket({ qps: 10, burst: 1 });
    expect(bucket.take(1000)).toBe(0);
    expect(bucket.take(500)).toBe(100);
    expect(bucket.take(1000)).toBe(200);
  });

  it('rejects bad options and times with InvalidArgumentError', () => {
    for (const [options, message] of [
      [{ qps: 0 }, /TokenBucket: options\.qps must be a finite number > 0/],
      [{ qps: Number.POSITIVE_INFINITY }, /options\.qps/],
      [{ burst: 0 }, /options\.burst must be an integer >= 1; got 0/],
      [{ burst: 1.5 }, /options\.burst/],
    ] as const) {
      expect(() => new TokenBucket(options)).toThrow(InvalidArgumentError);
      expect(() => new TokenBucket(options)).toThrow(message);
    }
    expect(() => new TokenBucket().take(Number.NaN)).toThrow(/take\(nowMs\) must be a finite time in ms/);
  });
});
