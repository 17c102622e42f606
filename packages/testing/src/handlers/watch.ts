/**
 * Watch streams with kube-apiserver's framing: `200`, chunked, headers flushed before any event,
 * one `{"type":…,"object":{…}}\n` line per event; resume from the event log; synthetic ADDED for
 * `resourceVersion` unset or `0`; BOOKMARKs; `timeoutSeconds`; too-old RV → one ERROR line.
 * Streaming lists (WatchList, `sendInitialEvents=true`): ADDED for every current object whatever
 * the resourceVersion (not older than it), then a BOOKMARK annotated `k8s.io/initial-events-end`
 * at the revision of that snapshot, then live events; a resourceVersion the server has not reached
 * → one ERROR line (504 `Too large resource version`). See fixtures/watch-list/README.md.
 * Each event's object in the negotiated view (the object, PartialObjectMetadata, or a one-row Table
 * whose column definitions only the first event carries, as `serveWatch`'s Fixup does), in JSON
 * lines or protobuf frames (`application/vnd.kubernetes.protobuf;stream=watch`).
 *
 * ## Guarantees
 * - A slow client never blocks the server or other watches: lines are written while the socket
 *   accepts them; live events queue per watch up to `maxQueuedEvents`, beyond which the watch is
 *   ended (as the real watch cache closes an unresponsive watcher).
 * - The initial burst (synthetic ADDED, history replay) is pulled lazily as the socket drains.
 *
 * ## Memory
 * Per watch: at most `maxQueuedEvents` queued events plus the node socket's own buffer.
 *
 * @module
 */
import type { ServerResponse } from 'node:http';

import type { IncludeObject } from '../table/table.js';
import { tableOf } from '../table/table.js';
import { encodeProtobuf } from '../protobuf/codec.js';
import { encodeWatchFrame } from '../protobuf/envelope.js';
import type { ResourceType } from '../registry/types.js';
import type { StatusBody } from '../status.js';
import { resourceVersionTooLarge, tooOldResourceVersion } from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { typedObjectMeta } from '../store/object.js';
import type { ObjectStore, StoreEvent } from '../store/store.js';
import type { Engine, Selectors } from './engine.js';

/** Options of one watch. */
export interface WatchParams {
  readonly type: ResourceType;
  readonly namespace: string | undefined;
  readonly selectors: Selectors;
  /** Revision to start after; undefined for "current state first". */
  readonly fromRv: number | undefined;
  /**
   * `sendInitialEvents`: `true` = a streaming list (current state, then the end bookmark);
   * `false` = no initial events even without a resourceVersion; `undefined` = legacy.
   */
  readonly initialEvents?: boolean | undefined;
  readonly bookmarks: boolean;
  readonly timeoutMs: number;
  readonly bookmarkIntervalMs: number;
  /** How each event's object is presented. */
  readonly view: WatchView;
  /** Protobuf frames instead of JSON lines. */
  readonly protobuf: boolean;
  readonly maxQueuedEvents: number;
  /**
   * A CRD's conversion webhook (admission/conversion.ts): `type` is then the storage version, each
   * event's object is converted to `responseType` by `toResponse` before it is written (one
   * review per event, in order, as kube-apiserver's watch encoder does); a failed conversion ends
   * the stream. Bookmarks carry `responseType`'s apiVersion.
   */
  readonly convert?: {
    readonly responseType: ResourceType;
    readonly toResponse: (o: KObj) => Promise<KObj>;
  };
}

/** An event whose object awaits conversion (`WatchParams.convert`). */
class PendingEvent {
  constructor(
    readonly evType: string,
    readonly object: KObj,
  ) {}
}

/** How each event's object is presented (the negotiated `as=`). */
export type WatchView =
  | { readonly as: 'object' }
  | { readonly as: 'PartialObjectMetadata'; readonly apiVersion: string }
  | {
      readonly as: 'Table';
      readonly include: IncludeObject;
      readonly apiVersion: string;
      /** Milliseconds since the epoch (for the Age column). */
      now(): number;
    };

/** Hooks the fault injector uses on a live watch. */
export interface WatchControl {
  /** Destroys the connection at once. */
  drop(): void;
  /** Stops writing (connection stays open, no bytes). False when already stalled or closed. */
  stall(): boolean;
  /** Writes half of the next line, then destroys the connection. False when already armed, stalled or closed. */
  cutNext(): boolean;
  /** Writes one whole line that is not JSON after what is queued. False when stalled or closed. */
  sendMalformedLine(): boolean;
  readonly closed: boolean;
}

