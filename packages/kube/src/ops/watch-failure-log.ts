/**
 * Log lines for watch failures a person must act on. Metrics and `/readyz` already report them,
 * but an operator whose watch is refused reconciles nothing, and the log is where people look:
 * one warning when a streak of failures begins — a refusal (401/403, or a kind the server does not
 * serve) at once, naming the permission to grant; any other failure once it repeated — and one line
 * when the watch recovers. Never a line per retry.
 *
 * @module
 */
import type { Logger } from 'pino';

import type { RequestTarget } from '../errors.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import { watchTargetKey } from '../reflector/watch-registry.js';
import type { WatcherFailure, WatcherHealth } from '../watcher/health.js';
import type { WatchProgress } from './watch-progress.js';
import { observeProgress, watchProgress } from './watch-progress.js';

/** Options of {@link WatchFailureLog}. */
export interface WatchFailureLogOptions {
  /** Failures in a row (without a watch open or a line received) before a non-refusal is logged; default 3. */
  readonly repeatedAfter?: number;
}

interface Streak {
  /** Progress of the watch since its last failure (shared with the readiness check). */
  readonly progress: WatchProgress;
  /** Failures since the watch last made progress. */
  failures: number;
  /** The streak was logged: its end is logged too. */
  logged: boolean;
}

/** Failure kinds that count towards "fails repeatedly" (410s, stalls and bad lines are handled). */
const COUNTED = new Set<WatcherFailure['kind']>(['list', 'watch', 'watch-status', 'short-watch']);

/**
 * Folds watch health snapshots into log lines, once per streak.
 *
 * ## Example
 * ```ts
 * const failures = new WatchFailureLog(createLogger({ name: 'widget-operator' }));
 * const registry = new WatchRegistry(client, { health: failures.record });
 * // {"level":40,"watch":"v1/ConfigMap in namespace shop","verb":"watch","resource":"configmaps",
 * //  "namespace":"shop","code":403,"msg":"watch refused: grant \"list\" and \"watch\" on …"}
 * ```
 *
 * ## Memory
 * One entry per watch target seen; {@link forget} drops one.
 */
export class WatchFailureLog {
  private readonly streaks = new Map<string, Streak>();
  private readonly repeatedAfter: number;

  constructor(
    private readonly log: Pick<Logger, 'warn' | 'info'>,
    options: WatchFailureLogOptions = {},
  ) {
    this.repeatedAfter = options.repeatedAfter ?? 3;
  }

  /** Folds a health snapshot in; a bound function, usable as a `WatchRegistry`'s `health` option. */
  readonly record = (target: WatchTarget, health: WatcherHealth): void => {
    const id = watchTargetKey(target);
    let streak = this.streaks.get(id);
    if (streak === undefined) {
      streak = { progress: watchProgress(), failures: 0, logged: false };
      this.streaks.set(id, streak);
    }
    const { failure, progressed } = observeProgress(streak.progress, health);
    if (failure !== undefined) {
      const refusal = watchRefusal(failure);
      if (refusal !== undefined || COUNTED.has(failure.kind)) {
        streak.failures++;
        if (!streak.logged && (refusal !== undefined || streak.failures >= this.repeatedAfter)) {
          streak.logged = true;
          this.warn(target, failure, refusal, streak.failures);
        }
      }
    } else if (progressed && streak.failures > 0) {
      if (streak.logged) {
        this.log.info(
          { watch: describe(target), failures: streak.failures },
          `watch of ${describe(target)} recovered after ${String(streak.failures)} failure(s)`,
        );
      }
      streak.failures = 0;
      streak.logged = false;
    }
  };

  /** Forgets a target (its watch stopped). */
  forget(target: WatchTarget): void {
    this.streaks.delete(watchTargetKey(target));
  }

  private warn(
    target: WatchTarget,
    failure: WatcherFailure,
    refusal: Refusal | undefined,
    failures: number,
  ): void {
    const watch = describe(target);
    const fields = {
      watch,
      code: failure.code,
      reason: failure.reason,
      ...(refusal?.request !== undefined
        ? {
            verb: refusal.request.verb,
            group: refusal.request.group ?? '',
            resource: refusal.request.resource,
            namespace: refusal.request.namespace ?? '(all namespaces)',
          }
        : {}),
      error: failure.message,
    };
    if (refusal === undefined) {
      this.log.warn(
        { ...fields, failures },
        `watch of ${watch} failed ${String(failures)} times in a row; retrying with backoff: ${failure.message}`,
      );
      return;
    }
    this.log.warn(
      fields,
      `watch of ${watch} ${refusal.waits === true ? 'waits' : 'refused'}: ${refusal.advice}; ${refusal.retrying ?? 'retrying until it is allowed'}`,
    );
  }
}

