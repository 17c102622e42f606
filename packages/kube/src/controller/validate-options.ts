/**
 * Checks `controller()`'s options and turns them into a plan — the watch targets of every kind,
 * the queue settings — without building anything: every mistake is an `InvalidArgumentError`
 * naming the option, thrown when `controller()` is called.
 *
 * @module
 */
import { applier, debounceByKey, InvalidArgumentError } from '@rxkube/core';
import type { ApplierOptions } from '@rxkube/core';
import type { MonoTypeOperatorFunction } from 'rxjs';
import { EMPTY, of } from 'rxjs';

import { assertSelectors } from '../selector/label-selector.js';
import type { Indexer } from '../reflector/store.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import type { ResolvedStatusWriteOptions } from '../sink/status-write.js';
import { resolveStatusWriteOptions } from '../sink/status-write.js';
import { finalizer } from '../finalizer/finalizer.js';
import type { KubeObject, ResourceType } from '../types.js';
import { assertNumber } from '../internal/invalid-argument.js';
import type {
  ControllerFinalizerOptions,
  ControllerOptions,
  ControllerOwns,
  ControllerWatch,
} from './options.js';
import { DEFAULT_LANE_IDLE_MS, DEFAULT_RECONCILE_TIMEOUT_MS } from './options.js';

const OPERATOR = 'controller';

/** One watched kind of a controller: its targets (one per namespace) and per-kind options. */
export interface WatchPlan<O extends KubeObject = KubeObject> {
  readonly role: 'primary' | 'owned' | 'mapped';
  readonly resource: ResourceType;
  /** One target per watched namespace (or one cluster-wide), in `namespaces` order. */
  readonly targets: readonly WatchTarget[];
  readonly namespaces: readonly (string | undefined)[];
  readonly predicates: readonly MonoTypeOperatorFunction<O>[];
  readonly indexes: Readonly<Record<string, Indexer<O>>>;
  /** The `watches` entry (mapped kinds). */
  readonly watch?: ControllerWatch;
}

/** Everything `controller()` needs, checked. */
export interface ControllerPlan<T extends KubeObject> {
  readonly name: string | undefined;
  readonly primary: WatchPlan<T>;
  readonly owned: readonly WatchPlan[];
  readonly mapped: readonly WatchPlan[];
  readonly resyncMs: number | undefined;
  readonly laneIdleMs: number | undefined;
  readonly debounce: { readonly ms: number; readonly maxWaitMs?: number };
  /** Applier options without the observer and idle hooks (added per run). */
  readonly applier: ApplierOptions<string>;
  readonly status: ResolvedStatusWriteOptions | undefined;
  readonly logResults: boolean;
  readonly fieldManager: string;
  /** The deadline of one reconcile; `undefined` when turned off (`reconcileTimeoutMs: false`). */
  readonly reconcileTimeoutMs: number | undefined;
}

/**
 * Checks `options` and plans the controller.
 * @throws {InvalidArgumentError} for an unusable option, naming it.
 */
