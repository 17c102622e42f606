/**
 * The Widget operator's reconcile logic, free of wiring: the inventory ConfigMap a Widget should
 * have, the status it should show (`observedGeneration` and a `Ready` condition, both derived
 * from the spec only, so they change only when the generation does), the reconcile (inventory
 * first, then status) and the finalizer's cleanup (delete the inventory; idempotent). Side
 * effects enter as functions returning `ObservableInput`, so the marble tests pass `cold()`.
 *
 * What it does not do: watch, add or remove the finalizer, or decide when a status write is
 * needed — the controller's finalizer and status sink do that (`operator.ts`).
 *
 * @module
 */
import { Action } from '@rxkube/core';
import type { KubeObject, ObjectRef } from '@rxkube/kube';
import { isNotFound, setCondition, setObservedGeneration } from '@rxkube/kube';
import {
  type Observable,
  type ObservableInput,
  type SchedulerLike,
  asyncScheduler,
  catchError,
  concatMap,
  defer,
  from,
  last,
  map,
  of,
  tap,
  throwError,
} from 'rxjs';
import type { Widget, WidgetStatus } from './widget.js';

/** The finalizer that makes deletion wait for {@link cleanupWidget}. */
export const FINALIZER = 'example.com/widget-cleanup';
/** Field manager of the operator's writes (inventory apply, status, finalizer). */
export const FIELD_MANAGER = 'widget';
/** The label marking inventory ConfigMaps. */
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
/** Selector of the ConfigMaps this operator manages. */
export const MANAGED_SELECTOR = `${MANAGED_BY_LABEL}=${FIELD_MANAGER}`;
/** The color of a Widget whose spec names none (the CRD's default). */
export const DEFAULT_COLOR = 'blue';

/** A core/v1 ConfigMap as plain JSON. */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** An Event about the Widget (what `ctx.record` takes). */
export interface WidgetEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: string;
  readonly action: string;
  readonly note: string;
}

/** Whether applying the inventory changed anything on the server. */
export type InventoryApply = 'applied' | 'unchanged';

/** The side effects of a reconcile; each returns `ObservableInput` (tests pass `cold()`). */
export interface WidgetPorts {
  /** Server-side applies the inventory ConfigMap (owned by the Widget); says whether it changed. */
  readonly applyInventory: (configMap: ConfigMap) => ObservableInput<InventoryApply>;
  /** Writes the desired status (the status sink sends nothing when it already holds). */
  readonly writeStatus: (recipe: (draft: WidgetStatus) => void) => ObservableInput<unknown>;
  /** Records an Event about the Widget. */
  readonly record?: (event: WidgetEvent) => void;
}

/** The side effects of the finalizer's cleanup. */
export interface CleanupPorts {
  /** Deletes the inventory ConfigMap; a 404 may be passed through (already gone). */
  readonly deleteInventory: (ref: ObjectRef) => ObservableInput<unknown>;
  readonly record?: (event: WidgetEvent) => void;
}

/** What a cleanup did: deleted the inventory, or found it already gone (a rerun). */
export type CleanupOutcome = 'deleted' | 'already-gone';

/**
 * A Widget's spec with the CRD's defaults filled in (`color` blue; the schema requires `spec` and
 * `size`, so the fallbacks only cover objects that bypassed validation).
 *
 * ## Example
 * ```ts
 * specOf({ metadata: { name: 'w' }, spec: { size: 2 } }); // { size: 2, color: 'blue' }
 * ```
 */
export function specOf(widget: Pick<Widget, 'spec'>): { readonly size: number; readonly color: string } {
  return { size: widget.spec?.size ?? 1, color: widget.spec?.color ?? DEFAULT_COLOR };
}

/**
 * The name of a Widget's inventory ConfigMap: `widget-<name>-inventory`.
 *
 * ## Example
 * ```ts
 * inventoryName({ metadata: { name: 'w' } }); // 'widget-w-inventory'
 * ```
 */
export function inventoryName(widget: Pick<Widget, 'metadata'>): string {
  return `widget-${widget.metadata.name ?? ''}-inventory`;
}

/**
 * The reference of a Widget's inventory ConfigMap (same namespace).
 *
 * ## Example
 * ```ts
 * await client.delete(inventoryRef(widget));
 * ```
 */
export function inventoryRef(widget: Pick<Widget, 'metadata'>): ObjectRef {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: widget.metadata.namespace ?? '',
    name: inventoryName(widget),
  };
}

/**
 * The inventory ConfigMap a Widget should have: what the spec asks for, nothing volatile, so the
 * same spec gives the same ConfigMap and a repeated apply changes nothing. The owner reference is
 * added by `applyChildren`.
 *
 * ## Example
 * ```ts
 * inventoryConfigMap(widget).data; // { widget: 'w', size: '3', color: 'blue' }
 * ```
 */
