/**
 * The reconcile logic of the echo-server operator, free of wiring.
 *
 * An `EchoServer` is turned into its children by a pure function ({@link desiredChildren}: a
 * Deployment of `hashicorp/http-echo` answering `spec.message`, and a Service in front of it unless
 * `spec.expose` is false); its status is derived from what the children report
 * ({@link deriveStatus}: ready replicas from the Deployment's status, the URL from the Service, a
 * `Ready` condition). {@link reconcileEchoServer} strings them together over ports (apply the
 * children, read them back, write the status), so marble tests drive it with `cold()` observables.
 *
 * What it does not do: talk to the API server (that is `operator.ts`), poll (a change of a child
 * reruns the reconcile through `owns`), or delete children itself (the garbage collector does when
 * the EchoServer goes; `applyChildren` prunes the ones no longer desired).
 *
 * @module
 */
import { Action } from '@rxkube/core';
import {
  type ApplyChildrenResult,
  type ConditionInput,
  type KubeObject,
  type ObjectRef,
  type ResourceType,
  setCondition,
} from '@rxkube/kube';
import {
  asyncScheduler,
  concat,
  defaultIfEmpty,
  defer,
  forkJoin,
  from,
  ignoreElements,
  map,
  type Observable,
  type ObservableInput,
  of,
  type SchedulerLike,
  switchMap,
} from 'rxjs';

import type { EchoServer, EchoServerStatus } from './echo-server.js';

/** The field manager of every write the operator makes (children and status). */
export const FIELD_MANAGER = 'echo-server';
/** The echo server image. */
export const ECHO_IMAGE = 'hashicorp/http-echo:1.0';
/** The port http-echo listens on in its container. */
export const ECHO_PORT = 5678;
/** The port the Service exposes. */
export const SERVICE_PORT = 80;
/** `app.kubernetes.io/managed-by` on every child. */
export const MANAGED_BY = 'echo-server-operator';

/** apiVersion and kind of the Deployment child. */
export const deploymentType: ResourceType<Deployment> = { apiVersion: 'apps/v1', kind: 'Deployment' };
/** apiVersion and kind of the Service child. */
export const serviceType: ResourceType<Service> = { apiVersion: 'v1', kind: 'Service' };
/** The kinds the operator owns (watched, and pruned when no longer desired). */
export const childTypes: readonly ResourceType[] = [deploymentType, serviceType];

/** The apps/v1 Deployment fields the operator writes and reads, as plain JSON. */
export interface Deployment extends KubeObject<
  {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: Record<string, unknown> };
  },
  {
    observedGeneration?: number;
    /** Zero counts are omitted by the server (Go `omitempty`). */
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
  }
> {
  apiVersion: 'apps/v1';
  kind: 'Deployment';
}

/** The core/v1 Service fields the operator writes and reads, as plain JSON. */
export interface Service extends KubeObject<{
  type?: string;
  selector?: Record<string, string>;
  ports?: { name?: string; protocol?: string; port: number; targetPort?: number | string }[];
}> {
  apiVersion: 'v1';
  kind: 'Service';
}

/**
 * The labels that select an EchoServer's pods (and mark its children).
 *
 * ## Example
 * ```ts
 * selectorLabels(echo); // { 'app.kubernetes.io/name': 'http-echo', 'app.kubernetes.io/instance': 'hello' }
 * ```
 */
export function selectorLabels(parent: EchoServer): Record<string, string> {
  return { 'app.kubernetes.io/name': 'http-echo', 'app.kubernetes.io/instance': parent.metadata.name ?? '' };
}

/**
 * Whether the EchoServer wants a Service (`spec.expose`, default true as in the CRD).
 *
 * ## Example
 * ```ts
 * isExposed(echo) ? 'Deployment + Service' : 'Deployment only';
 * ```
 */
export function isExposed(parent: EchoServer): boolean {
  return parent.spec?.expose !== false;
}

/**
 * The refs of an EchoServer's children (both named after it, in its namespace).
 *
 * ## Example
 * ```ts
 * await client.get(childRefs(echo).deployment);
 * ```
 */
export function childRefs(parent: EchoServer): {
  readonly deployment: ObjectRef;
  readonly service: ObjectRef;
} {
  const name = parent.metadata.name ?? '';
  const namespace = parent.metadata.namespace;
  const at = namespace !== undefined ? { namespace } : {};
  return { deployment: { ...deploymentType, ...at, name }, service: { ...serviceType, ...at, name } };
}

