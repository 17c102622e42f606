/**
 * The namespace watcher's reconcile logic, free of wiring: which namespaces get a welcome
 * ConfigMap, what it says, what to do for a namespace (apply, delete, skip) and the readable line
 * logged for each change of a namespace. Side effects enter as functions returning
 * `ObservableInput`, so the marble tests pass `cold()`.
 *
 * What it does not do: watch anything or talk to an API server (see `operator.ts`).
 *
 * @module
 */
import type { KubeObject, ObjectRef } from '@rxkube/kube';
import { isForbidden, isKubeApiError, isNotFound } from '@rxkube/kube';
import { type Observable, type ObservableInput, catchError, defer, from, map, of, throwError } from 'rxjs';

/** The ConfigMap the operator keeps in every welcomed namespace. */
export const WELCOME_CONFIGMAP = 'rxkube-welcome';
/** The server-side apply field manager (and `app.kubernetes.io/managed-by` value) of the operator. */
export const FIELD_MANAGER = 'namespace-watcher';
/** The label marking the ConfigMaps this operator manages. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/** Selector of the ConfigMaps this operator manages. */
export const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${FIELD_MANAGER}`;
/** A namespace labelled `rxkube.io/welcome=false` is opted out (its welcome ConfigMap is removed). */
export const OPT_OUT_LABEL = 'rxkube.io/welcome';
/** Namespaces never welcomed unless `exclude` says otherwise: the cluster's own. */
export const DEFAULT_EXCLUDED_NAMESPACES: readonly string[] = [
  'kube-system',
  'kube-public',
  'kube-node-lease',
];

/** A core/v1 Namespace as plain JSON. */
export type Namespace = KubeObject<{ finalizers?: string[] }, { phase?: string }>;

/** A core/v1 ConfigMap as plain JSON. */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** What decides whether a namespace is welcomed. */
export interface WelcomePolicy {
  /** Namespace names never welcomed; default {@link DEFAULT_EXCLUDED_NAMESPACES}. */
  readonly exclude?: readonly string[];
}

/** Why a namespace got no welcome ConfigMap. */
export type SkipReason = 'terminating' | 'excluded' | 'gone';

/** What the reconcile wants for one namespace. */
export type WelcomeDecision =
  | { readonly type: 'apply'; readonly configMap: ConfigMap; readonly existed: boolean }
  | { readonly type: 'delete'; readonly ref: ObjectRef }
  | { readonly type: 'unchanged' }
  | { readonly type: 'skip'; readonly reason: SkipReason };

/** What one reconcile of a namespace did. */
export type WelcomeOutcome =
  | { readonly namespace: string; readonly type: 'created' | 'updated' | 'unchanged' | 'deleted' }
  | { readonly namespace: string; readonly type: 'skipped'; readonly reason: SkipReason };

/** The side effects of a reconcile; each returns `ObservableInput` (tests pass `cold()`). */
export interface WelcomePorts {
  /** Server-side applies the ConfigMap (fieldManager {@link FIELD_MANAGER}). */
  readonly apply: (configMap: ConfigMap) => ObservableInput<unknown>;
  /** Deletes the ConfigMap; a 404 may be passed through, it counts as done. */
  readonly remove: (ref: ObjectRef) => ObservableInput<unknown>;
}

const CONFIGMAP = { apiVersion: 'v1', kind: 'ConfigMap' } as const;

/**
 * The `labels` line of the summary: `key=value` pairs sorted by key, comma-separated (`-` when none).
 *
 * ## Example
 * ```ts
 * labelList({ team: 'a', env: 'dev' }); // 'env=dev,team=a'
 * ```
 */
export function labelList(labels: Readonly<Record<string, string>> | undefined): string {
  const keys = Object.keys(labels ?? {}).sort();
  return keys.length === 0 ? '-' : keys.map((k) => `${k}=${labels?.[k] ?? ''}`).join(',');
}

/**
 * The welcome ConfigMap a namespace should have: its name, phase and labels, and one summary line.
 * Nothing volatile (no timestamps, no resourceVersion), so an unchanged namespace yields an
 * identical ConfigMap and a repeated apply changes nothing.
 *
 * ## Example
 * ```ts
 * welcomeConfigMap({ metadata: { name: 'team-a', labels: { team: 'a' } }, status: { phase: 'Active' } }).data;
 * // { namespace: 'team-a', phase: 'Active', labels: 'team=a', summary: 'Welcome to team-a (Active), labels: team=a' }
 * ```
 */
export function welcomeConfigMap(ns: Namespace): ConfigMap {
  const name = ns.metadata.name ?? '';
  const phase = ns.status?.phase ?? 'Unknown';
  const labels = labelList(ns.metadata.labels);
  return {
    ...CONFIGMAP,
    metadata: {
      name: WELCOME_CONFIGMAP,
      namespace: name,
      labels: { [MANAGED_BY_LABEL]: FIELD_MANAGER },
    },
    data: {
      namespace: name,
      phase,
      labels,
      summary: `Welcome to ${name} (${phase}), labels: ${labels}`,
    },
  };
}

/**
 * Why `ns` gets no welcome ConfigMap, or `undefined` when it should have one. Terminating
 * namespaces (a `deletionTimestamp` or phase `Terminating`) are skipped: the API server refuses
 * new content there, and the namespace controller is removing it anyway.
 *
 * ## Example
 * ```ts
 * skipReason(undefined); // 'gone'
 * skipReason({ metadata: { name: 'kube-system' } }); // 'excluded'
 * ```
 */
export function skipReason(ns: Namespace | undefined, policy: WelcomePolicy = {}): SkipReason | undefined {
  if (ns === undefined) return 'gone';
  if (ns.metadata.deletionTimestamp !== undefined || ns.status?.phase === 'Terminating') return 'terminating';
  const exclude = policy.exclude ?? DEFAULT_EXCLUDED_NAMESPACES;
  if (exclude.includes(ns.metadata.name ?? '') || ns.metadata.labels?.[OPT_OUT_LABEL] === 'false') {
    return 'excluded';
  }
  return undefined;
}

/**
 * Decides what a namespace needs, level-triggered: from the namespace as the Store has it and the
 * welcome ConfigMap as the Store has it (`undefined` when absent). No write when the ConfigMap
 * already says what it should; an excluded namespace loses a ConfigMap this operator made.
 *
 * ## Example
 * ```ts
 * const d = decide(store.get('team-a'), configMaps.get('team-a/rxkube-welcome'));
 * if (d.type === 'apply') await client.apply(d.configMap, { fieldManager: FIELD_MANAGER, force: true });
 * ```
 */
export function decide(
  ns: Namespace | undefined,
  current: ConfigMap | undefined,
  policy: WelcomePolicy = {},
): WelcomeDecision {
  const reason = skipReason(ns, policy);
  if (ns === undefined || reason !== undefined) {
    if (reason === 'excluded' && ns !== undefined && isManaged(current)) {
      return {
        type: 'delete',
        ref: { ...CONFIGMAP, namespace: ns.metadata.name ?? '', name: WELCOME_CONFIGMAP },
      };
    }
    return { type: 'skip', reason: reason ?? 'gone' };
  }
  const desired = welcomeConfigMap(ns);
  if (current !== undefined && isManaged(current) && sameData(current.data, desired.data)) {
    return { type: 'unchanged' };
  }
  return { type: 'apply', configMap: desired, existed: current !== undefined };
}

/**
 * True when `error` says the namespace cannot take new content because it is being deleted (403
 * `NamespaceTerminating`) or no longer exists (404 on the namespace): the namespace raced the
 * reconcile, which is not a failure to retry.
 *
 * ## Example
 * ```ts
 * apply(cm).pipe(catchError((e) => (isNamespaceGoneError(e) ? of('skipped') : throwError(() => e))));
 * ```
 */
export function isNamespaceGoneError(error: unknown): boolean {
  if (!isKubeApiError(error)) return false;
  const details = error.details;
  const terminating = details?.causes?.some((c) => c.reason === 'NamespaceTerminating') === true;
  return (isForbidden(error) && terminating) || (isNotFound(error) && details?.kind === 'namespaces');
}

/**
 * Reconciles one namespace: {@link decide}, then at most one write through `ports`. Emits one
 * {@link WelcomeOutcome} and completes. A namespace deleted under the write (403
 * `NamespaceTerminating`, 404 namespace) ends as `skipped`; a 404 on delete is `deleted`; other
 * errors are forwarded (the controller retries with backoff).
 *
 * ## Example
 * ```ts
 * reconcileNamespace(store.get(name), configMaps.get(`${name}/rxkube-welcome`), {
 *   apply: (cm) => client.apply(cm, { fieldManager: FIELD_MANAGER, force: true }),
 *   remove: (ref) => client.delete(ref),
 * }).subscribe((o) => console.log(o.namespace, o.type));
 * ```
 *
 * ## Semantics
 * Cold: each subscription decides anew and writes at most once. unsubscribe cancels the write.
 */
export function reconcileNamespace(
  ns: Namespace | undefined,
  current: ConfigMap | undefined,
  ports: WelcomePorts,
  policy: WelcomePolicy = {},
  name = ns?.metadata.name ?? '',
): Observable<WelcomeOutcome> {
  return defer((): Observable<WelcomeOutcome> => {
    const namespace = ns?.metadata.name ?? name;
    const decision = decide(ns, current, policy);
    switch (decision.type) {
      case 'skip':
        return of({ namespace, type: 'skipped', reason: decision.reason });
      case 'unchanged':
        return of({ namespace, type: 'unchanged' });
      case 'delete':
        return from(ports.remove(decision.ref)).pipe(
          map((): WelcomeOutcome => ({ namespace, type: 'deleted' })),
          catchError((e: unknown) =>
            isNotFound(e) ? of<WelcomeOutcome>({ namespace, type: 'deleted' }) : throwError(() => e),
          ),
        );
      case 'apply':
        return from(ports.apply(decision.configMap)).pipe(
          map((): WelcomeOutcome => ({ namespace, type: decision.existed ? 'updated' : 'created' })),
          catchError((e: unknown) =>
            isNamespaceGoneError(e)
              ? of<WelcomeOutcome>({ namespace, type: 'skipped', reason: 'terminating' })
              : throwError(() => e),
          ),
        );
    }
  });
}

function isManaged(cm: ConfigMap | undefined): boolean {
  return cm?.metadata.labels?.[MANAGED_BY_LABEL] === FIELD_MANAGER;
}

function sameData(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
) {
  const ka = Object.keys(a ?? {});
  const kb = Object.keys(b ?? {});
  return ka.length === kb.length && ka.every((k) => a?.[k] === b?.[k]);
}
