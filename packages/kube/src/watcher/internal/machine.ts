/**
 * The watcher's state machine (kube-rs `watcher` + client-go `Reflector`), driven by one
 * subscriber. Not exported from the package; `watcher()` wraps it in an Observable.
 *
 *   list (pages) ──InitDone──▶ watch ──clean end──▶ watch (same RV, at once)
 *   or stream (WatchList) ─end bookmark (InitDone)─▶ the same request goes on as the watch
 *        ▲  │ failure                │ failure / stall / malformed / ERROR
 *        │  ▼                        ▼
 *        └─ backoff ◀── 410 ── backoff ──▶ watch (last good RV)
 *
 * A 400 (the request itself is wrong: a selector the server cannot parse, a field it cannot
 * select on) is not transient: it waits `maxMs` before every retry and is reported as `invalid`.
 * A stream that fails before its end bookmark for a reason other than the network, 429, 410 or a
 * too-large resourceVersion, 401/403 or a kind not served falls back to pages, remembered for the
 * server (`streamingLists`).
 *
 * The relist keeps one table: `known` holds a mark entry while a list is in progress; every listed
 * object moves behind it (keeping the cached instance when its resourceVersion did not change), so
 * at `InitDone` the entries before the mark are exactly those the list no longer has.
 *
 * Every asynchronous callback carries the `epoch` it was started in; anything that changes the
 * state bumps the epoch, so late callbacks of an aborted request, or callbacks arriving after the
 * consumer unsubscribed in the middle of a page, are ignored.
 */
import type { Observable, Observer, SchedulerLike, Subscriber } from 'rxjs';
import { Subscription } from 'rxjs';

import type { KubeObject, WatchEvent } from '../../types.js';
import { objectKey } from '../../types.js';
import type { ResolvedWatcherConfig } from '../config.js';
import type { WatcherFailure, WatcherFailureKind, WatcherHealth, WatcherPhase } from '../health.js';
import { INITIAL_WATCHER_HEALTH } from '../health.js';
import type { ListPage, ListWatchSource, RawWatchEvent } from '../source.js';
import { INITIAL_EVENTS_END_ANNOTATION } from '../source.js';
import type { Classified } from './classify.js';
import {
  classifyError,
  classifyStatus,
  isGoneFailure,
  isInvalidFailure,
  isTooLargeResourceVersion,
} from './classify.js';

/** client-go: a watch that ends within 1 s without any event is treated as an error. */
export const SHORT_WATCH_MS = 1_000;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** The key of the relist mark in `known` (no object key starts with a NUL). */
const RELIST_MARK = '\u0000relist';

function sameVersion(cached: KubeObject, listed: KubeObject): boolean {
  const rv = listed.metadata.resourceVersion;
  return rv !== undefined && rv !== '' && cached.metadata.resourceVersion === rv;
}

export class WatcherMachine<T extends KubeObject> {
  private epoch = 0;
  private inner: Subscription | undefined;
  private backoffTimer: Subscription | undefined;
  /** `scheduler.now()` when the current backoff ends. */
  private backoffDueAt = 0;
  /** Unregisters this watch from `config.recovery` while it waits on a connection failure. */
  private unwait: (() => void) | undefined;
  /**
   * A recovery already cut this failure streak's wait short: the next waits of the streak are not
   * cut again, so a resource that keeps failing while the server answers (the probe succeeds)
   * backs off as usual instead of retrying at every probe. Cleared by this watch's own success: a
   * list page, a line after a failure, or a watch the server ended cleanly.
   */
  private shortenedThisStreak = false;
  private idleTimer: Subscription | undefined;
  private stopped = false;

  /**
   * Objects emitted and not deleted since: what a relist diffs against. While a list is in
   * progress it also holds {@link RELIST_MARK}: entries after it were listed by this list.
   */
  private known = new Map<string, T>();
  /** A list is in progress (between `Init` and `InitDone`). */
  private listing = false;
  /** The list in progress is a stream whose initial-events-end bookmark has not come yet. */
  private streamingInit = false;
  /** Objects a stream reported DELETED before its end bookmark: a `Delete` after `InitDone`. */
  private deletedWhileListing: T[] = [];
  /** The last resourceVersion was refused (Expired / too large): stream from the current state. */
  private rvUnavailable = false;
  private listRv: string | undefined;
  private continueToken: string | undefined;
  private pageSeen = false;
  /** What to do after the current backoff. */
  private resumeWith: 'list' | 'watch' = 'list';

