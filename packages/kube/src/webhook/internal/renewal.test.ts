import { TestScheduler } from 'rxjs/testing';
import { beforeEach, describe, expect, it } from 'vitest';

import type { WebhookCertificates } from '../certificates.js';
import { certificateRenewals } from './renewal.js';

/** A certificate valid until frame `notAfter` (only `notAfter` matters to the timer). */
const cert = (id: string, notAfter: number): WebhookCertificates => ({
  caCert: 'ca',
  caKey: 'ca-key',
  cert: id,
  key: `${id}-key`,
  notAfter: new Date(notAfter),
});

describe('certificateRenewals (virtual time)', () => {
  let testScheduler: TestScheduler;
  beforeEach(() => {
    testScheduler = new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
  });

  it('renews renewBefore ahead of notAfter, then again ahead of the new one', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const renewedAt: number[] = [];
      const b = cert('b', 100);
      const c = cert('c', 150);
      const next = [b, c];
      const renewals = certificateRenewals(
        cert('a', 50),
        (now) => {
          renewedAt.push(now.getTime());
          return cold('--x|', { x: next.shift() ?? cert('z', 1000) });
        },
        { renewBeforeMs: 20, retryMs: 5 },
        testScheduler,
      );
      // a is due at 30, answers at 32; b due at 80 → 82; c due at 130 → 132
      expectObservable(renewals, '^ 140ms !').toBe('32ms r 49ms s 49ms t', {
        r: { type: 'renewed', certificates: b },
        s: { type: 'renewed', certificates: c },
        t: { type: 'renewed', certificates: cert('z', 1000) },
      });
      testScheduler.flush();
      expect(renewedAt).toEqual([30, 80, 130]);
    });
  });

  it('reports a failed renewal, keeps the current certificate, and retries after retryMs', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const error = new Error('403 on the Secret');
      let calls = 0;
      const renewed = cert('b', 500);
      const renewals = certificateRenewals(
        cert('a', 50),
        () => (++calls === 1 ? cold('-#', {}, error) : cold('-x|', { x: renewed })),
        { renewBeforeMs: 20, retryMs: 10 },
        testScheduler,
      );
      // due at 30: fails at 31; retried at 41, answers at 42
      expectObservable(renewals, '^ 100ms !').toBe('31ms f 10ms r', {
        f: { type: 'failed', error, retryInMs: 10 },
        r: { type: 'renewed', certificates: renewed },
      });
    });
  });

  it('never loops on a renewal that answers a certificate already due: it is a failure, retried', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const stale = cert('stale', 40);
      const renewals = certificateRenewals(
        cert('a', 50),
        () => cold('x|', { x: stale }),
        { renewBeforeMs: 20, retryMs: 10 },
        testScheduler,
      );
      const failed = expect.objectContaining({ type: 'failed', retryInMs: 10 }) as unknown;
      // due at 30 → failure; retries at 40, 50: three failures in 55 frames, not thousands
      expectObservable(renewals, '^ 55ms !').toBe('30ms f 9ms f 9ms f', { f: failed });
    });
  });

  it('cuts a wait longer than the longest timer into pieces (Node fires longer ones at once)', () => {
    testScheduler.run(({ cold, expectObservable }) => {
      const renewed = cert('b', 10_000);
      let renewedAt = -1;
      const renewals = certificateRenewals(
        cert('a', 1000),
        (now) => {
          renewedAt = now.getTime();
          return cold('x|', { x: renewed });
        },
        { renewBeforeMs: 100, retryMs: 10, maxTimerMs: 250 },
        testScheduler,
      );
      // due at 900: timers at 250, 500, 750, then 150 more
      expectObservable(renewals, '^ 950ms !').toBe('900ms r', {
        r: { type: 'renewed', certificates: renewed },
      });
      testScheduler.flush();
      expect(renewedAt).toBe(900);
    });
  });
});