/**
 * The line `faults.sendMalformedWatchLines()` makes each watch write: newline-terminated and shaped
 * like an event, but not JSON (a trailing comma), as a broken proxy or encoder could send.
 *
 * ## Example
 * ```ts
 * server.faults.sendMalformedWatchLines();
 * // a watch client reads MALFORMED_WATCH_LINE, then the stream goes on
 * expect(() => JSON.parse(MALFORMED_WATCH_LINE)).toThrow();
 * ```
 */
export const MALFORMED_WATCH_LINE =
  '{"type":"MODIFIED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"malformed",}}}\n';

type Line =
  | { kind: 'event'; event: StoreEvent }
  | { kind: 'synthetic'; object: KObj }
  | { kind: 'raw'; text: string }
  | { kind: 'expired'; text: string | Buffer }
  | { kind: 'initial-events-end'; resourceVersion: number };

/** The annotation of the bookmark that ends a streaming list's initial events. */
const INITIAL_EVENTS_END = 'k8s.io/initial-events-end';

/** A running watch. */
export class WatchSession implements WatchControl {
  closed = false;
  /** Called when a mid-line cut happened. */
  onCut: (() => void) | undefined;
  /** Called when an injected malformed line was written. */
  onMalformedLine: (() => void) | undefined;
  private stalled = false;
  private cutPending = false;
  private endWhenDrained = false;
  private readonly queue: Line[] = [];
  private backlog: Line[] = [];
  private backlogPos = 0;
  private readonly startTypeRv: number;
  private lastBookmarkRv = 0;
  private unsubscribe: (() => void) | undefined;
  private readonly timers: NodeJS.Timeout[] = [];
  private waitingDrain = false;
  /** A Table event was sent (later ones carry `columnDefinitions: null`). */
  private tableHeaderSent = false;
  /** An event's object is being converted (`WatchParams.convert`): nothing else is written. */
  private converting = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly engine: Engine,
    private readonly store: ObjectStore,
    private readonly p: WatchParams,
    private readonly onClose: (s: WatchSession) => void,
  ) {
    this.startTypeRv = store.lastWriteOf(p.type.storageKey);
  }

  /** Starts streaming; `headers` are the extra API headers. */
  start(headers: Readonly<Record<string, string>>, expireNow: boolean): void {
    const { res, p, store } = this;
    res.statusCode = 200;
    res.setHeader('Cache-Control', 'no-cache, private');
    res.setHeader(
      'Content-Type',
      p.protobuf ? 'application/vnd.kubernetes.protobuf;stream=watch' : 'application/json',
    );
    for (const [k, v] of Object.entries(headers)) res.setHeader(k, v);
    res.setHeader('Transfer-Encoding', 'chunked');
    res.flushHeaders();
    res.on('close', () => this.finish(false));
    res.on('drain', () => {
      this.waitingDrain = false;
      this.pump();
    });

    if (expireNow) {
      this.writeRaw(this.frame('ERROR', tooOldResourceVersion(p.fromRv ?? 0, store.compactedRevision + 1)));
      this.finish(true);
      return;
    }
    if (p.initialEvents === true) {
      const current = store.resourceVersion;
      if (p.fromRv !== undefined && p.fromRv > current) {
        // the watch cache waits for the revision, then gives up (cacher.waitUntilFreshAndBlock)
        this.writeRaw(this.frame('ERROR', resourceVersionTooLarge(p.fromRv, current)));
        this.finish(true);
        return;
      }
      this.backlog = this.currentObjects();
      if (p.bookmarks) this.backlog.push({ kind: 'initial-events-end', resourceVersion: current });
    } else if (p.initialEvents === false && p.fromRv === undefined) {
      // sendInitialEvents=false without a resourceVersion: start at the most recent
    } else if (p.fromRv !== undefined) {
      const events = store.eventsSince(p.fromRv);
      if (events === 'expired') {
        this.writeRaw(this.frame('ERROR', tooOldResourceVersion(p.fromRv, store.compactedRevision + 1)));
        this.finish(true);
        return;
      }
      this.backlog = events
        .filter((e) => e.storageKey === p.type.storageKey)
        .map((event) => ({ kind: 'event' as const, event }));
    } else {
      this.backlog = this.currentObjects();
    }
    this.unsubscribe = store.subscribe(p.type.storageKey, (e) => this.onEvent(e));
    this.timers.push(setTimeout(() => this.finish(true), p.timeoutMs));
    if (p.bookmarks) {
      this.timers.push(setInterval(() => this.bookmark(), p.bookmarkIntervalMs));
      if (p.timeoutMs > 2000) this.timers.push(setTimeout(() => this.bookmark(), p.timeoutMs - 2000));
    }
    for (const t of this.timers) t.unref();
    this.pump();
  }

  /** Synthetic ADDED lines for the current objects the watch selects. */
  private currentObjects(): Line[] {
    const { p, store } = this;
    const out: Line[] = [];
    const keys = store.sortedKeys(p.type.storageKey);
    const prefix = p.type.namespaced && p.namespace !== undefined ? `${p.namespace}/` : '';
    for (const k of keys) {
      if (prefix && !k.startsWith(prefix)) continue;
      const o = store.get(p.type.storageKey, k);
      if (o && this.engine.matches(p.type, p.selectors, o)) out.push({ kind: 'synthetic', object: o });
    }
    return out;
  }

  private onEvent(e: StoreEvent): void {
    if (this.closed || this.stalled) return;
    if (this.queue.length >= this.p.maxQueuedEvents) {
      // unresponsive client: end the watch like the watch cache does
      this.finish(true);
      return;
    }
    this.queue.push({ kind: 'event', event: e });
    this.pump();
  }

  private bookmark(): void {
    if (this.closed || this.stalled) return;
    const typeRv = this.store.lastWriteOf(this.p.type.storageKey);
    if (typeRv <= this.startTypeRv || typeRv === this.lastBookmarkRv) return;
    if (this.queue.length > 0 || this.backlogPos < this.backlog.length) return;
    this.lastBookmarkRv = typeRv;
    this.writeRaw(this.bookmarkLine(typeRv, undefined));
  }

  /** A BOOKMARK line at `rv`, with annotations when given. */
  private bookmarkLine(rv: number, annotations: Record<string, string> | undefined): string | Buffer {
    const extra = annotations !== undefined ? { annotations } : {};
    const type = this.p.convert?.responseType ?? this.p.type;
    const object = type.builtin
      ? {
          kind: type.kind,
          apiVersion: type.apiVersion,
          metadata: { resourceVersion: String(rv), creationTimestamp: null, ...extra },
        }
      : {
          apiVersion: type.apiVersion,
          kind: type.kind,
          metadata: { resourceVersion: String(rv), ...extra },
        };
    return this.frame('BOOKMARK', this.view(object));
  }

  private pump(): void {
    while (!this.closed && !this.stalled && !this.waitingDrain && !this.converting) {
      let line: Line | undefined;
      if (this.backlogPos < this.backlog.length) {
        line = this.backlog[this.backlogPos];
        this.backlog[this.backlogPos++] = undefined as never;
        if (this.backlogPos >= this.backlog.length) {
          this.backlog = [];
          this.backlogPos = 0;
        }
      } else {
        line = this.queue.shift();
      }
      if (!line) {
        if (this.endWhenDrained) this.finish(true);
        return;
      }
      const text = this.render(line);
      if (text === undefined) continue;
      if (text instanceof PendingEvent) {
        this.convertThenWrite(text);
        return;
      }
      const written = this.writeRaw(text);
      if (line.kind === 'raw' && !this.closed) this.onMalformedLine?.();
      if (!written) this.waitingDrain = true;
    }
  }

  /** Converts a pending event's object, writes it, and goes on pumping; a failure ends the stream. */
  private convertThenWrite(pending: PendingEvent): void {
    const convert = this.p.convert;
    if (convert === undefined) return;
    this.converting = true;
    convert.toResponse(pending.object).then(
      (object) => {
        this.converting = false;
        if (this.closed) return;
        if (!this.writeRaw(this.frame(pending.evType, this.view(object)))) this.waitingDrain = true;
        this.pump();
      },
      () => {
        // kube-apiserver's watch encoder cannot encode the object: the stream ends
        // (endpoints/handlers/watch.go "unable to encode watch object")
        this.converting = false;
        this.finish(true);
      },
    );
  }

  private render(line: Line): string | Buffer | PendingEvent | undefined {
    const { type, namespace, selectors } = this.p;
    if (line.kind === 'raw' || line.kind === 'expired') return line.text;
    if (line.kind === 'initial-events-end') {
      this.lastBookmarkRv = line.resourceVersion;
      return this.bookmarkLine(line.resourceVersion, { [INITIAL_EVENTS_END]: 'true' });
    }
    if (line.kind === 'synthetic') {
      return this.encode('ADDED', line.object);
    }
    const e = line.event;
    if (type.namespaced && namespace !== undefined && !e.key.startsWith(`${namespace}/`)) return undefined;
    const nowMatches = this.engine.matches(type, selectors, e.object);
    const prevMatches = e.prev ? this.engine.matches(type, selectors, e.prev) : false;
    let evType: string;
    if (e.type === 'ADDED') {
      if (!nowMatches) return undefined;
      evType = 'ADDED';
    } else if (e.type === 'DELETED') {
      if (!nowMatches && !prevMatches) return undefined;
      evType = 'DELETED';
    } else if (nowMatches && prevMatches) evType = 'MODIFIED';
    else if (nowMatches) evType = 'ADDED';
    else if (prevMatches && e.prev) {
      // left the selector: the watch cache sends the previous object at the event's resourceVersion
      // (cacheWatcher.convertToWatchEvent), so the DELETED shows what matched
      const prev = e.prev;
      return this.encode('DELETED', {
        ...prev,
        metadata: { ...prev.metadata, resourceVersion: e.object.metadata.resourceVersion },
      });
    } else return undefined;
    return this.encode(evType, e.object);
  }

  private encode(evType: string, stored: KObj): string | Buffer | PendingEvent {
    const v = this.p.view;
    if (this.p.convert !== undefined && v.as !== 'PartialObjectMetadata') {
      return new PendingEvent(evType, this.engine.present(this.p.type, stored));
    }
    if (v.as === 'object' && !this.p.protobuf) {
      return JSON.stringify({ type: evType, object: this.engine.present(this.p.type, stored) }) + '\n';
    }
    return this.frame(
      evType,
      this.view(v.as === 'PartialObjectMetadata' ? stored : this.engine.present(this.p.type, stored)),
    );
  }

  /** An object (in wire form) in the negotiated view. */
  private view(o: KObj): Json {
    const v = this.p.view;
    if (v.as === 'object') return o;
    if (v.as === 'PartialObjectMetadata') {
      return {
        kind: 'PartialObjectMetadata',
        apiVersion: v.apiVersion,
        metadata: typedObjectMeta(o.metadata),
      };
    }
    const table = tableOf(
      this.p.type,
      [o],
      { resourceVersion: o.metadata.resourceVersion ?? '' },
      v.include,
      v.now(),
    );
    if (this.tableHeaderSent) table['columnDefinitions'] = null;
    this.tableHeaderSent = true;
    if (v.apiVersion !== 'meta.k8s.io/v1') {
      table['apiVersion'] = v.apiVersion;
      for (const row of table['rows'] as { object?: Json | null }[]) {
        if (row.object?.['apiVersion'] === 'meta.k8s.io/v1') row.object['apiVersion'] = v.apiVersion;
      }
    }
    return table;
  }

  /** One event in the stream's framing: a JSON line or a protobuf frame. */
  private frame(evType: string, object: Json | StatusBody): string | Buffer {
    if (this.p.protobuf) {
      const body = encodeProtobuf(object as Json);
      if (body) return encodeWatchFrame(evType, body);
    }
    return JSON.stringify({ type: evType, object }) + '\n';
  }

  private writeRaw(text: string | Buffer): boolean {
    if (this.closed || this.res.destroyed) return false;
    if (this.cutPending) {
      this.cutPending = false;
      const half = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
      const socket = this.res.socket;
      this.res.write(half.subarray(0, Math.max(1, Math.floor(half.length / 2))), () => socket?.destroy());
      this.onCut?.();
      this.finish(false);
      return false;
    }
    return this.res.write(text);
  }

  /** Ends the watch: `clean` ends the chunked body; otherwise the connection is gone already. */
  finish(clean: boolean): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    for (const t of this.timers) clearTimeout(t);
    this.queue.length = 0;
    this.backlog = [];
    if (clean && !this.res.destroyed) this.res.end();
    this.onClose(this);
  }

  drop(): void {
    if (this.closed) return;
    this.res.socket?.destroy();
    this.finish(false);
  }

  stall(): boolean {
    if (this.closed || this.stalled) return false;
    this.stalled = true;
    return true;
  }

  /** The CRD whose custom resources this watch streams, if any. */
  get crd(): string | undefined {
    return this.p.type.crd;
  }

  /**
   * Ends the watch cleanly once what is queued was written, as kube-apiserver does when the
   * storage behind it is destroyed (a CRD deleted or changed). A stalled watch ends at once.
   */
  endAfterQueued(): void {
    if (this.closed) return;
    if (this.stalled) {
      this.finish(true);
      return;
    }
    this.endWhenDrained = true;
    this.pump();
  }

  cutNext(): boolean {
    if (this.closed || this.stalled || this.cutPending) return false;
    this.cutPending = true;
    return true;
  }

  /** Whether a mid-line cut is armed and has not happened yet. */
  get cutArmed(): boolean {
    return this.cutPending && !this.closed;
  }

  /** Queues one ERROR 410 line, then ends cleanly. False when stalled or closed. */
  expire(): boolean {
    if (this.closed || this.stalled) return false;
    const rv = this.store.compactedRevision + 1;
    this.queue.push({ kind: 'expired', text: this.frame('ERROR', tooOldResourceVersion(rv - 1, rv)) });
    this.endAfterQueued();
    return true;
  }

  sendMalformedLine(): boolean {
    if (this.closed || this.stalled) return false;
    this.queue.push({ kind: 'raw', text: MALFORMED_WATCH_LINE });
    this.pump();
    return true;
  }
}