  private attempt = 0;
  /** 410s in a row (within `resetAfterMs` of each other): their own backoff sequence. */
  private goneAttempt = 0;
  private lastGoneAt: number | undefined;
  private healthySince: number | undefined;
  private watchOpenedAt = 0;
  private lastLineAt = 0;
  private linesThisWatch = 0;
  private watches = 0;
  /**
   * A failure of any kind (a stall included) happened since the last line or the last completed
   * list. A stall while this is `false` is a healthy watch that went quiet; while `true`, it is a
   * consecutive failure and backs off.
   */
  private failedSinceLastLine = false;

  private readonly health: Mutable<WatcherHealth>;

  constructor(
    private readonly source: ListWatchSource<T>,
    private readonly config: ResolvedWatcherConfig,
    private readonly scheduler: SchedulerLike,
    private readonly subscriber: Subscriber<WatchEvent<T>>,
  ) {
    this.health = { ...INITIAL_WATCHER_HEALTH, phase: 'listing' };
  }

  start(): void {
    this.startList();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.abort();
    this.backoffTimer?.unsubscribe();
    this.backoffTimer = undefined;
    this.unwait?.();
    this.unwait = undefined;
    this.known = new Map();
    this.listing = false;
    this.streamingInit = false;
    this.deletedWhileListing = [];
    this.health.connected = false;
    this.health.backoffMs = 0;
    this.report('stopped');
  }

  // ── list ──────────────────────────────────────────────────────────────────────────────────────

  private startList(): void {
    this.listing = true;
    this.listRv = undefined;
    this.continueToken = undefined;
    // Everything known moves before the mark; what this list reports moves behind it.
    this.known.delete(RELIST_MARK);
    this.known.set(RELIST_MARK, undefined as unknown as T);
    const streaming = this.useStreaming();
    this.health.initialList = streaming ? 'streaming' : 'paged';
    this.health.connected = false;
    this.report('listing');
    const epoch = ++this.epoch;
    this.emit({ type: 'Init' });
    if (epoch !== this.epoch) return;
    if (streaming) this.startStream();
    else this.requestPage();
  }

  private useStreaming(): boolean {
    const forced = this.config.streamingLists;
    if (forced !== undefined) return forced;
    return this.source.streamingLists?.supported() === true;
  }

  /** One object of the list in progress: an `InitApply`, the cached instance when unchanged. */
  private listed(object: T): void {
    const key = objectKey(object);
    const cached = this.known.get(key);
    const kept = cached !== undefined && sameVersion(cached, object) ? cached : object;
    this.known.delete(key);
    this.known.set(key, kept);
    this.emit({ type: 'InitApply', object: kept });
  }

  /**
   * Ends the list in progress: drops what it no longer has from `known`, emits `InitDone`, then a
   * `Delete` for each object gone. `false` when the consumer unsubscribed or restarted meanwhile.
   */
  private completeList(resourceVersion: string): boolean {
    const epoch = this.epoch;
    const gone: T[] = [];
    for (const [key, object] of this.known) {
      this.known.delete(key);
      if (key === RELIST_MARK) break;
      gone.push(object);
    }
    for (const object of this.deletedWhileListing) {
      if (!this.known.has(objectKey(object))) gone.push(object);
    }
    this.deletedWhileListing = [];
    this.listing = false;
    this.streamingInit = false;
    this.rvUnavailable = false;
    this.health.resourceVersion = resourceVersion;
    this.health.synced = true;
    this.failedSinceLastLine = false;
    this.emit({ type: 'InitDone' });
    if (epoch !== this.epoch) return false;
    for (const object of gone) {
      this.emit({ type: 'Delete', object });
      if (epoch !== this.epoch) return false;
    }
    return true;
  }

  private requestPage(): void {
    const epoch = ++this.epoch;
    this.pageSeen = false;
    const params =
      this.continueToken === undefined
        ? { limit: this.config.pageSize }
        : { limit: this.config.pageSize, continue: this.continueToken };
    this.subscribeInner(() => this.source.list(params), {
      next: (page) => {
        if (epoch === this.epoch) this.onPage(epoch, page);
      },
      error: (error: unknown) => {
        if (epoch === this.epoch) this.onFailure('list', classifyError(error), error);
      },
      complete: () => {
        if (epoch !== this.epoch) return;
        if (!this.pageSeen) {
          this.onFailure('list', { message: 'list request completed without a page' });
        } else if (this.continueToken !== undefined) {
          this.requestPage();
        } else {
          this.finishList();
        }
      },
    });
  }

