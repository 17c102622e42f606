import { Action } from '@rxkube/core';
import { draftStatus } from '@rxkube/kube';
import { type Observable, concatMap, defer, of } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { WebhookPost, WebhookRequest, WebhookResponse } from './deliver.js';
import {
  type NotifierEvent,
  type NotifierPorts,
  containerImages,
  notificationOf,
  notifiersFor,
  planNotifications,
  reconcileNotifier,
  specProblem,
} from './reconcile.js';
import {
  type Deployment,
  type DeploymentNotifier,
  NOTIFIER,
  type NotifierSpec,
  type NotifierStatus,
} from './types.js';

const URL = 'http://127.0.0.1:9/hook?token=secret';
const T0 = '1970-01-01T00:00:00Z'; // rfc3339 of virtual time 0

const notifier = (spec: Partial<NotifierSpec>, status?: NotifierStatus): DeploymentNotifier => ({
  ...NOTIFIER,
  metadata: { name: 'web-images', namespace: 'ns', generation: 1, uid: 'notifier-uid' },
  spec: { target: { webhook: { url: URL } }, ...spec },
  ...(status !== undefined ? { status } : {}),
});

const deployment = (
  name: string,
  images: Record<string, string>,
  more: { labels?: Record<string, string>; namespace?: string; replicas?: number } = {},
): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name,
    namespace: more.namespace ?? 'ns',
    uid: `uid-${name}`,
    ...(more.labels !== undefined ? { labels: more.labels } : {}),
  },
  spec: {
    replicas: more.replicas ?? 1,
    template: { spec: { containers: Object.entries(images).map(([n, image]) => ({ name: n, image })) } },
  },
});

/** The status a notifier of `web` has after its baseline: nothing left to write for it. */
const settled = (
  notified: Record<string, string>,
  watching = 'watching 1 Deployment(s): web',
): NotifierStatus => ({
  observedGeneration: 1,
  notified,
  conditions: [
    {
      type: 'Ready',
      status: 'True',
      reason: 'Watching',
      message: watching,
      lastTransitionTime: T0,
      observedGeneration: 1,
    },
  ],
});

const WRITE_FAILED = new Error('status write of ns/web-images failed: 5 conflicts');
const ok: Record<string, WebhookResponse> = { o: { status: 200 }, e: { status: 500 } };

/**
 * Fake ports over an in-memory status: a write that changes something takes one frame (`-(w|)`),
 * one that changes nothing answers at once without a "request" (like the status sink).
 */
class Fake {
  status: NotifierStatus | undefined;
  readonly writes: NotifierStatus[] = [];
  readonly posts: WebhookRequest[] = [];
  readonly printed: string[] = [];
  readonly events: NotifierEvent[] = [];
  readonly warnings: string[] = [];
  failWrites = false;

  constructor(
    initial: NotifierStatus | undefined,
    private readonly cold: (
      marbles: string,
      values?: Record<string, unknown>,
      error?: unknown,
    ) => Observable<unknown>,
    answers: readonly Observable<WebhookResponse>[] = [],
  ) {
    this.status = initial;
    this.post = (r) => {
      const answer = answers[this.posts.length];
      this.posts.push(r);
      return answer ?? of({ status: 599 });
    };
  }

  readonly post: WebhookPost;

  ports(): NotifierPorts {
    return {
      post: this.post,
      status: (recipe) =>
        defer(() => {
          const object = { metadata: {}, ...(this.status !== undefined ? { status: this.status } : {}) };
          const { next, patch } = draftStatus<NotifierStatus>(object, recipe);
          if (patch.length === 0) return of('unchanged');
          if (this.failWrites) return this.cold('-#', {}, WRITE_FAILED);
          this.status = next;
          if (next !== undefined) this.writes.push(next);
          return this.cold('-(w|)');
        }),
      record: (e) => this.events.push(e),
      print: (line) => this.printed.push(line),
      warn: (m) => this.warnings.push(m),
    };
  }
}

const newScheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
const actions = { a: Action.awaitChange(), r: Action.requeue(60_000) };

