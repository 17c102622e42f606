/**
 * The shapes the deployment notifier works with, as plain JSON: its custom resource
 * (`notify.rxkube.io/v1` `DeploymentNotifier`, see `crd.yaml`), the part of an `apps/v1`
 * Deployment it reads, and the notification it sends.
 *
 * @module
 */
import type { Condition, KubeObject, Resource, ResourceType } from '@rxkube/kube';

/** The notifier's resource type. */
export const NOTIFIER: ResourceType<DeploymentNotifier> = {
  apiVersion: 'notify.rxkube.io/v1',
  kind: 'DeploymentNotifier',
};
/** The watched resource type. */
export const DEPLOYMENT: ResourceType<Deployment> = { apiVersion: 'apps/v1', kind: 'Deployment' };
/** The `<plural>.<group>` of the notifier (the testing server's `objects()` name). */
export const NOTIFIER_RESOURCE = 'deploymentnotifiers.notify.rxkube.io';

/** Where notifications go. */
export interface NotifierTarget {
  /** Log one line per change (default `true`). */
  console?: boolean;
  /** POST a JSON {@link Notification} to `url`, retrying up to `maxAttempts` times (default 5). */
  webhook?: { url: string; maxAttempts?: number };
}

/** `spec` of a DeploymentNotifier: exactly one of `deploymentName` and `selector`, and a target. */
export interface NotifierSpec {
  /** The Deployment of the notifier's namespace to watch. */
  deploymentName?: string;
  /** Watch every Deployment of the notifier's namespace whose labels include these. */
  selector?: { matchLabels?: Record<string, string> };
  target: NotifierTarget;
}

/** `status` of a DeploymentNotifier. */
export interface NotifierStatus {
  observedGeneration?: number;
  /**
   * `"<deployment>/<container>"` → the image last notified, or recorded as the baseline when the
   * notifier first saw that container. Written only after the notification was delivered, so it is
   * what survives a restart.
   */
  notified?: Record<string, string>;
  /** `Ready` (the spec is usable) and, with a webhook, `Delivered` (the last delivery's outcome). */
  conditions?: Condition[];
}

/**
 * A DeploymentNotifier custom resource.
 *
 * ## Example
 * ```ts
 * const n: DeploymentNotifier = {
 *   ...NOTIFIER,
 *   metadata: { name: 'web-images', namespace: 'default' },
 *   spec: { deploymentName: 'web', target: { webhook: { url: 'http://127.0.0.1:8080/hook' } } },
 * };
 * ```
 */
export type DeploymentNotifier = Resource<NotifierSpec, NotifierStatus>;

/** A container of a pod template (the fields the notifier reads). */
export interface Container {
  name: string;
  image?: string;
}

/** An `apps/v1` Deployment (the fields the notifier reads). */
export type Deployment = KubeObject<{
  replicas?: number;
  template?: { spec?: { containers?: Container[] } };
}>;

/**
 * The JSON body of a webhook notification: one container image change of one Deployment.
 *
 * ## Example
 * ```json
 * { "notifier": "web-images", "namespace": "default", "deployment": "web", "container": "app",
 *   "from": "nginx:1.26", "to": "nginx:1.27", "at": "2025-01-01T12:00:00.000Z",
 *   "idempotencyKey": "0b1e…/6f1c…/app/nginx:1.27" }
 * ```
 */
export interface Notification {
  /** The DeploymentNotifier's name. */
  readonly notifier: string;
  readonly namespace: string;
  readonly deployment: string;
  readonly container: string;
  /** The image notified before (or the baseline). */
  readonly from: string;
  /** The image now in the Deployment's pod template. */
  readonly to: string;
  /** When the operator saw the change (ISO 8601); the same for every attempt of one delivery. */
  readonly at: string;
  /**
   * `<notifier uid>/<deployment uid>/<container>/<to>`: the same for every redelivery of this
   * change by this notifier (retries, a requeue after giving up, a restart between "sent" and
   * "status written"), so a receiver can drop duplicates. Also sent as the `Idempotency-Key` header.
   * A later return to the same image gets the same key again: remember keys for minutes, not forever.
   */
  readonly idempotencyKey: string;
}
