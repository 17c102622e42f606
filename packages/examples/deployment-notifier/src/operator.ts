/**
 * The deployment notifier's wiring: the DeploymentNotifier CRD, one controller registered with a
 * {@link Manager}, and the real webhook side effect.
 *
 * Watches (shared through the manager's registry):
 * - DeploymentNotifier, the primary (its status is written through the controller's status sink,
 *   whose echoes trigger nothing);
 * - Deployments (apps/v1), a mapped watch: an event of a Deployment requests the notifiers of its
 *   namespace that select it or still remember it (`notifiersFor`), found in the manager's shared
 *   notifier Store.
 *
 * The reconcile (`reconcileNotifier` in `reconcile.ts`) reads the notifier and the Deployments of
 * its namespace from the Stores, records baselines, notifies image changes once and writes
 * `status.notified` after each delivery. Works unchanged against a real cluster.
 *
 * @module
 */
import type { KubeClient, Manager, ReconcileContext } from '@rxkube/kube';
import { findCondition } from '@rxkube/kube';
import { defer } from 'rxjs';
import { exampleFile } from '../../src/paths.js';
import type { DeliveryOptions, WebhookPost } from './deliver.js';
import {
  type NotifierPlan,
  type NotifierPorts,
  containerImages,
  notifiersFor,
  planNotifications,
  reconcileNotifier,
  selects,
} from './reconcile.js';
import { httpPost } from './webhook.js';
import {
  DEPLOYMENT,
  type Deployment,
  type DeploymentNotifier,
  NOTIFIER,
  type Notification,
} from './types.js';

/** The operator's (and its controller's) name; also the status field manager. */
export const name = 'deployment-notifier';

/** Options of {@link setup}. */
export interface DeploymentNotifierOptions {
  /** The webhook side effect. Default `httpPost()` (node:http/https). */
  readonly post?: WebhookPost;
  /** The console target. Default: `mgr.log.info({ notification }, line)`. */
  readonly print?: (line: string, notification: Notification) => void;
  /** Backoff of webhook retries (`maxAttempts` is per notifier, in its spec). */
  readonly delivery?: Omit<DeliveryOptions, 'maxAttempts'>;
  /** Wait before a delivery that gave up is tried again, ms. Default 5 minutes. */
  readonly redeliverAfterMs?: number;
  /** Reconciles in flight (notifiers are independent). Default the manager's (1). */
  readonly concurrency?: number;
  /**
   * Called when a reconcile starts, with what it read and what it is about to do (the plan); for
   * logs and tests. Default: a debug log line when the plan is not empty.
   */
  readonly onPlan?: (
    notifier: DeploymentNotifier,
    deployments: readonly Deployment[],
    plan: NotifierPlan,
  ) => void;
}

/**
 * Installs the DeploymentNotifier CRD (server-side apply, waits until served) and registers the
 * `deployment-notifier` controller with `mgr`. Call before `mgr.start()`.
 *
 * ## Example
 * ```ts
 * const mgr = new Manager({ client: KubeClient.default(), name: 'deployment-notifier' });
 * await setup(mgr);
 * await mgr.start();
 * ```
 *
 * ## Semantics
 * - See `reconcile.ts` for what is notified when (baseline, once per change, at-least-once with an
 *   idempotency key across crashes, giving up and redelivering).
 * - RBAC: the manager derives list/watch on DeploymentNotifiers and Deployments, `patch` on
 *   `deploymentnotifiers/status` and Events; the reconcile writes nothing else in the cluster.
 * - With a manager restricted to `namespaces`, notifiers there watch Deployments there.
 *
 * @throws the CRD's `InvalidCrdError`/`CrdNotEstablishedError`, or a `KubeApiError` (e.g. 403:
 *   installing a CRD needs `apiextensions.k8s.io` `customresourcedefinitions` patch rights, which
 *   `rxkube rbac` grants on this CRD by name; creating it needs `create`, so apply it ahead).
 */
export async function setup(mgr: Manager, options: DeploymentNotifierOptions = {}): Promise<void> {
  // Through the manager, so `managerRbac` (`rxkube rbac`) grants get/patch on this CRD.
  await mgr.ensureCrd(exampleFile('deployment-notifier', 'crd.yaml'), { fieldManager: name });
  const post = options.post ?? httpPost();
  const print =
    options.print ?? ((line: string, notification: Notification) => mgr.log.info({ notification }, line));
  const onPlan = options.onPlan ?? ((n, _d, plan) => debugPlan(mgr, n, plan));
  mgr.add<DeploymentNotifier>(
    name,
    {
      for: NOTIFIER,
      watches: [
        {
          resource: DEPLOYMENT,
          // The notifiers of the Deployment's namespace, from the controller's cache (whatever
          // namespaces the manager watches).
          map: (deployment: Deployment, { cache }) => {
            const namespace = deployment.metadata.namespace ?? '';
            return notifiersFor(deployment, cache.list(NOTIFIER, { namespace })).map((n) => ({
              namespace,
              name: n.metadata.name ?? '',
            }));
          },
        },
      ],
      status: { fieldManager: name },
      events: true,
      ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    },
    (request, ctx) =>
      defer(() => {
        const notifier = ctx.object;
        const deployments = ctx.cache.list(DEPLOYMENT, { namespace: request.namespace ?? '' });
        onPlan(notifier, deployments, planNotifications(notifier, deployments));
        return reconcileNotifier(notifier, deployments, notifierPorts(ctx, post, print), {
          ...(options.delivery !== undefined ? { delivery: options.delivery } : {}),
          ...(options.redeliverAfterMs !== undefined ? { redeliverAfterMs: options.redeliverAfterMs } : {}),
        });
      }),
  );
}