describe('planNotifications (pure)', () => {
  it('records unseen containers as baseline, reports changed images, forgets what is no longer watched', () => {
    const n = notifier(
      { deploymentName: 'web' },
      { notified: { 'web/app': 'nginx:1.26', 'web/old': 'x:1', 'gone/app': 'y:1' } },
    );
    const plan = planNotifications(n, [
      deployment('web', { app: 'nginx:1.27', sidecar: 'busybox:1.36' }),
      deployment('web', { app: 'other:1' }, { namespace: 'elsewhere' }),
      deployment('api', { app: 'api:1' }),
    ]);
    expect(plan).toEqual({
      deployments: ['web'],
      baseline: { 'web/sidecar': 'busybox:1.36' },
      forgotten: ['web/old', 'gone/app'],
      changes: [
        {
          key: 'web/app',
          deployment: 'web',
          deploymentUid: 'uid-web',
          container: 'app',
          from: 'nginx:1.26',
          to: 'nginx:1.27',
        },
      ],
    });
  });

  it('selects by matchLabels within the namespace (an empty matchLabels selects all of it)', () => {
    const ds = [
      deployment('a', { c: 'a:1' }, { labels: { notify: 'true', team: 'x' } }),
      deployment('b', { c: 'b:1' }, { labels: { notify: 'false' } }),
      deployment('c', { c: 'c:1' }),
      deployment('d', { c: 'd:1' }, { labels: { notify: 'true' }, namespace: 'other' }),
    ];
    expect(
      planNotifications(notifier({ selector: { matchLabels: { notify: 'true' } } }), ds).deployments,
    ).toEqual(['a']);
    expect(planNotifications(notifier({ selector: { matchLabels: {} } }), ds).deployments).toEqual([
      'a',
      'b',
      'c',
    ]);
  });

  it('refuses a spec with neither or both of deploymentName and selector', () => {
    expect(specProblem({ target: {} })).toMatch(/deploymentName\) or select some/);
    expect(specProblem({ deploymentName: 'a', selector: { matchLabels: {} }, target: {} })).toMatch(
      /not both/,
    );
    expect(specProblem({ deploymentName: 'a', target: { webhook: { url: 'ftp://x' } } })).toMatch(
      /http:\/\//,
    );
    expect(specProblem({ deploymentName: 'a', target: { webhook: { url: URL, maxAttempts: 0 } } })).toMatch(
      /maxAttempts/,
    );
    expect(
      planNotifications(notifier({ deploymentName: 'a', selector: { matchLabels: {} } }), []).problem,
    ).toBeDefined();
  });

  it('maps a Deployment event to the notifiers that select it or still remember it', () => {
    const byName = notifier({ deploymentName: 'web' });
    const byLabel = {
      ...notifier({ selector: { matchLabels: { team: 'x' } } }),
      metadata: { name: 'team-x', namespace: 'ns' },
    };
    const remembers = {
      ...notifier({ deploymentName: 'other' }, { notified: { 'web/app': 'nginx:1.26' } }),
      metadata: { name: 'old', namespace: 'ns' },
    };
    const elsewhere = {
      ...notifier({ deploymentName: 'web' }),
      metadata: { name: 'web-images', namespace: 'other' },
    };
    const names = (d: Deployment) =>
      notifiersFor(d, [byName, byLabel, remembers, elsewhere]).map((n) => n.metadata.name);
    expect(names(deployment('web', { app: 'nginx:1.27' }))).toEqual(['web-images', 'old']);
    expect(names(deployment('api', { app: 'a:1' }, { labels: { team: 'x' } }))).toEqual(['team-x']);
    expect(names(deployment('web', { app: 'a:1' }, { namespace: 'other' }))).toEqual(['web-images']);
  });

  it('gives each notifier its own idempotency key for the same change', () => {
    const change = planNotifications(
      notifier({ deploymentName: 'web' }, { notified: { 'web/app': 'a:1' } }),
      [deployment('web', { app: 'a:2' })],
    ).changes[0];
    if (change === undefined) throw new Error('expected a change');
    const other = {
      ...notifier({ deploymentName: 'web' }),
      metadata: { name: 'other', namespace: 'ns', uid: 'other-uid' },
    };
    expect(notificationOf(notifier({}), change, T0).idempotencyKey).toBe('notifier-uid/uid-web/app/a:2');
    expect(notificationOf(other, change, T0).idempotencyKey).toBe('other-uid/uid-web/app/a:2');
  });

  it('reads the images of the pod template containers (init containers and image-less ones are not watched)', () => {
    const d = deployment('w', { app: 'a:1' });
    d.spec?.template?.spec?.containers?.push({ name: 'broken' });
    expect(containerImages(d)).toEqual({ app: 'a:1' });
  });
});