  private onPage(epoch: number, page: ListPage<T>): void {
    this.pageSeen = true;
    this.shortenedThisStreak = false;
    this.config.recovery?.succeeded();
    if (!this.listing) return;
    for (const object of page.items) {
      this.listed(object);
      if (epoch !== this.epoch) return;
    }
    // Every page of a paged list reports the first page's resourceVersion.
    this.listRv ??= page.resourceVersion;
    this.continueToken = page.continue !== undefined && page.continue !== '' ? page.continue : undefined;
  }

  private finishList(): void {
    if (!this.listing) return;
    if (this.listRv === undefined || this.listRv === '') {
      this.onFailure('list', {
        message: 'list response has no metadata.resourceVersion, so no watch can start from it',
      });
      return;
    }
    ++this.epoch;
    if (this.completeList(this.listRv)) this.startWatch();
  }

  // ── streaming list (WatchList) ─────────────────────────────────────────────────────────────────

  /**
   * A watch with `sendInitialEvents`: from the last resourceVersion (not older than it, served from
   * the watch cache) on a relist, from the current state (a consistent read) at first or after
   * Expired / too large.
   */
  private startStream(): void {
    this.streamingInit = true;
    this.openWatch(this.rvUnavailable ? '' : (this.health.resourceVersion ?? ''), true);
  }

