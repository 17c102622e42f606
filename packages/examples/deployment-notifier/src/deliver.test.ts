import { InvalidArgumentError } from '@rxkube/core';
import type { Observable } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import {
  type WebhookPost,
  type WebhookRequest,
  type WebhookResponse,
  WebhookDeliveryError,
  deliverWebhook,
  originOf,
} from './deliver.js';

const request: WebhookRequest = {
  url: 'https://hooks.example.com/services/T0/B0/s3cr3t?token=abc',
  body: {
    notifier: 'n',
    namespace: 'ns',
    deployment: 'web',
    container: 'app',
    from: 'nginx:1.26',
    to: 'nginx:1.27',
    at: '1970-01-01T00:00:00.000Z',
    idempotencyKey: 'uid-1/app/nginx:1.27',
  },
};

const responses: Record<string, WebhookResponse> = {
  o: { status: 200 },
  c: { status: 204 },
  e: { status: 500 },
  u: { status: 503 },
  t: { status: 429, retryAfterSeconds: 1 },
  T: { status: 429, retryAfterSeconds: 2 },
  b: { status: 400 },
  r: { status: 302 },
};

/** An asymmetric matcher for the error of a `failed` outcome (errors are compared by these fields). */
const errorLike = (fields: Partial<WebhookDeliveryError>): WebhookDeliveryError =>
  expect.objectContaining(fields) as WebhookDeliveryError;

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

/** A POST port answering attempt i with `attempts[i]`, recording each request it got. */
function scripted(attempts: readonly Observable<WebhookResponse>[]): {
  post: WebhookPost;
  seen: WebhookRequest[];
} {
  const seen: WebhookRequest[] = [];
  return {
    seen,
    post: (r) => {
      const next = attempts[seen.length];
      seen.push(r);
      if (next === undefined) throw new Error(`unexpected attempt ${seen.length}`);
      return next;
    },
  };
}