describe('reconcileNotifier (marbles, fake ports)', () => {
  it('records the images of a newly seen Deployment as baseline, without notifying', () => {
    let fake: Fake | undefined;
    newScheduler().run(({ cold, expectObservable }) => {
      fake = new Fake(undefined, cold);
      const n = notifier({ deploymentName: 'web' });
      const ds = [
        deployment('web', { app: 'nginx:1.26', sidecar: 'busybox:1.36' }),
        deployment('api', { app: 'a:1' }),
      ];
      // one status write (0 → 1), then done
      expectObservable(reconcileNotifier(n, ds, fake.ports())).toBe('-(a|)', actions);
    });
    expect(fake?.posts).toEqual([]);
    expect(fake?.printed).toEqual([]);
    expect(fake?.writes).toEqual([settled({ 'web/app': 'nginx:1.26', 'web/sidecar': 'busybox:1.36' })]);
  });

  it('notifies a changed image once: console line, POST, then status.notified advanced', () => {
    let fake: Fake | undefined;
    newScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const answer = cold('-o|', ok);
      fake = new Fake(settled({ 'web/app': 'nginx:1.26' }), cold, [answer]);
      const n = notifier({ deploymentName: 'web' }, fake.status);
      // nothing to prepare; POST 0 → 1 (200); status write 1 → 2
      expectObservable(reconcileNotifier(n, [deployment('web', { app: 'nginx:1.27' })], fake.ports())).toBe(
        '--(a|)',
        actions,
      );
      expectSubscriptions(answer.subscriptions).toBe(['^!']);
    });
    expect(fake?.printed).toEqual([
      'deployment-notifier ns/web-images: deployment web container app image nginx:1.26 → nginx:1.27',
    ]);
    expect(fake?.posts).toEqual([
      {
        url: URL,
        body: {
          notifier: 'web-images',
          namespace: 'ns',
          deployment: 'web',
          container: 'app',
          from: 'nginx:1.26',
          to: 'nginx:1.27',
          at: '1970-01-01T00:00:00.000Z',
          idempotencyKey: 'notifier-uid/uid-web/app/nginx:1.27',
        },
      },
    ]);
    expect(fake?.writes).toHaveLength(1);
    expect(fake?.status?.notified).toEqual({ 'web/app': 'nginx:1.27' });
    expect(fake?.status?.conditions?.find((c) => c.type === 'Delivered')).toMatchObject({
      status: 'True',
      reason: 'Delivered',
      message: 'web/app nginx:1.27: HTTP 200 after 1 attempt(s)',
    });
  });

  it('sends nothing and writes nothing when only replicas changed', () => {
    let fake: Fake | undefined;
    newScheduler().run(({ cold, expectObservable }) => {
      fake = new Fake(settled({ 'web/app': 'nginx:1.26' }), cold);
      const n = notifier({ deploymentName: 'web' }, fake.status);
      expectObservable(
        reconcileNotifier(n, [deployment('web', { app: 'nginx:1.26' }, { replicas: 5 })], fake.ports()),
      ).toBe('(a|)', actions);
    });
    expect(fake?.posts).toEqual([]);
    expect(fake?.writes).toEqual([]);
  });

  it('retries a webhook answering 500 twice, then records exactly one delivery', () => {
    let fake: Fake | undefined;
    newScheduler().run(({ cold, expectObservable }) => {
      fake = new Fake(settled({ 'web/app': 'nginx:1.26' }), cold, [
        cold('-e|', ok),
        cold('-e|', ok),
        cold('-o|', ok),
      ]);
      const n = notifier({ deploymentName: 'web' }, fake.status);
      // POST 0 → 1 (500), wait 10, 11 → 12 (500), wait 20, 32 → 33 (200); status write 33 → 34
      const run$ = reconcileNotifier(n, [deployment('web', { app: 'nginx:1.27' })], fake.ports(), {
        delivery: { initialDelayMs: 10 },
      });
      expectObservable(run$).toBe('34ms (a|)', actions);
    });
    expect(fake?.posts.map((p) => p.body.idempotencyKey)).toEqual([
      'notifier-uid/uid-web/app/nginx:1.27',
      'notifier-uid/uid-web/app/nginx:1.27',
      'notifier-uid/uid-web/app/nginx:1.27',
    ]);
    expect(fake?.writes).toHaveLength(1);
    expect(fake?.status?.notified).toEqual({ 'web/app': 'nginx:1.27' });
    expect(fake?.status?.conditions?.find((c) => c.type === 'Delivered')?.message).toBe(
      'web/app nginx:1.27: HTTP 200 after 3 attempt(s)',
    );
  });

  it('gives up after maxAttempts: Warning Event, Delivered=False, notified unchanged, requeue; later changes wait', () => {
    let fake: Fake | undefined;
    const before = settled({ 'web/app': 'nginx:1.26', 'web/sidecar': 'busybox:1.36' });
    newScheduler().run(({ cold, expectObservable }) => {
      fake = new Fake(before, cold, [cold('-e|', ok), cold('-e|', ok)]);
      const n = notifier(
        { deploymentName: 'web', target: { webhook: { url: URL, maxAttempts: 2 } } },
        fake.status,
      );
      const ds = [deployment('web', { app: 'nginx:1.27', sidecar: 'busybox:1.37' })];
      // POST 0 → 1 (500), wait 10, 11 → 12 (500): gave up; Delivered=False written 12 → 13
      const run$ = reconcileNotifier(n, ds, fake.ports(), {
        delivery: { initialDelayMs: 10 },
        redeliverAfterMs: 60_000,
      });
      expectObservable(run$).toBe('13ms (r|)', actions);
    });
    expect(fake?.posts.map((p) => p.body.container)).toEqual(['app', 'app']); // sidecar not attempted
    expect(fake?.status?.notified).toEqual(before.notified);
    expect(fake?.status?.conditions?.find((c) => c.type === 'Delivered')).toMatchObject({
      status: 'False',
      reason: 'WebhookFailed',
    });
    expect(fake?.events).toEqual([
      {
        type: 'Warning',
        reason: 'NotificationFailed',
        action: 'Notify',
        note:
          'notification of web/app nginx:1.26 → nginx:1.27 to http://127.0.0.1:9 failed after 2 attempt(s): ' +
          'webhook POST to http://127.0.0.1:9 answered HTTP 500 (retried with backoff; check that the receiver is up); ' +
          'it stays pending and is retried in 60 s or on the next change',
      },
    ]);
    expect(fake?.warnings).toHaveLength(1);
    expect(JSON.stringify([fake?.events, fake?.warnings, fake?.status])).not.toContain('secret');
  });

  it('notifies several changes one at a time, advancing status after each', () => {
    let fake: Fake | undefined;
    const seen: (Record<string, string> | undefined)[] = [];
    newScheduler().run(({ cold, expectObservable }) => {
      fake = new Fake(settled({ 'web/app': 'nginx:1.26', 'web/sidecar': 'busybox:1.36' }), cold, [
        cold('-o|', ok),
        cold('-o|', ok),
      ]);
      const f = fake;
      const inner = f.post;
      const ports = {
        ...f.ports(),
        post: (r: WebhookRequest) => (seen.push({ ...f.status?.notified }), inner(r)),
      };
      const n = notifier({ deploymentName: 'web' }, f.status);
      // POST app 0 → 1; write 1 → 2; POST sidecar 2 → 3; write 3 → 4
      expectObservable(
        reconcileNotifier(n, [deployment('web', { app: 'nginx:1.27', sidecar: 'busybox:1.37' })], ports),
      ).toBe('----(a|)', actions);
    });
    expect(seen).toEqual([
      { 'web/app': 'nginx:1.26', 'web/sidecar': 'busybox:1.36' },
      { 'web/app': 'nginx:1.27', 'web/sidecar': 'busybox:1.36' },
    ]);
    expect(fake?.status?.notified).toEqual({ 'web/app': 'nginx:1.27', 'web/sidecar': 'busybox:1.37' });
  });

  it('errors when the status write after a delivery fails; the rerun resends with the same idempotency key', () => {
    let fake: Fake | undefined;
    newScheduler().run(({ cold, expectObservable }) => {
      fake = new Fake(settled({ 'web/app': 'nginx:1.26' }), cold, [cold('-o|', ok), cold('-o|', ok)]);
      fake.failWrites = true;
      const n = notifier({ deploymentName: 'web' }, fake.status);
      const ds = [deployment('web', { app: 'nginx:1.27' })];
      // POST 0 → 1; the write fails at 2 (the controller retries the reconcile with backoff)
      expectObservable(reconcileNotifier(n, ds, fake.ports())).toBe('--#', actions, WRITE_FAILED);
      // the rerun at 10: POST 10 → 11; write 11 → 12
      const f = fake;
      const rerun$ = cold('----------x|').pipe(
        concatMap(() =>
          defer(() => {
            f.failWrites = false;
            return reconcileNotifier(n, ds, f.ports());
          }),
        ),
      );
      expectObservable(rerun$).toBe('------------(a|)', actions);
    });
    expect(fake?.posts.map((p) => p.body.idempotencyKey)).toEqual([
      'notifier-uid/uid-web/app/nginx:1.27',
      'notifier-uid/uid-web/app/nginx:1.27',
    ]);
    expect(fake?.status?.notified).toEqual({ 'web/app': 'nginx:1.27' });
  });

  it('without a webhook: the console line, then status; with console: false and a webhook: no line', () => {
    let consoleOnly: Fake | undefined;
    let webhookOnly: Fake | undefined;
    newScheduler().run(({ cold, expectObservable }) => {
      consoleOnly = new Fake(settled({ 'web/app': 'nginx:1.26' }), cold);
      const n1 = notifier({ deploymentName: 'web', target: {} }, consoleOnly.status);
      expectObservable(
        reconcileNotifier(n1, [deployment('web', { app: 'nginx:1.27' })], consoleOnly.ports()),
      ).toBe('-(a|)', actions);
      webhookOnly = new Fake(settled({ 'web/app': 'nginx:1.26' }), cold, [cold('-o|', ok)]);
      const n2 = notifier(
        { deploymentName: 'web', target: { console: false, webhook: { url: URL } } },
        webhookOnly.status,
      );
      expectObservable(
        reconcileNotifier(n2, [deployment('web', { app: 'nginx:1.27' })], webhookOnly.ports()),
      ).toBe('--(a|)', actions);
    });
    expect(consoleOnly?.printed).toHaveLength(1);
    expect(consoleOnly?.posts).toEqual([]);
    expect(consoleOnly?.status?.notified).toEqual({ 'web/app': 'nginx:1.27' });
    expect(consoleOnly?.status?.conditions?.map((c) => c.type)).toEqual(['Ready']);
    expect(webhookOnly?.printed).toEqual([]);
    expect(webhookOnly?.posts).toHaveLength(1);
  });

  it('an invalid spec sets Ready=False InvalidSpec and sends nothing', () => {
    let fake: Fake | undefined;
    newScheduler().run(({ cold, expectObservable }) => {
      fake = new Fake(undefined, cold);
      const n = notifier({});
      expectObservable(reconcileNotifier(n, [deployment('web', { app: 'nginx:1.27' })], fake.ports())).toBe(
        '-(a|)',
        actions,
      );
    });
    expect(fake?.posts).toEqual([]);
    expect(fake?.status?.notified).toBeUndefined();
    expect(fake?.status?.conditions).toEqual([
      {
        type: 'Ready',
        status: 'False',
        reason: 'InvalidSpec',
        message: 'spec must name a Deployment (deploymentName) or select some (selector.matchLabels)',
        lastTransitionTime: T0,
        observedGeneration: 1,
      },
    ]);
  });
});