export function planController<T extends KubeObject>(options: ControllerOptions<T>): ControllerPlan<T> {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError(
      OPERATOR,
      'options',
      options,
      'must be an object with at least { for, client }',
    );
  }
  assertResource('options.for', options.for);
  checkClient(options);
  checkStrings(options);
  assertSelectors(OPERATOR, 'options.', options);
  const namespaces = namespacesOf(options);
  const targetsOf = (
    resource: ResourceType,
    extra: { labelSelector?: string; metadataOnly?: boolean },
    only?: string,
  ): { targets: WatchTarget[]; namespaces: (string | undefined)[] } => {
    const list = only !== undefined ? [only] : namespaces;
    return {
      namespaces: list,
      targets: list.map((namespace) => ({
        resource: { apiVersion: resource.apiVersion, kind: resource.kind },
        ...(namespace !== undefined ? { namespace } : {}),
        ...(extra.labelSelector !== undefined ? { labelSelector: extra.labelSelector } : {}),
        ...(extra.metadataOnly === true ? { metadataOnly: true } : {}),
      })),
    };
  };
  const primary: WatchPlan<T> = {
    role: 'primary',
    resource: options.for,
    ...targetsOf(
      options.for,
      options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {},
    ),
    predicates: checkPredicates('options.predicates', options.predicates),
    indexes: checkIndexes('options.indexes', options.indexes),
  };
  const owned = arrayOption<ResourceType | ControllerOwns>(
    'options.owns',
    options.owns,
    'resource types',
  ).map((entry, i): WatchPlan => {
    const at = `options.owns[${i}]`;
    const own: ControllerOwns = isResourceType(entry) ? { resource: entry } : entry;
    if (own === null || typeof own !== 'object') {
      throw new InvalidArgumentError(OPERATOR, at, entry, 'must be a resource type or { resource, … }');
    }
    assertResource(isResourceType(entry) ? at : `${at}.resource`, own.resource);
    assertSelectors(OPERATOR, `${at}.`, own);
    return {
      role: 'owned',
      resource: own.resource,
      ...targetsOf(own.resource, {
        ...(own.labelSelector !== undefined ? { labelSelector: own.labelSelector } : {}),
        ...(own.metadataOnly === true ? { metadataOnly: true } : {}),
      }),
      predicates: checkPredicates(`${at}.predicates`, own.predicates),
      indexes: checkIndexes(`${at}.indexes`, own.indexes),
    };
  });
  const mapped = arrayOption<ControllerWatch>('options.watches', options.watches, '{ resource, map }').map(
    (w: Partial<ControllerWatch> | null, i): WatchPlan => {
      const at = `options.watches[${i}]`;
      assertResource(`${at}.resource`, w?.resource);
      if (typeof w?.map !== 'function') {
        throw new InvalidArgumentError(
          OPERATOR,
          `${at}.map`,
          w?.map,
          'must be a function (object, ctx) => { namespace?, name }[]',
        );
      }
      const watch = w as ControllerWatch;
      assertSelectors(OPERATOR, `${at}.`, watch);
      return {
        role: 'mapped',
        resource: watch.resource,
        ...targetsOf(
          watch.resource,
          {
            ...(watch.labelSelector !== undefined ? { labelSelector: watch.labelSelector } : {}),
            ...(watch.metadataOnly === true ? { metadataOnly: true } : {}),
          },
          watch.namespace,
        ),
        predicates: checkPredicates(`${at}.predicates`, watch.predicates),
        indexes: checkIndexes(`${at}.indexes`, watch.indexes),
        watch,
      };
    },
  );

  const applierOptions: ApplierOptions<string> = {
    ...(options.concurrency !== undefined ? { concurrency: options.concurrency } : {}),
    ...(options.backoff !== undefined ? { backoff: options.backoff } : {}),
    ...(options.rateLimit !== undefined ? { rateLimit: options.rateLimit } : {}),
    ...(options.random !== undefined ? { random: options.random } : {}),
  };
  // Built now so that a bad concurrency/backoff/rate limit throws here, not at subscribe.
  applier(
    (k: string) => k,
    () => of(),
    applierOptions,
  );
  const debounce = checkDebounce(options.debounce);
  if (options.resyncMs !== undefined) assertNumber(OPERATOR, 'options.resyncMs', options.resyncMs, 1, false);
  for (const [field, value] of [
    ['observer', options.observer],
    ['log', options.log],
    ['writeTracker', options.writeTracker],
  ] as const) {
    if (value !== undefined && (value === null || typeof value !== 'object')) {
      throw new InvalidArgumentError(OPERATOR, `options.${field}`, value, 'must be an object or undefined');
    }
  }
  if (options.logResults !== undefined && typeof options.logResults !== 'boolean') {
    throw new InvalidArgumentError(OPERATOR, 'options.logResults', options.logResults, 'must be a boolean');
  }
  checkRecorder(options);
  const timeoutMs = options.reconcileTimeoutMs;
  if (timeoutMs !== undefined && timeoutMs !== false) {
    assertNumber(OPERATOR, 'options.reconcileTimeoutMs', timeoutMs, 1, false);
  }
  return {
    name: options.name,
    primary,
    owned,
    mapped,
    resyncMs: options.resyncMs,
    laneIdleMs: laneIdleMsOf(options.namespaceLanes),
    debounce,
    applier: applierOptions,
    status: checkStatus(options),
    logResults: options.logResults ?? true,
    fieldManager: options.fieldManager ?? options.name ?? 'rxkube',
    reconcileTimeoutMs: timeoutMs === false ? undefined : (timeoutMs ?? DEFAULT_RECONCILE_TIMEOUT_MS),
  };
}