/**
 * The children an EchoServer should have: a Deployment running `replicas` http-echo pods answering
 * `message`, and — unless `spec.expose` is false — a ClusterIP Service (port 80 → 5678). Pure: the
 * same parent gives equal children, so re-applying them changes nothing. Namespace and
 * ownerReferences are left to `applyChildren` (the owner's namespace; a controller reference).
 *
 * ## Example
 * ```ts
 * await applyChildren(client, echo, desiredChildren(echo), { fieldManager: FIELD_MANAGER, childTypes });
 * ```
 */
export function desiredChildren(parent: EchoServer): (Deployment | Service)[] {
  const name = parent.metadata.name ?? '';
  const selector = selectorLabels(parent);
  const labels = { ...selector, 'app.kubernetes.io/managed-by': MANAGED_BY };
  const deployment: Deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      replicas: parent.spec?.replicas ?? 1,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'http-echo',
              image: ECHO_IMAGE,
              args: [`-text=${parent.spec?.message ?? ''}`, `-listen=:${String(ECHO_PORT)}`],
              ports: [{ name: 'http', containerPort: ECHO_PORT, protocol: 'TCP' }],
              readinessProbe: { httpGet: { path: '/', port: 'http' }, periodSeconds: 5 },
              resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } },
            },
          ],
        },
      },
    },
  };
  if (!isExposed(parent)) return [deployment];
  const service: Service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels },
    spec: {
      type: 'ClusterIP',
      selector,
      ports: [{ name: 'http', protocol: 'TCP', port: SERVICE_PORT, targetPort: ECHO_PORT }],
    },
  };
  return [deployment, service];
}

/** The children as read back from the server (absent: not there, or not wanted). */
export interface ObservedChildren {
  readonly deployment?: Deployment | undefined;
  readonly service?: Service | undefined;
}

/** The status an EchoServer should show, before condition times are applied ({@link statusRecipe}). */
export interface DerivedStatus {
  readonly observedGeneration?: number;
  readonly replicas: number;
  readonly readyReplicas: number;
  /** `http://<service>.<namespace>.svc:<port>`; absent without a Service. */
  readonly url?: string;
  readonly ready: ConditionInput;
}

/**
 * The EchoServer's status, derived from its children: `readyReplicas` from the Deployment's
 * status, `url` from the Service, and `Ready` — True once the Deployment observed its latest spec
 * and every replica is updated and ready (no old pods left), False otherwise with the reason.
 *
 * ## Example
 * ```ts
 * deriveStatus(echo, { deployment, service }).ready; // { type: 'Ready', status: 'True', reason: 'ReplicasReady', … }
 * ```
 */
export function deriveStatus(parent: EchoServer, children: ObservedChildren): DerivedStatus {
  const want = parent.spec?.replicas ?? 1;
  const generation = parent.metadata.generation;
  const { deployment, service } = children;
  const s = deployment?.status ?? {};
  const ready = s.readyReplicas ?? 0;
  const condition = (status: 'True' | 'False', reason: string, message: string): ConditionInput => ({
    type: 'Ready',
    status,
    reason,
    message,
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
  });
  const stuck = s.conditions?.find(
    (c) => c.type === 'Progressing' && c.reason === 'ProgressDeadlineExceeded',
  );
  let readyCondition: ConditionInput;
  if (deployment === undefined) {
    readyCondition = condition(
      'False',
      'DeploymentMissing',
      `Deployment ${parent.metadata.name ?? ''} does not exist`,
    );
  } else if ((s.observedGeneration ?? 0) < (deployment.metadata.generation ?? 0)) {
    readyCondition = condition(
      'False',
      'RollingOut',
      `Deployment ${deployment.metadata.name ?? ''} has not observed generation ${String(deployment.metadata.generation)} yet`,
    );
  } else if (stuck !== undefined) {
    readyCondition = condition('False', 'ProgressDeadlineExceeded', stuck.message ?? 'the rollout is stuck');
  } else if ((s.updatedReplicas ?? 0) === want && ready === want && (s.replicas ?? 0) === want) {
    readyCondition =
      want === 0
        ? condition('True', 'ScaledToZero', 'scaled to 0 replicas')
        : condition('True', 'ReplicasReady', `${String(ready)}/${String(want)} replicas ready`);
  } else {
    readyCondition = condition(
      'False',
      'ReplicasNotReady',
      `${String(ready)}/${String(want)} replicas ready`,
    );
  }
  const port = service?.spec?.ports?.[0]?.port ?? SERVICE_PORT;
  const url =
    service !== undefined
      ? `http://${service.metadata.name ?? ''}.${service.metadata.namespace ?? parent.metadata.namespace ?? ''}.svc:${String(port)}`
      : undefined;
  return {
    ...(generation !== undefined ? { observedGeneration: generation } : {}),
    replicas: want,
    readyReplicas: ready,
    ...(url !== undefined ? { url } : {}),
    ready: readyCondition,
  };
}

