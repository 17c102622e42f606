/**
 * `ensureCrd`: install or update a CustomResourceDefinition and wait until the API server serves
 * it. The usual first step of an operator's startup.
 *
 * What it does not do: delete CRDs, migrate stored versions, or run conversion webhooks.
 *
 * @module
 */
import type { SchedulerLike } from 'rxjs';
import { asyncScheduler, defer, lastValueFrom } from 'rxjs';

import { InvalidArgumentError } from '@rxkube/core';

import type { ApiResource } from '../client/api-resource.js';
import type { KubeClient } from '../client/kube-client.js';
import { isInvalid, isKubeApiError, ResourceNotFoundError } from '../errors.js';
import { CrdNotEstablishedError } from './crd-not-established-error.js';
import type { CustomResourceDefinition } from './custom-resource-definition.js';
import type { CrdInput } from './load-crd.js';
import { loadCrd } from './load-crd.js';
import type { ProbeResult } from './internal/poll-until.js';
import { pollUntil } from './internal/poll-until.js';
import type { CrdCause } from './invalid-crd-error.js';
import { InvalidCrdError } from './invalid-crd-error.js';
import { validateCrd } from './validate-crd.js';

/**
 * Options of {@link ensureCrd}.
 *
 * ## Example
 * ```ts
 * const options: EnsureCrdOptions = { fieldManager: 'widget-operator', timeoutMs: 120_000 };
 * await ensureCrd(client, new URL('../crd.yaml', import.meta.url), options);
 * ```
 */
export interface EnsureCrdOptions {
  /** The manager named in `managedFields` (default `rxkube`). */
  readonly fieldManager?: string;
  /**
   * Take over fields another manager owns (default `true`: the operator is the authority on its
   * CRD, even when an earlier `kubectl apply` or Helm release wrote it).
   */
  readonly force?: boolean;
  /** How long to wait for `Established` and discovery, in ms (default 60 000). */
  readonly timeoutMs?: number;
  /** Pause between two readiness checks, in ms (default 200, like kubectl's poll). */
  readonly pollIntervalMs?: number;
}

/**
 * What {@link ensureCrd} resolves with.
 *
 * ## Example
 * ```ts
 * const { crd, resources }: EnsureCrdResult = await ensureCrd(client, './crd.yaml');
 * console.log(crd.metadata.name, resources.map((r) => r.apiVersion)); // e.g. widgets.example.com ['example.com/v1']
 * ```
 */