  /** A line of a stream before its end bookmark. */
  private onInitialLine(event: RawWatchEvent<T>): void {
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
        // Initial events are not ordered by resourceVersion: none of them moves the resume point.
        this.listed(event.object);
        return;
      case 'DELETED':
        this.known.delete(objectKey(event.object));
        this.deletedWhileListing.push(event.object);
        return;
      case 'BOOKMARK': {
        this.health.bookmarks++;
        const meta = event.object.metadata;
        if (meta.annotations?.[INITIAL_EVENTS_END_ANNOTATION] !== 'true') return;
        if (meta.resourceVersion === undefined || meta.resourceVersion === '') {
          this.onFailure('watch', {
            message: 'the initial-events-end bookmark has no resourceVersion, so no watch can resume from it',
          });
          return;
        }
        if (this.completeList(meta.resourceVersion)) this.report('watching');
        return;
      }
      default:
    }
  }

  // ── watch ─────────────────────────────────────────────────────────────────────────────────────

  private startWatch(): void {
    this.openWatch(this.health.resourceVersion ?? '', false);
  }

  /** Opens a watch request; `sendInitialEvents` makes it a streaming list. */
  private openWatch(resourceVersion: string, sendInitialEvents: boolean): void {
    const epoch = ++this.epoch;
    const now = this.scheduler.now();
    this.watchOpenedAt = now;
    this.lastLineAt = now;
    this.linesThisWatch = 0;
    this.healthySince ??= now;
    if (this.watches++ > 0) this.health.reconnects++;
    this.health.connected = true;
    this.health.backoffMs = 0;
    this.report(sendInitialEvents ? 'listing' : 'watching');
    const [min, max] = this.config.timeoutSecondsRange;
    const timeoutSeconds = Math.min(max, min + Math.floor(this.random() * (max - min + 1)));
    this.armIdleTimer(epoch, this.config.idleTimeoutMs);
    const params = sendInitialEvents
      ? {
          resourceVersion,
          timeoutSeconds,
          allowWatchBookmarks: true as const,
          sendInitialEvents: true as const,
        }
      : { resourceVersion, timeoutSeconds, allowWatchBookmarks: true as const };
    this.subscribeInner(() => this.source.watch(params), {
      next: (event) => {
        if (epoch === this.epoch) this.onLine(epoch, event);
      },
      error: (error: unknown) => {
        if (epoch === this.epoch) this.onFailure('watch', classifyError(error), error);
      },
      complete: () => {
        if (epoch === this.epoch) this.onWatchEnd();
      },
    });
  }

  private onLine(epoch: number, event: RawWatchEvent<T>): void {
    const now = this.scheduler.now();
    const recovered = this.failedSinceLastLine;
    this.lastLineAt = now;
    this.linesThisWatch++;
    this.failedSinceLastLine = false;
    this.health.lastEventAt = now;
    if (recovered) {
      this.shortenedThisStreak = false;
      this.config.recovery?.succeeded();
    }
    if (this.streamingInit && event.type !== 'ERROR' && event.type !== 'MALFORMED') {
      this.onInitialLine(event);
      return;
    }
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED': {
        const object = event.object;
        this.rememberRv(object.metadata.resourceVersion);
        this.known.set(objectKey(object), object);
        if (recovered) this.reportRecovered();
        this.emit({ type: 'Apply', object });
        return;
      }
      case 'DELETED': {
        const object = event.object;
        this.rememberRv(object.metadata.resourceVersion);
        this.known.delete(objectKey(object));
        if (recovered) this.reportRecovered();
        this.emit({ type: 'Delete', object });
        return;
      }
      case 'BOOKMARK':
        this.rememberRv(event.object.metadata.resourceVersion);
        this.health.bookmarks++;
        this.report('watching');
        return;
      case 'ERROR':
        this.onFailure('watch-status', classifyStatus(event.object));
        return;
      case 'MALFORMED':
        this.health.malformedLines++;
        this.onFailure('malformed', {
          message: `malformed watch line (${event.error}): ${clip(event.line)}`,
        });
        return;
      default:
        // A type this watcher does not know: ignore it but keep the stream (forward compatible).
        void epoch;
    }
  }

  private onWatchEnd(): void {
    if (this.streamingInit) {
      this.onFailure('watch', {
        message: 'the server ended the streaming list before its initial-events-end bookmark',
      });
      return;
    }
    const lasted = this.scheduler.now() - this.watchOpenedAt;
    if (this.linesThisWatch === 0 && lasted < SHORT_WATCH_MS) {
      this.onFailure('short-watch', {
        message: `the server ended the watch after ${lasted} ms without any line (a very short watch)`,
      });
      return;
    }
    // A clean end (timeoutSeconds reached): resume at once from the last RV; no backoff, no relist.
    // It also proves this watch works, on a quiet resource that sends no line.
    this.shortenedThisStreak = false;
    this.startWatch();
  }

  private armIdleTimer(epoch: number, delay: number): void {
    this.idleTimer?.unsubscribe();
    // One timer per idle period instead of one per line: when it fires early (lines arrived), it is
    // re-armed for what remains of the period since the last line.
    this.idleTimer = this.scheduler.schedule(() => {
      if (epoch !== this.epoch) return;
      const silent = this.scheduler.now() - this.lastLineAt;
      if (silent >= this.config.idleTimeoutMs) {
        this.onStall(silent);
      } else {
        this.armIdleTimer(epoch, this.config.idleTimeoutMs - silent);
      }
    }, delay);
  }

  /**
   * No line for `idleTimeoutMs`. A healthy watch that went quiet (no failure since its last line,
   * or since the list) is re-opened at once from the last RV: on a quiet resource a server may send
   * nothing at all, and backing off there would only delay the next change. A stall that follows
   * another failure with no line in between is a consecutive failure and backs off — with the
   * silence already waited credited against the delay, so attempts are spaced by
   * `max(idleTimeoutMs, backoff step)`: never a hot loop, and never slower than the idle period.
   */
  private onStall(silent: number): void {
    this.health.stalls++;
    const classified: Classified = {
      message: `no watch line for ${silent} ms (idle timeout ${this.config.idleTimeoutMs} ms): the watch stalled`,
    };
    if (this.failedSinceLastLine || this.streamingInit) {
      this.onFailure('stall', classified, undefined, silent);
      return;
    }
    this.abort();
    this.failedSinceLastLine = true;
    this.health.lastError = Object.freeze<WatcherFailure>({
      kind: 'stall',
      message: classified.message,
      at: this.scheduler.now(),
    });
    this.resumeWith = 'watch';
    this.startWatch();
  }

  // ── failures and backoff ──────────────────────────────────────────────────────────────────────

  /**
   * Aborts the request in flight and retries after the backoff. `waitedMs` is time already spent
   * silent (a stall): it is deducted from the delay.
   */
  private onFailure(kind: WatcherFailureKind, classified: Classified, cause?: unknown, waitedMs = 0): void {
    const wasListing = this.listing;
    const wasStreaming = this.streamingInit;
    this.streamingInit = false;
    this.abort();
    const gone = isGoneFailure(classified);
    const notServed = classified.notServed === true;
    const fallback = wasStreaming && !notServed && this.streamFailed(classified, gone, cause);
    // A 400 that made a stream fall back to pages says "no WatchList here", not "bad request".
    const invalid = !gone && !notServed && !fallback && isInvalidFailure(classified);
    const effectiveKind: WatcherFailureKind = gone
      ? 'gone'
      : notServed
        ? 'not-served'
        : invalid
          ? 'invalid'
          : kind;
    if (gone) {
      this.health.gone410s++;
      this.health.relists++;
      this.resumeWith = 'list';
    } else {
      if (
        !notServed &&
        (kind === 'list' || kind === 'watch' || kind === 'watch-status' || kind === 'short-watch')
      ) {
        this.health.errors++;
      }
      this.resumeWith = wasListing ? 'list' : 'watch';
    }
    const failure: WatcherFailure = {
      kind: effectiveKind,
      message: classified.message,
      at: this.scheduler.now(),
      ...(classified.code !== undefined ? { code: classified.code } : {}),
      ...(classified.reason !== undefined ? { reason: classified.reason } : {}),
      ...(classified.retryAfterMs !== undefined ? { retryAfterMs: classified.retryAfterMs } : {}),
      ...(cause !== undefined ? { cause } : {}),
    };
    this.health.lastError = Object.freeze(failure);
    this.health.connected = false;
    this.failedSinceLastLine = true;
    // A 410 is an answer: the server is back and says "list again". It gets its own short sequence
    // (client-go relists ~0.8 s after one) instead of the delay failures accumulated meanwhile.
    // A 400 is an answer too, but "your request is wrong": retrying it soon cannot help, so it waits
    // the longest step (a CRD may yet gain the selectable field) and readiness names it.
    const delay = fallback
      ? 0
      : gone
        ? this.goneBackoff(classified.retryAfterMs)
        : invalid
          ? this.invalidBackoff(classified.retryAfterMs)
          : Math.max(0, this.nextBackoff(classified.retryAfterMs) - waitedMs);
    this.health.backoffMs = delay;
    this.report('backoff');
    this.scheduleResume(delay);
    const recovery = this.config.recovery;
    if (
      recovery !== undefined &&
      !this.shortenedThisStreak &&
      isConnectionFailure(effectiveKind, classified)
    ) {
      const timer = this.backoffTimer;
      this.unwait = recovery.waitForRecovery(() => {
        this.unwait = undefined;
        this.onServerRecovered(timer);
      });
    }
  }

  private scheduleResume(delay: number): void {
    this.unwait?.();
    this.unwait = undefined;
    this.backoffTimer?.unsubscribe();
    this.backoffDueAt = this.scheduler.now() + delay;
    this.backoffTimer = this.scheduler.schedule(() => {
      this.backoffTimer = undefined;
      this.unwait?.();
      this.unwait = undefined;
      if (this.stopped) return;
      if (this.resumeWith === 'list') this.startList();
      else this.startWatch();
    }, delay);
  }

  /**
   * Another request to this server succeeded while this watch waited on a connection failure: the
   * server is back, so the wait its failures accumulated no longer applies. Retry within
   * `initialMs × random()` (spread, so siblings do not all arrive at once), and start the backoff
   * sequence over.
   */
  private onServerRecovered(timer: Subscription | undefined): void {
    if (this.stopped || timer === undefined || this.backoffTimer !== timer) return;
    const spread = Math.round(this.config.backoff.initialMs * this.random());
    const remaining = this.backoffDueAt - this.scheduler.now();
    this.attempt = 0;
    if (spread >= remaining) return;
    this.shortenedThisStreak = true;
    this.health.backoffMs = spread;
    this.report('backoff');
    this.scheduleResume(spread);
  }

  /**
   * A stream failed before its end bookmark. Expired / too large: the next stream starts from the
   * current state. The network or 429: the stream is retried. Anything else (a 422 from a server
   * without WatchList, a stream that ends or stalls before the bookmark, …) says the server cannot
   * stream lists: unless streaming is forced, it is remembered and the list is paged, at once.
   * Returns whether it falls back.
   */
  private streamFailed(classified: Classified, gone: boolean, cause: unknown): boolean {
    if (gone || isTooLargeResourceVersion(classified)) {
      this.rvUnavailable = true;
      return false;
    }
    // An error on the request's error channel without an HTTP status: the connection failed.
    const transport = cause !== undefined && classified.code === undefined;
    // 401/403: the server refused the watch verb, which says nothing about streaming lists (a paged
    // list would be followed by the same refused watch); retried like any refusal.
    const refused = classified.code === 401 || classified.code === 403;
    if (transport || refused || classified.code === 429) return false;
    if (this.config.streamingLists !== undefined) return false;
    const first = this.source.streamingLists?.unsupported(classified.message) ?? true;
    if (first) {
      this.config.debug?.(
        `streaming lists (WatchList) fall back to paged lists for this server: ${classified.message}`,
      );
    }
    return true;
  }

  private nextBackoff(retryAfterMs: number | undefined): number {
    const { initialMs, maxMs, factor, jitter, resetAfterMs } = this.config.backoff;
    const now = this.scheduler.now();
    if (this.healthySince !== undefined && now - this.healthySince >= resetAfterMs) this.attempt = 0;
    this.healthySince = undefined;
    const base = Math.min(maxMs, initialMs * factor ** this.attempt);
    if (base < maxMs) this.attempt++;
    const delay = Math.round(base * (1 - jitter * this.random()));
    return retryAfterMs !== undefined ? Math.max(delay, Math.ceil(retryAfterMs)) : delay;
  }

  /** The delay after a 400: `maxMs` (at least `Retry-After`), unjittered, whatever came before. */
  private invalidBackoff(retryAfterMs: number | undefined): number {
    const { maxMs } = this.config.backoff;
    this.healthySince = undefined;
    return retryAfterMs !== undefined ? Math.max(maxMs, Math.ceil(retryAfterMs)) : maxMs;
  }

  /**
   * The delay before the relist that follows a 410: `initialMs` for the first 410 (after an outage
   * too), growing only while 410s follow each other within `resetAfterMs` — so a server that
   * answers every watch with 410 cannot make the watcher relist in a hot loop.
   */
  private goneBackoff(retryAfterMs: number | undefined): number {
    const { initialMs, maxMs, factor, jitter, resetAfterMs } = this.config.backoff;
    const now = this.scheduler.now();
    if (this.lastGoneAt === undefined || now - this.lastGoneAt >= resetAfterMs) this.goneAttempt = 0;
    this.lastGoneAt = now;
    const base = Math.min(maxMs, initialMs * factor ** this.goneAttempt);
    if (base < maxMs) this.goneAttempt++;
    const delay = Math.round(base * (1 - jitter * this.random()));
    return retryAfterMs !== undefined ? Math.max(delay, Math.ceil(retryAfterMs)) : delay;
  }

  // ── plumbing ──────────────────────────────────────────────────────────────────────────────────

  /** Aborts the request in flight and the idle timer; later callbacks of either are ignored. */
  private abort(): void {
    this.epoch++;
    this.inner?.unsubscribe();
    this.inner = undefined;
    this.idleTimer?.unsubscribe();
    this.idleTimer = undefined;
  }

  private subscribeInner<V>(request: () => Observable<V>, observer: Observer<V>): void {
    this.inner?.unsubscribe();
    // The holder is installed before subscribing, so a synchronous callback that aborts this request
    // also closes the subscription that `subscribe()` returns afterwards.
    const holder = new Subscription();
    this.inner = holder;
    let request$: Observable<V>;
    try {
      request$ = request();
    } catch (error) {
      observer.error(error);
      return;
    }
    holder.add(request$.subscribe(observer));
  }

  private rememberRv(rv: string | undefined): void {
    if (rv !== undefined && rv !== '') this.health.resourceVersion = rv;
  }

  private random(): number {
    const r = this.config.random();
    return Number.isFinite(r) ? Math.min(Math.max(r, 0), 1) : 0;
  }

  private emit(event: WatchEvent<T>): void {
    this.subscriber.next(event);
  }

  /**
   * Health is not reported per event, but the first event after a failure is: it proves the watch
   * works again (a refused watch request is open for a moment too), which readiness and the
   * failure log read from the snapshots.
   */
  private reportRecovered(): void {
    this.report('watching');
  }

  private report(phase: WatcherPhase): void {
    this.health.phase = phase;
    this.health.objects = this.known.size - (this.known.has(RELIST_MARK) ? 1 : 0);
    const callback = this.config.health;
    if (callback !== undefined) callback(Object.freeze({ ...this.health }));
  }
}

/**
 * A failure to reach or be served by the server (network, 5xx, a very short watch, a stall) that
 * the server asked no particular wait for: one a sibling's success proves over.
 */
function isConnectionFailure(kind: WatcherFailureKind, c: Classified): boolean {
  if (
    kind !== 'list' &&
    kind !== 'watch' &&
    kind !== 'watch-status' &&
    kind !== 'short-watch' &&
    kind !== 'stall'
  ) {
    return false;
  }
  return c.retryAfterMs === undefined && (c.code === undefined || c.code >= 500);
}

function clip(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}… (${line.length} chars)` : line;
}