/**
 * The status recipe for a {@link DerivedStatus}: sets the fields (removing `url` when there is
 * none) and upserts `Ready`, whose `lastTransitionTime` moves only when its status changes — so
 * the same derived status twice drafts no change and the sink sends nothing.
 *
 * ## Example
 * ```ts
 * ctx.status(statusRecipe(deriveStatus(echo, children)));
 * ```
 *
 * @param scheduler time source of `lastTransitionTime`; `TestScheduler.run` virtualises it.
 */
export function statusRecipe(
  derived: DerivedStatus,
  scheduler: SchedulerLike = asyncScheduler,
): (draft: EchoServerStatus) => void {
  return (draft) => {
    if (derived.observedGeneration !== undefined) draft.observedGeneration = derived.observedGeneration;
    draft.replicas = derived.replicas;
    draft.readyReplicas = derived.readyReplicas;
    if (derived.url !== undefined) draft.url = derived.url;
    else delete draft.url;
    setCondition(draft, derived.ready, scheduler);
  };
}

/** The side effects of {@link reconcileEchoServer}, as functions returning `ObservableInput`. */
export interface EchoServerPorts {
  /** Server-side apply `desired` as `parent`'s children and prune the others (`applyChildren`). */
  readonly applyChildren: (
    parent: EchoServer,
    desired: readonly KubeObject[],
  ) => ObservableInput<ApplyChildrenResult>;
  /** The Deployment (the controller's cache of its owned children), or `undefined` when there is none. */
  readonly getDeployment: (ref: ObjectRef) => ObservableInput<Deployment | undefined>;
  /** The Service (the controller's cache), or `undefined` when there is none. */
  readonly getService: (ref: ObjectRef) => ObservableInput<Service | undefined>;
  /** Write the derived status (no request when nothing changed). */
  readonly writeStatus: (derived: DerivedStatus) => ObservableInput<unknown>;
}

/**
 * One reconcile of an EchoServer: apply its desired children (pruning the Service when it is no
 * longer exposed), read them back, derive and write its status, then wait for the next change — a
 * child's change (the Deployment's pods becoming ready) reruns it through `owns`, so it never polls.
 *
 * ## Example
 * ```ts
 * mgr.add<EchoServer>('echo-server', { for: echoServerType, owns: childTypes, status: {} },
 *   (_req, ctx) => reconcileEchoServer(ctx.object, portsFor(ctx)));
 * ```
 *
 * ## Semantics
 * - Cold; steps run one after the other: apply → reads (Deployment and, when exposed, Service, in
 *   parallel) → status write → `Action.awaitChange()`, then complete.
 * - error: any step's error is forwarded at once and later steps never start (nothing is written
 *   from a half-known state); the controller retries with its per-key backoff.
 * - unsubscribe: the running step is unsubscribed.
 */
export function reconcileEchoServer(parent: EchoServer, ports: EchoServerPorts): Observable<Action> {
  return defer(() => {
    const refs = childRefs(parent);
    const read = defer(() =>
      forkJoin({
        deployment: from(ports.getDeployment(refs.deployment)).pipe(defaultIfEmpty(undefined)),
        service: isExposed(parent)
          ? from(ports.getService(refs.service)).pipe(defaultIfEmpty(undefined))
          : of(undefined),
      }),
    );
    return concat(
      from(ports.applyChildren(parent, desiredChildren(parent))).pipe(ignoreElements()),
      read.pipe(
        map((children) => deriveStatus(parent, children)),
        switchMap((derived) =>
          concat(from(ports.writeStatus(derived)).pipe(ignoreElements()), of(Action.awaitChange())),
        ),
      ),
    );
  });
}