describe('deliverWebhook (retries and backoff on the scheduler)', () => {
  it('delivers on the first 2xx answer, without waiting', () => {
    let seen: WebhookRequest[] = [];
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a1 = cold('-c|', responses);
      const port = scripted([a1]);
      seen = port.seen;
      const post = port.post;
      expectObservable(deliverWebhook(post, request)).toBe('-(d|)', {
        d: { type: 'delivered', attempts: 1, status: 204 },
      });
      //                                            take(1) unsubscribes when the answer arrives
      expectSubscriptions(a1.subscriptions).toBe(['^!']);
    });
    expect(seen).toEqual([request]);
  });

  it('retries 500, 500 with exponential backoff, then delivers the third attempt (same body each time)', () => {
    let seen: WebhookRequest[] = [];
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a1 = cold('-e|', responses);
      const a2 = cold('-e|', responses);
      const a3 = cold('-o|', responses);
      const port = scripted([a1, a2, a3]);
      seen = port.seen;
      const post = port.post;
      // attempt 1 at 0, answers 500 at 1 → wait 10 → attempt 2 at 11, 500 at 12 → wait 20 →
      // attempt 3 at 32, 200 at 33.
      expectObservable(deliverWebhook(post, request, { initialDelayMs: 10 })).toBe('33ms (d|)', {
        d: { type: 'delivered', attempts: 3, status: 200 },
      });
      expectSubscriptions(a1.subscriptions).toBe(['^!']);
      expectSubscriptions(a2.subscriptions).toBe(['11ms ^!']);
      expectSubscriptions(a3.subscriptions).toBe(['32ms ^!']);
    });
    expect(seen).toEqual([request, request, request]);
  });

  it('retries network errors and timeouts like 5xx', () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a1 = cold<WebhookResponse>('-#', {}, new Error('connect ECONNREFUSED 127.0.0.1:9'));
      const a2 = cold<WebhookResponse>('-'); // never answers
      const a3 = cold('-o|', responses);
      const { post } = scripted([a1, a2, a3]);
      // attempt 1 errors at 1 → wait 10 → attempt 2 at 11 times out at 11+5=16 → wait 20 →
      // attempt 3 at 36, 200 at 37.
      expectObservable(deliverWebhook(post, request, { initialDelayMs: 10, attemptTimeoutMs: 5 })).toBe(
        '37ms (d|)',
        { d: { type: 'delivered', attempts: 3, status: 200 } },
      );
      expectSubscriptions(a2.subscriptions).toBe(['11ms ^----!']);
      expectSubscriptions(a3.subscriptions).toBe(['36ms ^!']);
    });
  });

  it('waits at least Retry-After after a 429, capped at maxDelayMs', () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a1 = cold('-t|', responses);
      const a2 = cold('-T|', responses);
      const a3 = cold('-o|', responses);
      const { post } = scripted([a1, a2, a3]);
      // 429 at 1 with Retry-After 1 s: wait max(10, 1000) = 1000 → attempt 2 at 1001, 429 at 1002
      // with Retry-After 2 s: wait max(20, 2000) capped at maxDelayMs 1500 → attempt 3 at 2502,
      // 200 at 2503.
      expectObservable(deliverWebhook(post, request, { initialDelayMs: 10, maxDelayMs: 1500 })).toBe(
        '2503ms (d|)',
        { d: { type: 'delivered', attempts: 3, status: 200 } },
      );
      expectSubscriptions(a2.subscriptions).toBe(['1001ms ^!']);
      expectSubscriptions(a3.subscriptions).toBe(['2502ms ^!']);
    });
  });

  it('gives up after maxAttempts with the last error, as a value', () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a3 = cold('-u|', responses);
      const { post } = scripted([cold('-e|', responses), cold('-u|', responses), a3]);
      // 500 at 1 → wait 10 → 503 at 12 → wait 20 → 503 at 33: the third attempt of 3, give up.
      expectObservable(deliverWebhook(post, request, { initialDelayMs: 10, maxAttempts: 3 })).toBe(
        '33ms (f|)',
        {
          f: {
            type: 'failed',
            attempts: 3,
            error: errorLike({ failure: 'status', status: 503, retryable: true }),
          },
        },
      );
      expectSubscriptions(a3.subscriptions).toBe(['32ms ^!']);
    });
  });

  it('does not retry a 4xx (other than 429) or a 3xx', () => {
    for (const code of ['b', 'r'] as const) {
      newScheduler().run(({ cold, expectObservable }) => {
        const { post } = scripted([cold(`-${code}|`, responses)]); // a second attempt would throw
        expectObservable(deliverWebhook(post, request, { initialDelayMs: 10 })).toBe('-(f|)', {
          f: {
            type: 'failed',
            attempts: 1,
            error: errorLike({
              failure: 'status',
              status: responses[code]?.status,
              retryable: false,
            }),
          },
        });
      });
    }
  });

  it('unsubscribing cancels the attempt in flight and the pending wait', () => {
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a1 = cold('-e|', responses);
      const a2 = cold<WebhookResponse>('---o|', responses);
      const { post } = scripted([a1, a2]);
      // attempt 2 starts at 11 and would answer at 14; unsubscribed at 12.
      expectObservable(deliverWebhook(post, request, { initialDelayMs: 10 }), '12ms !').toBe('');
      expectSubscriptions(a2.subscriptions).toBe(['11ms ^!']);
    });
  });

  it('never puts the webhook path or query into messages', () => {
    const e = new WebhookDeliveryError(request.url, 'status', { status: 500 });
    expect(e.message).toBe(
      'webhook POST to https://hooks.example.com answered HTTP 500 (retried with backoff; check that the receiver is up)',
    );
    expect(e.message).not.toContain('s3cr3t');
    expect(
      new WebhookDeliveryError(request.url, 'network', { cause: new Error('socket hang up') }).message,
    ).not.toContain('token');
    expect(originOf('http://user:pw@127.0.0.1:8080/x?y=1')).toBe('http://127.0.0.1:8080');
    expect(originOf('not a url')).toBe('<invalid URL>');
  });

  it('refuses a maxAttempts that is not an integer >= 1', () => {
    const post: WebhookPost = () => [{ status: 200 }];
    expect(() => deliverWebhook(post, request, { maxAttempts: 0 })).toThrow(InvalidArgumentError);
    expect(() => deliverWebhook(post, request, { maxAttempts: 1.5 })).toThrow(
      /options.maxAttempts must be an integer >= 1/,
    );
  });
});