/**
 * The reconcile's ports over a controller context: the status sink (`ctx.status`), the Event
 * recorder (`ctx.record`), the controller's logger, and the given POST and console functions.
 *
 * ## Example
 * ```ts
 * reconcileNotifier(ctx.object, deployments, notifierPorts(ctx, httpPost(), console.log));
 * ```
 */
export function notifierPorts(
  ctx: ReconcileContext<DeploymentNotifier>,
  post: WebhookPost,
  print: (line: string, notification: Notification) => void,
): NotifierPorts {
  return {
    post,
    status: (recipe) => ctx.status(recipe),
    record: (event) => ctx.record(event),
    print,
    warn: (message) => ctx.log.warn?.(message, {}),
  };
}

function debugPlan(mgr: Manager, notifier: DeploymentNotifier, plan: NotifierPlan): void {
  const empty =
    plan.problem === undefined &&
    plan.changes.length === 0 &&
    plan.forgotten.length === 0 &&
    Object.keys(plan.baseline).length === 0;
  if (empty) return;
  mgr.log.debug(
    {
      notifier: `${notifier.metadata.namespace ?? ''}/${notifier.metadata.name ?? ''}`,
      problem: plan.problem,
      baseline: plan.baseline,
      forgotten: plan.forgotten,
      changes: plan.changes.map((c) => `${c.key} ${c.from} → ${c.to}`),
    },
    'deployment-notifier plan',
  );
}

/** One row of {@link summarise}: a watched container of a notifier. */
export interface NotifierRow {
  /** `namespace/name` of the notifier. */
  readonly notifier: string;
  /** `<deployment>/<container>`, or `-` when the notifier watches nothing (yet). */
  readonly container: string;
  /** The image in `status.notified` (`-` when none yet). */
  readonly notified: string;
  /** The image in the Deployment now. */
  readonly current: string;
  /** `status.notified` equals the current image: nothing pending. */
  readonly upToDate: boolean;
  /** The notifier's `Delivered` condition: `True`, `False: <reason>` or `-` (no webhook delivery yet). */
  readonly delivered: string;
}

/**
 * The server's state as the operator sees it: one row per watched container of every notifier
 * (its notified and current image). For the demo's summary table and convergence checks.
 *
 * ## Example
 * ```ts
 * const rows = await summarise(mgr.client, 'default');
 * const converged = rows.every((r) => r.upToDate);
 * ```
 */
export async function summarise(client: KubeClient, namespace?: string): Promise<NotifierRow[]> {
  const ns = namespace !== undefined ? { namespace } : {};
  const [notifiers, deployments] = await Promise.all([
    client.list<DeploymentNotifier>(NOTIFIER, ns),
    client.list<Deployment>(DEPLOYMENT, ns),
  ]);
  const rows: NotifierRow[] = [];
  for (const n of notifiers.items) {
    const id = `${n.metadata.namespace ?? ''}/${n.metadata.name ?? ''}`;
    const delivered = findCondition(n.status, 'Delivered');
    const deliveredText =
      delivered === undefined
        ? '-'
        : delivered.status === 'True'
          ? 'True'
          : `${delivered.status}: ${delivered.reason}`;
    const watched = deployments.items
      .filter((d) => selects(n, d))
      .sort((a, b) => (a.metadata.name ?? '').localeCompare(b.metadata.name ?? ''));
    const before = rows.length;
    for (const d of watched) {
      for (const [container, image] of Object.entries(containerImages(d))) {
        const key = `${d.metadata.name ?? ''}/${container}`;
        const notified = n.status?.notified?.[key];
        rows.push({
          notifier: id,
          container: key,
          notified: notified ?? '-',
          current: image,
          upToDate: notified === image,
          delivered: deliveredText,
        });
      }
    }
    if (rows.length === before) {
      rows.push({
        notifier: id,
        container: '-',
        notified: '-',
        current: '-',
        upToDate: true,
        delivered: deliveredText,
      });
    }
  }
  return rows;
}
