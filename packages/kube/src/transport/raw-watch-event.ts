/**
 * What a watch stream's lines decode to, before the watcher reads them: the transport's output and
 * the watcher's input (`ListWatchSource.watch`).
 *
 * @module
 */
import type { KubeObject } from '../types.js';

/**
 * A decoded watch line. `ERROR` carries a `metav1.Status` (a 410 `Expired` one means: relist).
 * `MALFORMED` is a line that could not be parsed: reported, then the watch resumes from the last
 * good resourceVersion.
 *
 * ## Example
 * ```ts
 * const gone: RawWatchEvent = { type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } };
 * ```
 */
export type RawWatchEvent<T extends KubeObject = KubeObject> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: T }
  | {
      readonly type: 'BOOKMARK';
      readonly object: {
        readonly metadata: {
          readonly resourceVersion: string;
          readonly annotations?: Readonly<Record<string, string>>;
        };
      };
    }
  | { readonly type: 'ERROR'; readonly object: WatchStatus }
  | { readonly type: 'MALFORMED'; readonly line: string; readonly error: string };

/**
 * The `metav1.Status` carried by a watch `ERROR` event.
 *
 * ## Example
 * ```ts
 * const expired: WatchStatus = { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Expired', code: 410 };
 * ```
 */
export interface WatchStatus {
  readonly kind?: string;
  readonly apiVersion?: string;
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly code?: number;
}
