/**
 * The deployment notifier's reconcile logic, free of wiring: which Deployments a notifier watches,
 * which container images changed since the notifier last notified (its `status.notified`), and the
 * reconcile that notifies each change once and records it. Side effects (webhook POST, status
 * write, Event, console line) enter as ports; the POST and the status write return
 * `ObservableInput`, so the marble tests pass `cold()`.
 *
 * What it does not do: watch anything or talk to an API server (see `operator.ts`), HTTP (see
 * `webhook.ts`).
 *
 * ## Semantics (what "once per change" means)
 * - **Baseline**: the first time a notifier sees a container (a new notifier, a Deployment that
 *   starts matching, a container added to a template), its current image is recorded in
 *   `status.notified` without a notification.
 * - **Change**: a container whose image differs from `status.notified` is notified (console line,
 *   webhook POST), and only after every target succeeded is `status.notified` advanced. Changes
 *   that happen while a delivery runs, or while the operator is down, are coalesced: the next
 *   reconcile notifies `from` = the last notified image, `to` = the current one.
 * - **Restarts**: `status.notified` lives on the server, so a new operator process sends nothing
 *   for images already notified and exactly one notification for a change made while it was down.
 * - **At-least-once**: a crash (or a failed status write) between "POST answered 2xx" and "status
 *   written" sends the notification again on the next reconcile. Every redelivery of a change
 *   carries the same `idempotencyKey` (`<notifier uid>/<deployment uid>/<container>/<image>`) so
 *   the receiver can drop duplicates (two notifiers of one Deployment send two notifications with
 *   different keys); a later return to the same image reuses the key, so receivers should
 *   remember keys for a bounded time (minutes), not forever.
 * - **Giving up**: a delivery that failed `maxAttempts` times (or got a non-retryable answer)
 *   leaves `status.notified` as it was, sets `Delivered=False`, records a Warning Event
 *   `NotificationFailed`, and requeues after `redeliverAfterMs`: a webhook that is down delays
 *   notifications, it does not lose them. Deliveries stop at the first failure (the receiver is
 *   likely down for all of them).
 * - **Forgetting**: keys of Deployments or containers that no longer match are removed from
 *   `status.notified` (the Deployment cache is complete before any reconcile runs).
 *
 * @module
 */
import { Action, InvalidArgumentError } from '@rxkube/core';
import { setCondition } from '@rxkube/kube';
import {
  type Observable,
  type ObservableInput,
  type SchedulerLike,
  asyncScheduler,
  concatMap,
  defer,
  from,
  last,
  map,
  of,
  switchMap,
  takeWhile,
} from 'rxjs';
import {
  DEFAULT_DELIVERY,
  type DeliveryOptions,
  type DeliveryOutcome,
  type WebhookPost,
  deliverWebhook,
  originOf,
} from './deliver.js';
import type { Deployment, DeploymentNotifier, Notification, NotifierStatus } from './types.js';

/** Default wait before a delivery that gave up is tried again: 5 minutes. */
export const DEFAULT_REDELIVER_AFTER_MS = 300_000;

/**
 * The `status.notified` key of a container: `<deployment>/<container>` (both DNS labels, so the
 * `/` is unambiguous).
 *
 * ## Example
 * ```ts
 * notifiedKey('web', 'app'); // 'web/app'
 * ```
 */
export function notifiedKey(deployment: string, container: string): string {
  return `${deployment}/${container}`;
}

/**
 * What is wrong with a notifier's spec, or `undefined` when it is usable: exactly one of
 * `deploymentName` and `selector.matchLabels` (the CRD says so too, but the embedded API server
 * does not enforce `oneOf`), and a `target`.
 *
 * ## Example
 * ```ts
 * specProblem({ target: {} }); // 'spec must name a Deployment (deploymentName) or select some (selector.matchLabels)'
 * ```
 */