export function inventoryConfigMap(widget: Widget): ConfigMap {
  const { size, color } = specOf(widget);
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: inventoryName(widget),
      namespace: widget.metadata.namespace ?? '',
      labels: { [MANAGED_BY_LABEL]: FIELD_MANAGER },
    },
    data: { widget: widget.metadata.name ?? '', size: String(size), color },
  };
}

/**
 * The status recipe of a Widget: `observedGeneration`, the inventory's name and a `Ready`
 * condition saying what the inventory holds. It reads the spec and the generation only, so a
 * change of labels, annotations or status leaves it unchanged and the status sink writes nothing;
 * a spec change (a new generation) changes `observedGeneration` and the condition's message.
 * `lastTransitionTime` moves only when the condition's status does.
 *
 * ## Example
 * ```ts
 * ctx.status(desiredStatus(ctx.object));
 * ```
 *
 * @param scheduler time source of `lastTransitionTime`; `TestScheduler.run` virtualises it.
 */
export function desiredStatus(
  widget: Widget,
  scheduler: SchedulerLike = asyncScheduler,
): (draft: WidgetStatus) => void {
  const { size, color } = specOf(widget);
  const generation = widget.metadata.generation;
  return (draft) => {
    setObservedGeneration(draft, widget);
    if (draft.inventory !== inventoryName(widget)) draft.inventory = inventoryName(widget);
    setCondition(
      draft,
      {
        type: 'Ready',
        status: 'True',
        reason: 'InventoryReady',
        message: `${inventoryName(widget)} holds ${size} ${color} widget${size === 1 ? '' : 's'}`,
        ...(generation !== undefined ? { observedGeneration: generation } : {}),
      },
      scheduler,
    );
  };
}

/**
 * Reconciles one Widget (not being deleted; the finalizer is already on the server): applies its
 * inventory ConfigMap, then writes its status; emits `Action.awaitChange()` and completes. An
 * `InventoryApplied` Event is recorded when the apply changed the ConfigMap. A failed apply
 * writes no status and errors (the controller retries with backoff).
 *
 * ## Example
 * ```ts
 * mgr.add<Widget>('widget', options, (_request, ctx) =>
 *   reconcileWidget(ctx.object, {
 *     applyInventory: (cm) => applyChildren(ctx.client, ctx.object, [cm], childOptions).then(…),
 *     writeStatus: (recipe) => ctx.status(recipe),
 *     record: (e) => ctx.record(e),
 *   }),
 * );
 * ```
 *
 * ## Semantics
 * Cold; the inventory apply and the status write run in that order, one at a time; unsubscribe
 * cancels whichever is in flight.
 *
 * @param scheduler time source of the condition's `lastTransitionTime`.
 */
export function reconcileWidget(
  widget: Widget,
  ports: WidgetPorts,
  scheduler: SchedulerLike = asyncScheduler,
): Observable<Action> {
  return defer(() => from(ports.applyInventory(inventoryConfigMap(widget)))).pipe(
    last(undefined, 'unchanged' as InventoryApply),
    tap((result) => {
      if (result === 'applied') {
        ports.record?.({
          type: 'Normal',
          reason: 'InventoryApplied',
          action: 'Apply',
          note: `${inventoryName(widget)}: size ${specOf(widget).size}, color ${specOf(widget).color}`,
        });
      }
    }),
    concatMap(() => from(ports.writeStatus(desiredStatus(widget, scheduler))).pipe(last(undefined, null))),
    map(() => Action.awaitChange()),
  );
}

/**
 * The finalizer's cleanup: deletes the Widget's inventory ConfigMap and records an
 * `InventoryDeleted` Event. Idempotent: an inventory already gone (404) is success
 * (`already-gone`, no Event), so a rerun after any failure is harmless.
 *
 * ## Example
 * ```ts
 * finalizer: { name: FINALIZER, cleanup: (w, ctx) => cleanupWidget(w, { deleteInventory: (r) => ctx.client.delete(r) }) }
 * ```
 *
 * ## Semantics
 * Cold; emits one {@link CleanupOutcome} and completes; errors other than 404 are forwarded (the
 * finalizer keeps the Widget and retries with backoff).
 */
export function cleanupWidget(widget: Widget, ports: CleanupPorts): Observable<CleanupOutcome> {
  const ref = inventoryRef(widget);
  return defer(() => from(ports.deleteInventory(ref))).pipe(
    last(undefined, null),
    map((): CleanupOutcome => 'deleted'),
    catchError((e: unknown) => (isNotFound(e) ? of<CleanupOutcome>('already-gone') : throwError(() => e))),
    tap((outcome) => {
      if (outcome === 'deleted') {
        ports.record?.({
          type: 'Normal',
          reason: 'InventoryDeleted',
          action: 'Cleanup',
          note: `deleted ${ref.name}`,
        });
      }
    }),
  );
}
