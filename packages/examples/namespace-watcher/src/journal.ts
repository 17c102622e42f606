/**
 * The namespace watcher's journal: one readable line per change of a namespace it observes on the
 * watch — `ADDED`, `MODIFIED` (saying what changed) and `DELETED` — as a pure RxJS operator over
 * the watcher's events, so it is marble-tested and needs no API server.
 *
 * What it does not do: act on the changes (that is the reconcile, `reconcile.ts`).
 *
 * @module
 */
import type { WatchEvent } from '@rxkube/kube';
import { type OperatorFunction, Observable } from 'rxjs';
import { type Namespace, labelList } from './reconcile.js';

/** The kind of a change of a namespace, in the watch's words. */
export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** What the journal remembers of a namespace. */
export interface NamespaceSnapshot {
  readonly resourceVersion: string | undefined;
  readonly phase: string;
  readonly labels: string;
  /** `spec.finalizers`, comma-separated (`-` when none). */
  readonly finalizers: string;
}

/**
 * The snapshot of a namespace the journal compares against.
 *
 * ## Example
 * ```ts
 * snapshotOf(ns); // { resourceVersion: '42', phase: 'Active', labels: 'team=a', finalizers: 'kubernetes' }
 * ```
 */
export function snapshotOf(ns: Namespace): NamespaceSnapshot {
  const finalizers = ns.spec?.finalizers ?? [];
  return {
    resourceVersion: ns.metadata.resourceVersion,
    phase: ns.status?.phase ?? 'Unknown',
    labels: labelList(ns.metadata.labels),
    finalizers: finalizers.length > 0 ? finalizers.join(',') : '-',
  };
}

/**
 * One readable log line for a change of a namespace, e.g.
 * `MODIFIED namespace team-a: labels env=dev → env=prod` or `DELETED  namespace team-a`.
 * `previous` is what was seen before (`undefined` when never seen), `next` the namespace now
 * (`undefined` when deleted). `undefined` when nothing was seen change (same resourceVersion).
 *
 * ## Example
 * ```ts
 * describeChange(undefined, snapshotOf(ns), 'team-a'); // { type: 'ADDED', line: 'ADDED    namespace team-a: phase Active, labels team=a' }
 * ```
 */
export function describeChange(
  previous: NamespaceSnapshot | undefined,
  next: NamespaceSnapshot | undefined,
  name: string,
): { readonly type: ChangeType; readonly line: string } | undefined {
  const head = (type: ChangeType) => `${type.padEnd(8)} namespace ${name}`;
  if (next === undefined) {
    return previous === undefined ? undefined : { type: 'DELETED', line: head('DELETED') };
  }
  if (previous === undefined) {
    return { type: 'ADDED', line: `${head('ADDED')}: phase ${next.phase}, labels ${next.labels}` };
  }
  if (previous.resourceVersion === next.resourceVersion) return undefined;
  const changes: string[] = [];
  if (previous.phase !== next.phase) changes.push(`phase ${previous.phase} → ${next.phase}`);
  if (previous.labels !== next.labels) changes.push(`labels ${previous.labels} → ${next.labels}`);
  if (previous.finalizers !== next.finalizers) {
    changes.push(`finalizers ${previous.finalizers} → ${next.finalizers}`);
  }
  return {
    type: 'MODIFIED',
    line: `${head('MODIFIED')}: ${changes.length > 0 ? changes.join(', ') : 'annotations, conditions or other fields changed'}`,
  };
}

/** One journal entry: a namespace's change and its log line. */
export interface JournalEntry {
  readonly type: ChangeType;
  readonly namespace: string;
  readonly line: string;
}

/**
 * Turns a Namespace watch (`WatchEvent`s: `Init`, `InitApply`*, `InitDone`, `Apply`, `Delete`) into
 * journal entries: a namespace seen for the first time is `ADDED`, a new resourceVersion of a
 * known one `MODIFIED`, a `Delete` of a known one `DELETED`. A relist (`InitApply` of objects
 * already seen with the same resourceVersion) logs nothing; objects that vanished during a relist
 * arrive as `Delete` from the watcher and are logged as such.
 *
 * ## Example
 * ```ts
 * mgr.registry.watch({ resource: { apiVersion: 'v1', kind: 'Namespace' } }).events$
 *   .pipe(namespaceJournal())
 *   .subscribe((e) => log.info({ namespace: e.namespace, change: e.type }, e.line));
 * ```
 *
 * ## Semantics
 * - complete / error: forwarded. unsubscribe: the memory is dropped.
 *
 * ## Memory
 * One snapshot (resourceVersion, phase, labels, finalizers) per live namespace, released on its `Delete`.
 */
export function namespaceJournal(): OperatorFunction<WatchEvent<Namespace>, JournalEntry> {
  return (source) =>
    new Observable<JournalEntry>((subscriber) => {
      const seen = new Map<string, NamespaceSnapshot>();
      const subscription = source.subscribe({
        next: (event) => {
          if (event.type !== 'InitApply' && event.type !== 'Apply' && event.type !== 'Delete') return;
          const name = event.object.metadata.name ?? '';
          const previous = seen.get(name);
          const next = event.type === 'Delete' ? undefined : snapshotOf(event.object);
          if (next === undefined) seen.delete(name);
          else seen.set(name, next);
          const change = describeChange(previous, next, name);
          if (change !== undefined)
            subscriber.next({ type: change.type, namespace: name, line: change.line });
        },
        error: (e: unknown) => subscriber.error(e),
        complete: () => subscriber.complete(),
      });
      return () => {
        subscription.unsubscribe();
        seen.clear();
      };
    });
}
