/**
 * `OwnWrites`: the sink's memory of its own writes, shared with `suppressOwnEcho` so the watch
 * event a write causes does not trigger another reconcile (read-own-writes, docs/promises.md promise 7).
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';
import { asyncScheduler } from 'rxjs';
import type { SchedulerLike } from 'rxjs';

import type { KubeObject } from '../types.js';
import { objectKey } from '../types.js';

/** Options of {@link OwnWrites}. */
export interface OwnWritesOptions {
  /** Objects remembered at most (oldest forgotten first); default 10 000. */
  readonly maxObjects?: number;
  /** How long (ms) a write is remembered when its echo never arrives; default 300 000 (5 min). */
  readonly ttlMs?: number;
}

/** Versions remembered per object: enough for a burst of writes before the first echo. */
const MAX_VERSIONS_PER_OBJECT = 8;

interface Entry {
  /** The object as our last write returned it. */
  latest: KubeObject;
  /** resourceVersions our writes produced whose watch event has not been seen yet. */
  readonly echoes: string[];
  /** resourceVersions known to be older than `latest` (what our writes replaced). */
  readonly older: string[];
  at: number;
}

/**
 * Remembers the objects the sink wrote, so that (1) the watch event echoing a write can be
 * recognised and dropped from the triggers, and (2) a write computed from the object as it was
 * before our own write is diffed against our write's result instead (no second request for the
 * same content).
 *
 * ## Example
 * ```ts
 * const ownWrites = new OwnWrites();
 * const results$ = desired$.pipe(statusSink(port, { ownWrites }));
 * const triggers$ = widgetEvents$.pipe(suppressOwnEcho(ownWrites));
 * ```
 *
 * ## Semantics
 * - Objects are identified by `metadata.uid` (stable across full and metadata-only watches), else
 *   by `apiVersion/kind/namespace/name`.
 * - `recorded(before, after)`: a write turned `before` into `after`. Nothing is remembered when the
 *   server did not change the object (`after` kept `before`'s resourceVersion: no event follows).
 * - `takeEcho(object)`: true once for each resourceVersion our writes produced; the entry is
 *   released when the echo of the latest write is taken.
 * - `baseFor(object)`: our latest written object when `object` is a version our writes replaced,
 *   else `object` (resourceVersions are compared for equality only, never ordered).
 *
 * ## Memory
 * At most `maxObjects` entries (oldest evicted) of at most 8 versions each; an entry is released
 * when its latest echo is taken, when `forget` is called (Delete events), or `ttlMs` after the
 * write (swept lazily on every call; no timers).
 */
export class OwnWrites {
  private readonly entries = new Map<string, Entry>();
  private readonly maxObjects: number;
  private readonly ttlMs: number;

  /**
   * @param options `maxObjects` (integer >= 1), `ttlMs` (>= 0).
   * @param scheduler time source of the TTL; `TestScheduler.run` virtualises it.
   */
  constructor(
    options: OwnWritesOptions = {},
    private readonly scheduler: SchedulerLike = asyncScheduler,
  ) {
    const { maxObjects = 10_000, ttlMs = 300_000 } = options;
    if (!Number.isInteger(maxObjects) || maxObjects < 1) {
      throw new InvalidArgumentError(
        'OwnWrites',
        'options.maxObjects',
        maxObjects,
        'must be an integer >= 1',
      );
    }
    if (typeof ttlMs !== 'number' || !Number.isFinite(ttlMs) || ttlMs < 0) {
      throw new InvalidArgumentError(
        'OwnWrites',
        'options.ttlMs',
        ttlMs,
        'must be a finite number >= 0 (ms)',
      );
    }
    this.maxObjects = maxObjects;
    this.ttlMs = ttlMs;
  }

  /** Objects currently remembered. */
  get size(): number {
    this.sweep();
    return this.entries.size;
  }

  /** Records that a write of ours turned `before` into `after` (the server's response). */
  recorded(before: KubeObject, after: KubeObject): void {
    this.sweep();
    const beforeRv = before.metadata.resourceVersion;
    const afterRv = after.metadata.resourceVersion;
    if (afterRv === undefined || afterRv === beforeRv) return;
    const key = identity(after);
    const entry = this.entries.get(key) ?? { latest: after, echoes: [], older: [], at: 0 };
    if (entry.latest !== after) {
      const previous = entry.latest.metadata.resourceVersion;
      if (previous !== undefined && previous !== afterRv) push(entry.older, previous);
    }
    if (beforeRv !== undefined) push(entry.older, beforeRv);
    push(entry.echoes, afterRv);
    entry.latest = after;
    entry.at = this.scheduler.now();
    this.entries.delete(key); // re-insert: the Map stays ordered by write time
    this.entries.set(key, entry);
    if (this.entries.size > this.maxObjects) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  /**
   * True when `object` is the watch echo of one of our writes (each echo is taken once).
   * Taking the echo of the latest write releases the object's entry.
   */
  takeEcho(object: KubeObject): boolean {
    this.sweep();
    const key = identity(object);
    const entry = this.entries.get(key);
    const rv = object.metadata.resourceVersion;
    if (entry === undefined || rv === undefined) return false;
    const i = entry.echoes.indexOf(rv);
    if (i < 0) return false;
    entry.echoes.splice(i, 1);
    if (rv === entry.latest.metadata.resourceVersion) this.entries.delete(key);
    return true;
  }

  /** Our latest written version of `object` if `object` is one our writes replaced, else `object`. */
  baseFor<T extends KubeObject>(object: T): T {
    this.sweep();
    const entry = this.entries.get(identity(object));
    const rv = object.metadata.resourceVersion;
    if (entry === undefined || rv === undefined || !entry.older.includes(rv)) return object;
    return entry.latest as T;
  }

  /** Forgets an object (call on its Delete). */
  forget(object: KubeObject): void {
    this.entries.delete(identity(object));
  }

  /** Forgets everything. */
  clear(): void {
    this.entries.clear();
  }

  private sweep(): void {
    const deadline = this.scheduler.now() - this.ttlMs;
    for (const [key, entry] of this.entries) {
      if (entry.at > deadline) return;
      this.entries.delete(key);
    }
  }
}

function push(list: string[], rv: string): void {
  if (list.includes(rv)) return;
  list.push(rv);
  if (list.length > MAX_VERSIONS_PER_OBJECT) list.shift();
}

/** `metadata.uid`, else `apiVersion/kind/namespace/name`. */
export function identity(object: KubeObject): string {
  const uid = object.metadata.uid;
  return uid !== undefined && uid !== ''
    ? uid
    : `${object.apiVersion ?? ''}/${object.kind ?? ''}/${objectKey(object)}`;
}