export interface EnsureCrdResult {
  /** The CRD as the server has it, Established. */
  readonly crd: CustomResourceDefinition;
  /** The discovery mapping of every served version (the client resolves them from now on). */
  readonly resources: readonly ApiResource[];
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_POLL_MS = 200;
const CRD_TYPE = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' } as const;

/**
 * Creates or updates a CustomResourceDefinition and resolves once it is Established and discovery
 * serves every served version's kind.
 *
 * ## Example
 * ```ts
 * const { resources } = await ensureCrd(client, new URL('../crd.yaml', import.meta.url));
 * await client.create({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'default' } });
 * ```
 *
 * ## Semantics
 * - `crd`: an object, YAML/JSON text (a string with a newline or starting with `{`), or a file
 *   path / `file:` URL (any other string). Exactly one YAML document.
 * - Checked locally first ({@link validateCrd}); problems reject with {@link InvalidCrdError}
 *   (`source: 'local'`) before any request.
 * - Written with server-side apply as `fieldManager` (force by default): one request creates or
 *   updates, no read-modify-write race, and fields other managers own that the manifest does not
 *   mention (a conversion `caBundle` injected by cert-manager, labels added by others) are kept —
 *   a get + replace would wipe them. Server-set fields (`status`, `resourceVersion`, `uid`,
 *   `managedFields`, …) of the input are dropped.
 * - A 422 from the server rejects with {@link InvalidCrdError} (`source: 'server'`) listing the
 *   server's causes.
 * - Then polls the CRD every `pollIntervalMs`: `NamesAccepted=False` rejects with
 *   {@link CrdNotEstablishedError} (`NamesNotAccepted`) and the condition's message;
 *   `Established=True` is followed by a discovery refresh until every served version resolves
 *   (discovery may lag Established, and an update keeps Established True while a new version is
 *   being installed). Not done within `timeoutMs` → `CrdNotEstablishedError` (`Timeout`) saying
 *   what was missing.
 * - Other failures (RBAC, network) reject with the client's error.
 *
 * @param client the API client.  @param crd the CRD.  @param options field manager, force, timeouts.
 * @param scheduler time source of the polling and the timeout.
 */
export async function ensureCrd(
  client: KubeClient,
  crd: CrdInput,
  options: EnsureCrdOptions = {},
  scheduler: SchedulerLike = asyncScheduler,
): Promise<EnsureCrdResult> {
  const timeoutMs = positive('options.timeoutMs', options.timeoutMs, DEFAULT_TIMEOUT_MS);
  const intervalMs = positive('options.pollIntervalMs', options.pollIntervalMs, DEFAULT_POLL_MS);
  const fieldManager = options.fieldManager ?? 'rxkube';
  if (typeof fieldManager !== 'string' || fieldManager === '') {
    throw new InvalidArgumentError(
      'ensureCrd',
      'options.fieldManager',
      fieldManager,
      'must be a non-empty string',
    );
  }
  const object = await loadCrd(crd, 'ensureCrd');
  const causes = validateCrd(object);
  const name = crdName(object);
  if (causes.length > 0) throw new InvalidCrdError(name, causes, 'local');
  const desired = object as unknown as CustomResourceDefinition;

  try {
    await client.apply(forApply(desired), { fieldManager, force: options.force ?? true });
  } catch (e) {
    if (isInvalid(e) && isKubeApiError(e))
      throw new InvalidCrdError(name, serverCauses(e.details?.causes, e.message), 'server', e);
    throw e;
  }

  const { group, names } = desired.spec;
  const served = desired.spec.versions.filter((v) => v.served).map((v) => `${group}/${v.name}`);
  const probe = (): Promise<ProbeResult<EnsureCrdResult>> =>
    (async () => {
      const current = await client.get<CustomResourceDefinition>({ ...CRD_TYPE, name });
      const readiness = crdReadiness(current);
      if (readiness.state === 'rejected')
        throw new CrdNotEstablishedError(name, 'NamesNotAccepted', readiness.message);
      if (readiness.state === 'waiting') return { done: false, waitingFor: readiness.waitingFor };
      client.discovery.invalidate();
      const resources: ApiResource[] = [];
      const missing: string[] = [];
      for (const apiVersion of served) {
        try {
          resources.push(await client.discovery.resolve({ apiVersion, kind: names.kind }));
        } catch (e) {
          if (!(e instanceof ResourceNotFoundError)) throw e;
          missing.push(apiVersion);
        }
      }
      if (missing.length > 0)
        return {
          done: false,
          waitingFor: `Established, but discovery does not serve ${names.kind} in ${missing.join(', ')} yet`,
        };
      return { done: true, value: { crd: current, resources } };
    })();
  return lastValueFrom(
    pollUntil(
      () => defer(probe),
      {
        intervalMs,
        timeoutMs,
        onTimeout: (w) =>
          new CrdNotEstablishedError(name, 'Timeout', w ?? 'no readiness check finished', timeoutMs),
      },
      scheduler,
    ),
  );
}

/** Where a CRD stands, from its `status.conditions`. */
export type CrdReadiness =
  | { readonly state: 'established' }
  | { readonly state: 'waiting'; readonly waitingFor: string }
  | { readonly state: 'rejected'; readonly message: string };

/**
 * Reads `NamesAccepted` and `Established` of a CRD: `rejected` when names are refused,
 * `established` when Established is True, else `waiting` with the current condition.
 * @internal exported for tests.
 */
export function crdReadiness(crd: CustomResourceDefinition): CrdReadiness {
  const conditions = crd.status?.conditions ?? [];
  const names = conditions.find((c) => c.type === 'NamesAccepted');
  if (names?.status === 'False') {
    return { state: 'rejected', message: names.message ?? names.reason ?? 'no message' };
  }
  const established = conditions.find((c) => c.type === 'Established');
  if (established?.status === 'True') return { state: 'established' };
  return {
    state: 'waiting',
    waitingFor: established
      ? `Established is ${established.status}${established.reason ? ` (${established.reason}${established.message ? `: ${established.message}` : ''})` : ''}`
      : 'the API server has not set the Established condition yet',
  };
}

function forApply(crd: CustomResourceDefinition): CustomResourceDefinition {
  const { status: _status, ...rest } = crd;
  const {
    resourceVersion: _rv,
    uid: _uid,
    creationTimestamp: _ct,
    generation: _g,
    managedFields: _mf,
    deletionTimestamp: _dt,
    ...metadata
  } = crd.metadata;
  return { ...rest, metadata };
}

function crdName(o: Record<string, unknown>): string {
  const m = o['metadata'];
  if (m !== null && typeof m === 'object' && typeof (m as { name?: unknown }).name === 'string') {
    return (m as { name: string }).name;
  }
  return '';
}

function serverCauses(
  causes: readonly { field?: string; message?: string; reason?: string }[] | undefined,
  message: string,
): CrdCause[] {
  if (!causes || causes.length === 0) return [{ field: '(unknown)', message }];
  return causes.map((c) => ({
    field: c.field ?? '(unknown)',
    message: c.message ?? c.reason ?? 'invalid',
    ...(c.reason !== undefined ? { reason: c.reason } : {}),
  }));
}

function positive(argument: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new InvalidArgumentError('ensureCrd', argument, value, 'must be a positive number of milliseconds');
  }
  return value;
}
