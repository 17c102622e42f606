/**
 * Shared pieces of the controller end-to-end tests: the Widget CRD, a status port that counts
 * (and optionally pins) its requests, and deterministic waits on the controller's results.
 */
import type { Observable, Subscription } from 'rxjs';
import { defer, filter, firstValueFrom, from, ReplaySubject, tap, timeout } from 'rxjs';

import type { KubeClient } from '../../client/kube-client.js';
import type { StatusPatch, StatusPort } from '../../sink/status-port.js';
import { statusPortFromClient } from '../../sink/status-port.js';
import type { KubeObject, ObjectRef } from '../../types.js';
import { objectKey } from '../../types.js';
import type { ControllerResult } from '../controller.js';

export interface WidgetStatus {
  observedGeneration?: number;
  phase?: string;
  size?: number;
  external?: string;
}
export type Widget = KubeObject<{ size: number }, WidgetStatus>;
export const WIDGET = { apiVersion: 'example.com/v1', kind: 'Widget' } as const;

/** Widgets with a status subresource (so spec changes bump `generation`, status writes do not). */
export const widgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: { status: {} },
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: { type: 'object', properties: { size: { type: 'integer', minimum: 1 } } },
              status: {
                type: 'object',
                properties: {
                  observedGeneration: { type: 'integer' },
                  phase: { type: 'string' },
                  size: { type: 'integer' },
                  external: { type: 'string' },
                },
              },
            },
          },
        },
      },
    ],
  },
};

/** A status port over the client that records every PATCH it sends (and every GET). */
export interface CountingPort extends StatusPort<Widget> {
  readonly patches: { key: string; patch: StatusPatch }[];
  readonly gets: string[];
}

/**
 * `statusPortFromClient`, counting. With `pinResourceVersion`, each PATCH carries the
 * resourceVersion last seen for the object (from its GET or PATCH responses) as a precondition,
 * so a concurrent writer makes the server answer 409 Conflict — the sink's retry path, for real.
 */
export function countingPort(
  client: KubeClient,
  options: { pinResourceVersion?: boolean; beforePatch?: (ref: ObjectRef) => Promise<void> } = {},
): CountingPort {
  const inner = statusPortFromClient<Widget>(client, { fieldManager: 'widget-e2e' });
  const patches: { key: string; patch: StatusPatch }[] = [];
  const gets: string[] = [];
  const seen = new Map<string, string>();
  const remember = (o: Widget): void => {
    if (o.metadata.resourceVersion !== undefined) seen.set(objectKey(o), o.metadata.resourceVersion);
  };
  const getLatest = (ref: ObjectRef): Observable<Widget> =>
    defer(() => {
      gets.push(objectKey(ref));
      return from(inner.getLatest(ref)).pipe(tap(remember));
    });
  return {
    patches,
    gets,
    getLatest,
    patchStatus: (ref, patch) =>
      defer(() => {
        const key = objectKey(ref);
        const pinned = async (): Promise<Widget> => {
          if (options.pinResourceVersion !== true || patch.type !== 'merge') {
            patches.push({ key, patch });
            return firstValueFrom(from(inner.patchStatus(ref, patch)));
          }
          if (!seen.has(key)) await firstValueFrom(from(inner.getLatest(ref)).pipe(tap(remember)));
          const body = { ...patch.body, metadata: { resourceVersion: seen.get(key) } };
          await options.beforePatch?.(ref);
          patches.push({ key, patch });
          return client.patch<Widget>(ref, { type: 'merge', body }, { subresource: 'status' });
        };
        return from(pinned()).pipe(tap(remember));
      }),
  };
}

/** Records a controller's results and waits for them deterministically (no sleeps). */
export class Results {
  readonly all: ControllerResult[] = [];
  private readonly subject = new ReplaySubject<ControllerResult>(100_000);
  private readonly sub: Subscription;

  constructor(results$: Observable<ControllerResult>) {
    this.sub = results$.subscribe({
      next: (r) => {
        this.all.push(r);
        this.subject.next(r);
      },
      error: (e: unknown) => this.subject.error(e),
    });
  }

  /** The index the next result will have. */
  get mark(): number {
    return this.all.length;
  }

  /** The first result from index `since` on that satisfies `predicate`; rejects after 10 s. */
  until(what: string, since: number, predicate: (r: ControllerResult) => boolean): Promise<ControllerResult> {
    return firstValueFrom(
      this.subject.pipe(
        filter((r, i) => i >= since && predicate(r)),
        timeout({ first: 10_000, with: () => Promise.reject(new Error(`timed out waiting for ${what}`)) }),
      ),
    );
  }

  stop(): void {
    this.sub.unsubscribe();
  }
}

/** Resolves once `probe()` returns true, re-checking after each controller result; rejects after 10 s. */
export function waitFor(what: string, results: Results, probe: () => boolean): Promise<unknown> {
  if (probe()) return Promise.resolve();
  return results.until(what, results.mark, () => probe());
}