function isResourceType(value: unknown): value is ResourceType {
  return value !== null && typeof value === 'object' && 'kind' in value && !('resource' in value);
}

function assertResource(argument: string, value: unknown): void {
  const r = value as Partial<ResourceType> | null | undefined;
  if (
    r === null ||
    typeof r !== 'object' ||
    typeof r.apiVersion !== 'string' ||
    typeof r.kind !== 'string' ||
    r.apiVersion === '' ||
    r.kind === ''
  ) {
    throw new InvalidArgumentError(
      OPERATOR,
      argument,
      value,
      "must be a resource type like { apiVersion: 'v1', kind: 'ConfigMap' }",
    );
  }
}

/** Structural: works with a client from another copy of this package (no `instanceof`). */
function checkClient<T extends KubeObject>(options: ControllerOptions<T>): void {
  const client = options.client as unknown as Record<string, unknown> | null | undefined;
  if (client === undefined) {
    if (options.registry === undefined) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.client',
        client,
        'must be a KubeClient (KubeClient.default()); it may be left out only when options.registry is given',
      );
    }
  } else if (
    client === null ||
    typeof client !== 'object' ||
    !['get', 'list', 'create', 'patch', 'apply', 'delete'].every((verb) => typeof client[verb] === 'function')
  ) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.client',
      client,
      'must be a KubeClient (KubeClient.default()) or, with options.registry, a Client (get, list, create, patch, apply, delete)',
    );
  } else if (
    options.registry === undefined &&
    (typeof client['transport'] !== 'object' || client['transport'] === null)
  ) {
    // The controller's watches would run over this client.
    throw new InvalidArgumentError(
      OPERATOR,
      'options.client',
      client,
      'must be a KubeClient to watch with; give options.registry (e.g. a scripted one in a test) to use another Client',
    );
  }
  const registry = options.registry as unknown as { watch?: unknown } | null | undefined;
  if (
    registry !== undefined &&
    (registry === null || typeof registry !== 'object' || typeof registry.watch !== 'function')
  ) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.registry',
      registry,
      'must be a WatchRegistry (new WatchRegistry(client)) or undefined',
    );
  }
}

function checkStrings<T extends KubeObject>(options: ControllerOptions<T>): void {
  for (const field of ['namespace', 'labelSelector', 'name', 'fieldManager'] as const) {
    const value: unknown = options[field];
    if (value !== undefined && (typeof value !== 'string' || value === '')) {
      throw new InvalidArgumentError(
        OPERATOR,
        `options.${field}`,
        value,
        'must be a non-empty string or undefined',
      );
    }
  }
}

function namespacesOf<T extends KubeObject>(options: ControllerOptions<T>): (string | undefined)[] {
  const list = options.namespaces;
  if (list === undefined) return [options.namespace];
  const raw: unknown = list;
  if (options.namespace !== undefined) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.namespaces',
      list,
      'must not be given together with options.namespace',
    );
  }
  if (!Array.isArray(raw) || raw.length === 0 || raw.some((n) => typeof n !== 'string' || n === '')) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.namespaces',
      list,
      'must be a non-empty array of namespace names',
    );
  }
  return [...new Set(list)];
}

function arrayOption<E>(argument: string, value: readonly E[] | undefined, what: string): readonly E[] {
  if (value === undefined) return [];
  const raw: unknown = value;
  if (!Array.isArray(raw))
    throw new InvalidArgumentError(OPERATOR, argument, value, `must be an array of ${what}`);
  return value;
}

function checkPredicates<O>(
  argument: string,
  value: readonly MonoTypeOperatorFunction<O>[] | undefined,
): readonly MonoTypeOperatorFunction<O>[] {
  if (value === undefined) return [];
  const raw: unknown = value;
  if (!Array.isArray(raw) || !raw.every((p) => typeof p === 'function')) {
    throw new InvalidArgumentError(
      OPERATOR,
      argument,
      value,
      'must be an array of operators like generationChanged()',
    );
  }
  return value;
}