export function specProblem(spec: DeploymentNotifier['spec']): string | undefined {
  if (spec === undefined) return 'the notifier has no spec';
  const byName = typeof spec.deploymentName === 'string' && spec.deploymentName !== '';
  const bySelector = spec.selector?.matchLabels !== undefined && spec.selector.matchLabels !== null;
  if (byName && bySelector) {
    return 'spec must have either deploymentName or selector, not both: remove one of them';
  }
  if (!byName && !bySelector) {
    return 'spec must name a Deployment (deploymentName) or select some (selector.matchLabels)';
  }
  if (spec.target === undefined || spec.target === null)
    return 'spec.target is missing: set console and/or webhook';
  const webhook = spec.target.webhook;
  if (webhook !== undefined) {
    if (!/^https?:\/\//.test(webhook.url))
      return 'spec.target.webhook.url must start with http:// or https://';
    const attempts = webhook.maxAttempts;
    if (attempts !== undefined && (!Number.isInteger(attempts) || attempts < 1)) {
      return 'spec.target.webhook.maxAttempts must be an integer >= 1';
    }
  }
  return undefined;
}

/**
 * Whether `notifier` watches `deployment`: same namespace, and the name equals `deploymentName` or
 * the labels include every `selector.matchLabels` entry (an empty `matchLabels` selects every
 * Deployment of the namespace, as in Kubernetes).
 *
 * ## Example
 * ```ts
 * selects(notifier, deployment) && planNotifications(notifier, [deployment]);
 * ```
 */
export function selects(notifier: DeploymentNotifier, deployment: Deployment): boolean {
  if ((deployment.metadata.namespace ?? '') !== (notifier.metadata.namespace ?? '')) return false;
  const spec = notifier.spec;
  if (spec === undefined || specProblem(spec) !== undefined) return false;
  if (spec.deploymentName !== undefined) return deployment.metadata.name === spec.deploymentName;
  const labels = deployment.metadata.labels ?? {};
  return Object.entries(spec.selector?.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
}

/**
 * The notifiers an event of `deployment` concerns (the controller's mapped watch): those of its
 * namespace that select it, and those that still remember one of its containers in
 * `status.notified` (so a Deployment that stops matching, or is deleted, is forgotten promptly).
 *
 * ## Example
 * ```ts
 * notifiersFor(deployment, notifierStore.list(deployment.metadata.namespace)).map((n) => n.metadata.name);
 * ```
 */
export function notifiersFor(
  deployment: Deployment,
  notifiers: readonly DeploymentNotifier[],
): DeploymentNotifier[] {
  const prefix = `${deployment.metadata.name ?? ''}/`;
  return notifiers.filter(
    (n) =>
      (n.metadata.namespace ?? '') === (deployment.metadata.namespace ?? '') &&
      (selects(n, deployment) || Object.keys(n.status?.notified ?? {}).some((k) => k.startsWith(prefix))),
  );
}

/**
 * The images of a Deployment's pod template, by container name (`initContainers` are not
 * watched; containers without an image are skipped).
 *
 * ## Example
 * ```ts
 * containerImages(web); // { app: 'nginx:1.26', sidecar: 'busybox:1.36' }
 * ```
 */
export function containerImages(deployment: Deployment): Record<string, string> {
  const images: Record<string, string> = {};
  for (const c of deployment.spec?.template?.spec?.containers ?? []) {
    if (typeof c.name === 'string' && typeof c.image === 'string' && c.image !== '') images[c.name] = c.image;
  }
  return images;
}

/** One container image change to notify. */
export interface ImageChange {
  /** `status.notified` key: `<deployment>/<container>`. */
  readonly key: string;
  readonly deployment: string;
  /** The Deployment's uid (part of the idempotency key; `namespace/name` when it has none). */
  readonly deploymentUid: string;
  readonly container: string;
  readonly from: string;
  readonly to: string;
}

/** What a notifier has to do, from its status and the Deployments of its namespace. */
export interface NotifierPlan {
  /** Why the spec is unusable; when set, every other field is empty. */
  readonly problem?: string;
  /** The names of the Deployments it watches, sorted. */
  readonly deployments: readonly string[];
  /** Containers seen for the first time → their image: recorded without a notification. */
  readonly baseline: Readonly<Record<string, string>>;
  /** `status.notified` keys of containers no longer watched: removed. */
  readonly forgotten: readonly string[];
  /** Image changes to notify, by Deployment name, then container order. */
  readonly changes: readonly ImageChange[];
}

/**
 * Compares the watched Deployments' images with `status.notified`.
 *
 * ## Example
 * ```ts
 * const plan = planNotifications(notifier, store.list(notifier.metadata.namespace));
 * plan.changes; // [{ key: 'web/app', from: 'nginx:1.26', to: 'nginx:1.27', … }]
 * ```
 *
 * @param notifier the notifier (its spec and `status.notified`).
 * @param deployments candidate Deployments (any namespace; only the notifier's is considered).
 */
export function planNotifications(
  notifier: DeploymentNotifier,
  deployments: readonly Deployment[],
): NotifierPlan {
  const problem = specProblem(notifier.spec);
  if (problem !== undefined) return { problem, deployments: [], baseline: {}, forgotten: [], changes: [] };
  const notified = notifier.status?.notified ?? {};
  const watched = deployments
    .filter((d) => selects(notifier, d))
    .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
  const baseline: Record<string, string> = {};
  const changes: ImageChange[] = [];
  const current = new Set<string>();
  for (const d of watched) {
    const name = d.metadata.name ?? '';
    for (const [container, image] of Object.entries(containerImages(d))) {
      const key = notifiedKey(name, container);
      current.add(key);
      const before = notified[key];
      if (before === undefined) baseline[key] = image;
      else if (before !== image) {
        changes.push({
          key,
          deployment: name,
          deploymentUid: d.metadata.uid ?? `${d.metadata.namespace ?? ''}/${name}`,
          container,
          from: before,
          to: image,
        });
      }
    }
  }
  return {
    deployments: watched.map((d) => d.metadata.name ?? ''),
    baseline,
    forgotten: Object.keys(notified).filter((k) => !current.has(k)),
    changes,
  };
}

/**
 * The notification of one change, as the webhook receives it.
 *
 * ## Example
 * ```ts
 * notificationOf(notifier, change, '2025-01-01T12:00:00.000Z').idempotencyKey;
 * // '<notifier uid>/<deployment uid>/app/nginx:1.27'
 * ```
 */
export function notificationOf(notifier: DeploymentNotifier, change: ImageChange, at: string): Notification {
  return {
    notifier: notifier.metadata.name ?? '',
    namespace: notifier.metadata.namespace ?? '',
    deployment: change.deployment,
    container: change.container,
    from: change.from,
    to: change.to,
    at,
    idempotencyKey: `${notifier.metadata.uid ?? ''}/${change.deploymentUid}/${change.container}/${change.to}`,
  };
}

/**
 * The console line of a notification.
 *
 * ## Example
 * ```ts
 * consoleLine(n); // 'deployment-notifier default/web-images: deployment web container app image nginx:1.26 → nginx:1.27'
 * ```
 */
export function consoleLine(n: Notification): string {
  return (
    `deployment-notifier ${n.namespace}/${n.notifier}: deployment ${n.deployment} ` +
    `container ${n.container} image ${n.from} → ${n.to}`
  );
}

/** An Event about the notifier (`regarding` is the notifier). */
export interface NotifierEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly action: string;
  readonly note: string;
}

/** The side effects of a reconcile. */
export interface NotifierPorts {
  /** POSTs a notification (see `httpPost()`); retried by {@link deliverWebhook}. */
  readonly post: WebhookPost;
  /**
   * Writes the notifier's status: `recipe` mutates a draft of the latest status (the status sink:
   * no request when nothing changed). Errors when the write failed.
   */
  readonly status: (recipe: (draft: NotifierStatus) => void) => ObservableInput<unknown>;
  /** Records an Event about the notifier (Warning `NotificationFailed`). */
  readonly record: (event: NotifierEvent) => void;
  /** Prints a console notification line (the `console` target); `notification` for structured logs. */
  readonly print: (line: string, notification: Notification) => void;
  /** Logs an operator warning (a delivery that gave up). */
  readonly warn: (message: string) => void;
}

/** Options of {@link reconcileNotifier}. */
export interface NotifierReconcileOptions {
  /** Backoff of webhook retries (`maxAttempts` comes from the notifier's spec). */
  readonly delivery?: Omit<DeliveryOptions, 'maxAttempts'>;
  /** Wait before a delivery that gave up is tried again, ms. Default {@link DEFAULT_REDELIVER_AFTER_MS}. */
  readonly redeliverAfterMs?: number;
}

/**
 * Reconciles one notifier: records baselines, notifies each image change once (console line,
 * webhook with retries) and advances `status.notified` after each delivered change; see the
 * module doc for the exact semantics.
 *
 * ## Example
 * ```ts
 * reconcileNotifier(ctx.object, deployments.list(namespace), {
 *   post: httpPost(),
 *   status: (recipe) => ctx.status(recipe),
 *   record: (e) => ctx.record(e),
 *   print: console.log,
 *   warn: (m) => ctx.log.warn?.(m, {}),
 * });
 * ```
 *
 * ## Semantics
 * - Invalid spec: one status write (`Ready=False`, reason `InvalidSpec`), then `awaitChange`.
 * - Otherwise: one status write with `observedGeneration`, the baselines, the forgotten keys and
 *   `Ready=True` (no request when already so); then, one change at a time: print, deliver,
 *   then a status write of `notified[key] = to` (and `Delivered=True` with a webhook).
 * - A delivery that gave up: Warning Event, a status write of `Delivered=False` only, no further
 *   deliveries this run; the Action is `requeue(redeliverAfterMs)`. Otherwise `awaitChange`.
 * - error: a failed status write errors the reconcile (the controller retries it with backoff;
 *   a change delivered before that write is delivered again, with the same idempotency key).
 * - unsubscribe: the POST or status write in flight is unsubscribed, pending waits cancelled.
 *
 * @param notifier the notifier, as the reconcile got it (`ctx.object`).
 * @param deployments the Deployments of its namespace (from the controller's Store).
 * @param ports see {@link NotifierPorts}.
 * @param options see {@link NotifierReconcileOptions}.
 * @param scheduler time source of retries, timeouts, `at` and condition times; `TestScheduler.run` virtualises it.
 * @throws {InvalidArgumentError} synchronously for a `redeliverAfterMs` that is not a number >= 0.
 */
export function reconcileNotifier(
  notifier: DeploymentNotifier,
  deployments: readonly Deployment[],
  ports: NotifierPorts,
  options: NotifierReconcileOptions = {},
  scheduler: SchedulerLike = asyncScheduler,
): Observable<Action> {
  const redeliverAfterMs = options.redeliverAfterMs ?? DEFAULT_REDELIVER_AFTER_MS;
  if (typeof redeliverAfterMs !== 'number' || !Number.isFinite(redeliverAfterMs) || redeliverAfterMs < 0) {
    throw new InvalidArgumentError(
      'reconcileNotifier',
      'options.redeliverAfterMs',
      redeliverAfterMs,
      'must be a finite number of ms >= 0',
    );
  }
  return defer(() => {
    const generation = notifier.metadata.generation;
    const observed = (s: NotifierStatus): void => {
      if (generation !== undefined && s.observedGeneration !== generation) s.observedGeneration = generation;
    };
    const gen = generation !== undefined ? { observedGeneration: generation } : {};
    const plan = planNotifications(notifier, deployments);
    if (plan.problem !== undefined) {
      const problem = plan.problem;
      return from(
        ports.status((s) => {
          observed(s);
          setCondition(
            s,
            { type: 'Ready', status: 'False', reason: 'InvalidSpec', message: problem, ...gen },
            scheduler,
          );
        }),
      ).pipe(
        last(null, null),
        map(() => Action.awaitChange()),
      );
    }

    const spec = notifier.spec;
    const webhook = spec?.target.webhook;
    const consoleOn = spec?.target.console !== false;
    const watching =
      plan.deployments.length === 0
        ? spec?.deploymentName !== undefined
          ? `no Deployment named ${spec.deploymentName} in this namespace yet`
          : 'no Deployment of this namespace matches the selector yet'
        : `watching ${plan.deployments.length} Deployment(s): ${plan.deployments.join(', ')}`;
    const prepare$ = from(
      ports.status((s) => {
        observed(s);
        const keys = Object.keys(plan.baseline);
        if (keys.length > 0 || plan.forgotten.length > 0) {
          const notified = (s.notified ??= {});
          for (const key of keys) notified[key] = plan.baseline[key] ?? '';
          for (const key of plan.forgotten) delete notified[key];
        }
        setCondition(
          s,
          { type: 'Ready', status: 'True', reason: 'Watching', message: watching, ...gen },
          scheduler,
        );
      }),
    ).pipe(last(null, null));

    const notifyOne = (change: ImageChange): Observable<'delivered' | 'failed'> =>
      defer(() => {
        const body = notificationOf(notifier, change, new Date(scheduler.now()).toISOString());
        if (consoleOn) ports.print(consoleLine(body), body);
        const delivered$: Observable<DeliveryOutcome | undefined> =
          webhook === undefined
            ? of(undefined)
            : deliverWebhook(
                ports.post,
                { url: webhook.url, body },
                { ...options.delivery, maxAttempts: webhook.maxAttempts ?? DEFAULT_DELIVERY.maxAttempts },
                scheduler,
              );
        return delivered$.pipe(
          concatMap((outcome) => {
            if (outcome === undefined || outcome.type === 'delivered') {
              return from(
                ports.status((s) => {
                  (s.notified ??= {})[change.key] = change.to;
                  if (outcome !== undefined) {
                    const message = `${change.key} ${change.to}: HTTP ${outcome.status} after ${outcome.attempts} attempt(s)`;
                    setCondition(
                      s,
                      { type: 'Delivered', status: 'True', reason: 'Delivered', message, ...gen },
                      scheduler,
                    );
                  }
                }),
              ).pipe(
                last(null, null),
                map(() => 'delivered' as const),
              );
            }
            const note =
              `notification of ${change.key} ${change.from} → ${change.to} to ${originOf(webhook?.url ?? '')} ` +
              `failed after ${outcome.attempts} attempt(s): ${outcome.error.message}; ` +
              `it stays pending and is retried in ${Math.round(redeliverAfterMs / 1000)} s or on the next change`;
            ports.warn(
              `deployment-notifier ${notifier.metadata.namespace ?? ''}/${notifier.metadata.name ?? ''}: ${note}`,
            );
            ports.record({ type: 'Warning', reason: 'NotificationFailed', action: 'Notify', note });
            return from(
              ports.status((s) => {
                setCondition(
                  s,
                  { type: 'Delivered', status: 'False', reason: 'WebhookFailed', message: note, ...gen },
                  scheduler,
                );
              }),
            ).pipe(
              last(null, null),
              map(() => 'failed' as const),
            );
          }),
        );
      });

    return prepare$.pipe(
      switchMap(() =>
        from(plan.changes).pipe(
          concatMap(notifyOne),
          takeWhile((o) => o === 'delivered', true),
        ),
      ),
      last(null, 'delivered' as const),
      map((o) => (o === 'failed' ? Action.requeue(redeliverAfterMs) : Action.awaitChange())),
    );
  });
}