export interface Refusal {
  /** What to do, in words. */
  readonly advice: string;
  /** The refused request, when the error says (verb, group, resource, namespace). */
  readonly request: RequestTarget | undefined;
  /** How it is retried, when not "until it is allowed". */
  readonly retrying?: string;
  /** Not a refusal but a wait (the kind is not served yet): the line says "waits". */
  readonly waits?: boolean;
}

/**
 * A failure no retry can fix by itself: 400, 401, 403, 404 or a kind the server does not serve —
 * with the advice the log line and `/readyz` both give (a watch needs `list` and `watch`).
 */
export function watchRefusal(failure: WatcherFailure): Refusal | undefined {
  const cause = failure.cause as
    { readonly _tag?: unknown; readonly target?: RequestTarget } | null | undefined;
  const tag = typeof cause === 'object' && cause !== null ? cause._tag : undefined;
  const request = tag === 'KubeApiError' ? cause?.target : undefined;
  if (failure.code === 403) {
    const resource = request?.resource ?? 'the resource';
    const where =
      request?.namespace !== undefined
        ? `in namespace ${request.namespace}`
        : 'in all namespaces (cluster-wide)';
    const rule = `{ apiGroups: ["${request?.group ?? ''}"], resources: ["${resource}"], verbs: ["list", "watch"] }`;
    return {
      request,
      advice:
        `grant "list" and "watch" on ${resource} ${where} (the server refused "${request?.verb ?? failure.kind}"): ` +
        `a ${request?.namespace !== undefined ? 'Role' : 'ClusterRole'} rule ${rule} bound to the operator's identity`,
    };
  }
  if (failure.code === 401) {
    return { request, advice: 'the API server rejected the credentials; check the kubeconfig user or token' };
  }
  if (tag === 'ResourceNotFoundError' || failure.kind === 'not-served') {
    const kind = cause as { readonly apiVersion?: unknown; readonly kind?: unknown } | null | undefined;
    const resource =
      typeof kind?.apiVersion === 'string' && typeof kind.kind === 'string'
        ? { apiVersion: kind.apiVersion, kind: kind.kind }
        : undefined;
    return {
      request,
      advice:
        resource === undefined
          ? 'the server does not serve this kind; is its CRD installed?'
          : `${resource.kind} is not served: ${notServedAdvice(resource)}`,
      retrying: 'checking again with backoff; it starts once the kind is served',
      waits: true,
    };
  }
  if (failure.code === 404) {
    return { request, advice: 'the server does not serve this kind; is its CRD installed?' };
  }
  if (failure.kind === 'invalid') {
    return {
      request,
      advice: `the server refuses the request as invalid (400: ${failure.message}); fix the watch's selectors`,
      retrying: 'retried only every backoff.maxMs (30 s by default): retrying cannot fix a bad request',
    };
  }
  return undefined;
}

/**
 * What to do about a kind the server does not serve: install its CRD, or — for a built-in group
 * (no dot, or `*.k8s.io`) — use a server that serves it.
 */
export function notServedAdvice(resource: { readonly apiVersion: string; readonly kind: string }): string {
  const slash = resource.apiVersion.indexOf('/');
  const group = slash < 0 ? '' : resource.apiVersion.slice(0, slash);
  const version = resource.apiVersion.slice(slash + 1);
  if (isBuiltInGroup(group)) {
    return (
      `the API server does not serve ${resource.kind} in ${resource.apiVersion} (a built-in group: is it ` +
      'enabled in this Kubernetes version? check `kubectl api-resources`)'
    );
  }
  return `install the CustomResourceDefinition of kind ${resource.kind} in group ${group} serving ${version}`;
}

/** A group Kubernetes itself serves (no dot, or `*.k8s.io`): no CRD can add its kinds. */
export function isBuiltInGroup(group: string): boolean {
  return !group.includes('.') || group.endsWith('.k8s.io');
}

function describe(target: WatchTarget): string {
  const where = target.namespace === undefined ? 'all namespaces' : `namespace ${target.namespace}`;
  const selector = target.labelSelector === undefined ? '' : ` (labels ${target.labelSelector})`;
  const fields = target.fieldSelector === undefined ? '' : ` (fields ${target.fieldSelector})`;
  return `${target.resource.apiVersion}/${target.resource.kind} in ${where}${selector}${fields}`;
}