function checkIndexes<O extends KubeObject>(
  argument: string,
  value: Readonly<Record<string, Indexer<O>>> | undefined,
): Readonly<Record<string, Indexer<O>>> {
  if (value === undefined) return {};
  if (
    value === null ||
    typeof value !== 'object' ||
    !Object.values(value).every((f) => typeof f === 'function')
  ) {
    throw new InvalidArgumentError(
      OPERATOR,
      argument,
      value,
      "must be { [name]: (object) => string[] }, e.g. { 'spec.nodeName': (p) => [p.spec.nodeName] }",
    );
  }
  for (const name of ['namespace', 'owner']) {
    if (name in value) {
      throw new InvalidArgumentError(
        OPERATOR,
        `${argument}.${name}`,
        value[name],
        'is a built-in index of every Store; pick another name',
      );
    }
  }
  return value;
}

function checkDebounce(debounce: ControllerOptions<KubeObject>['debounce']): {
  ms: number;
  maxWaitMs?: number;
} {
  if (debounce === undefined) return { ms: 0 };
  if (debounce === null || typeof debounce !== 'object') {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.debounce',
      debounce,
      'must be { ms, maxWaitMs? } or undefined',
    );
  }
  // debounceByKey checks ms and maxWait synchronously.
  debounceByKey(
    (v: unknown) => v,
    debounce.ms,
    debounce.maxWaitMs !== undefined ? { maxWait: debounce.maxWaitMs } : {},
  );
  return { ms: debounce.ms, ...(debounce.maxWaitMs !== undefined ? { maxWaitMs: debounce.maxWaitMs } : {}) };
}

function laneIdleMsOf(lanes: ControllerOptions<KubeObject>['namespaceLanes']): number | undefined {
  if (lanes === undefined || lanes === false) return undefined;
  if (lanes === true) return DEFAULT_LANE_IDLE_MS;
  if (lanes === null || typeof lanes !== 'object') {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.namespaceLanes',
      lanes,
      'must be a boolean or { idleMs }',
    );
  }
  assertNumber(OPERATOR, 'options.namespaceLanes.idleMs', lanes.idleMs, 0, false);
  return lanes.idleMs;
}

function checkStatus<T extends KubeObject>(
  options: ControllerOptions<T>,
): ResolvedStatusWriteOptions | undefined {
  const status = options.status;
  if (status === undefined) return undefined;
  if (status === null || typeof status !== 'object') {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.status',
      status,
      'must be an object like { fieldManager } (or omitted)',
    );
  }
  if (options.client === undefined) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.client',
      undefined,
      'must be given with options.status: ctx.status writes through it',
    );
  }
  return resolveStatusWriteOptions(`${OPERATOR}: options.status`, options.client, status);
}

function checkRecorder<T extends KubeObject>(options: ControllerOptions<T>): void {
  if (options.finalizer !== undefined) {
    const fin = options.finalizer as Partial<ControllerFinalizerOptions<T>> | null;
    if (fin === null || typeof fin !== 'object' || typeof fin.cleanup !== 'function') {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.finalizer',
        fin,
        "must be { name: 'example.com/cleanup', cleanup: (object, ctx) => ObservableInput }",
      );
    }
    if (options.client === undefined) {
      throw new InvalidArgumentError(
        OPERATOR,
        'options.client',
        undefined,
        'must be given with options.finalizer: its patches go through it',
      );
    }
    // finalizer() checks the name, the field manager and the stuck thresholds synchronously.
    finalizer(fin.name as string, {
      client: options.client,
      ...(fin.fieldManager !== undefined ? { fieldManager: fin.fieldManager } : {}),
      apply: () => EMPTY,
      cleanup: () => EMPTY,
      ...(fin.stuck !== undefined ? { stuck: fin.stuck } : {}),
    });
  }
  const recorder = options.recorder as unknown as
    { record?: unknown; outcomes$?: unknown } | null | undefined;
  if (
    recorder !== undefined &&
    (recorder === null ||
      typeof recorder !== 'object' ||
      typeof recorder.record !== 'function' ||
      recorder.outcomes$ === undefined)
  ) {
    throw new InvalidArgumentError(
      OPERATOR,
      'options.recorder',
      recorder,
      'must be an EventRecorder (new EventRecorder(client, { reportingController, reportingInstance }))',
    );
  }
}
