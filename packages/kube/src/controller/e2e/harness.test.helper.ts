/**
 * Shared pieces of the controller end-to-end tests: the Widget CRD, a client that counts
 * (and optionally pins) its requests, and deterministic waits on the controller's results.
 */
import type { Observable, Subscription } from 'rxjs';
import { filter, firstValueFrom, ReplaySubject, timeout } from 'rxjs';

import type { KubeClient } from '../../client/kube-client.js';
import type { GetOptions, Patch, PatchOptions } from '../../client/verb-options.js';
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

/** The client with every status PATCH it sends recorded (and every GET). */
export interface CountingClient extends KubeClient {
  readonly patches: { key: string; patch: Patch }[];
  readonly gets: string[];
}

/**
 * `client`, counting its status writes: a decorator of the one client a controller writes through
 * (every other member passes through). With `pinResourceVersion`, each merge PATCH of the status
 * carries the resourceVersion last seen for the object (from its GET or PATCH responses) as a
 * precondition, so a concurrent writer makes the server answer 409 Conflict — the status writer's
 * retry path, for real.
 */
export function countingClient(
  client: KubeClient,
  options: { pinResourceVersion?: boolean; beforePatch?: (ref: ObjectRef) => Promise<void> } = {},
): CountingClient {
  const patches: { key: string; patch: Patch }[] = [];
  const gets: string[] = [];
  const seen = new Map<string, string>();
  const remember = <T>(o: T): T => {
    const meta = (o as Partial<Widget>).metadata;
    if (meta?.resourceVersion !== undefined) seen.set(objectKey(o as Widget), meta.resourceVersion);
    return o;
  };
  const get = async (ref: ObjectRef, o?: GetOptions): Promise<unknown> => {
    gets.push(objectKey(ref));
    return remember(await client.get(ref, o));
  };
  const patch = async (ref: ObjectRef, p: Patch, o?: PatchOptions): Promise<unknown> => {
    if (o?.subresource !== 'status') return client.patch(ref, p, o);
    const key = objectKey(ref);
    if (options.pinResourceVersion !== true || p.type !== 'merge') {
      patches.push({ key, patch: p });
      return remember(await client.patch(ref, p, o));
    }
    if (!seen.has(key)) remember(await client.get(ref));
    const body = { ...p.body, metadata: { resourceVersion: seen.get(key) } };
    await options.beforePatch?.(ref);
    patches.push({ key, patch: p });
    return remember(await client.patch(ref, { type: 'merge', body }, o));
  };
  const extra: Record<PropertyKey, unknown> = { patches, gets, get, patch };
  return new Proxy(client, {
    get(target, property) {
      if (property in extra) return extra[property];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  }) as CountingClient;
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
