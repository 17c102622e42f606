/**
 * Replays kube-wire exchanges against a running in-memory API server over real HTTP: translates
 * run-specific values of the recording (resourceVersions, uids, continue tokens, generated names),
 * sends the request as recorded, keeps watches open while later exchanges run, and compares the
 * answers with {@link compareBody}/{@link compareHeaders}. Test support only.
 *
 * @module
 */
import { isObject } from '../apply/json-value.js';
import type { ApiServer } from '../server.js';
import { compareBody, compareHeaders, ValueMap } from './compare.js';
import type { Exchange } from './transcripts.js';

/** Tokens used when the server runs with authentication (file 15, 22). */
export const ADMIN_TOKEN = 'replay-admin-token';
export const LIMITED_TOKEN = 'replay-limited-token';

/** One event line of a watch: type and object name (BOOKMARK without name). */
interface WatchEvent {
  type: string;
  kind: string;
  name: string | undefined;
}

function parseLine(line: string): WatchEvent | undefined {
  try {
    const parsed = JSON.parse(line) as { type?: unknown; object?: unknown };
    const object = isObject(parsed.object) ? parsed.object : {};
    const metadata = isObject(object.metadata) ? object.metadata : {};
    return {
      type: String(parsed.type),
      kind: typeof object.kind === 'string' ? object.kind : '',
      name: typeof metadata.name === 'string' ? metadata.name : undefined,
    };
  } catch {
    // A line the recording shortened (21's 40 KiB event) is no longer JSON: read type, kind and name.
    const type = /^\{"type":"(\w+)"/.exec(line)?.[1];
    if (type === undefined) return undefined;
    return { type, kind: /"kind":"(\w+)"/.exec(line)?.[1] ?? '', name: /"name":"([^"]+)"/.exec(line)?.[1] };
  }
}

/** A watch started by the replay and still being read. */
export interface OpenWatch {
  readonly index: number;
  readonly expected: WatchEvent[];
  readonly events: WatchEvent[];
  /** Resolves when the stream ended (server or abort) or when all expected events arrived. */
  readonly done: Promise<'ended' | 'complete' | 'aborted'>;
  abort(): void;
  readonly ended: boolean;
}

/** Whether a recorded request is a watch. */
export function isWatch(ex: Exchange): boolean {
  const url = new URL(ex.request.path, 'http://x');
  const w = url.searchParams.get('watch');
  return w === '1' || w === 'true' || url.pathname.includes('/watch/');
}

/** The Authorization header for a recorded `request.auth`. */
function authorization(ex: Exchange): string | undefined {
  const auth = ex.request.auth;
  if (auth === undefined) return `Bearer ${ADMIN_TOKEN}`;
  if (auth.startsWith('no Authorization')) return undefined;
  if (auth.includes('not-a-valid-token')) return 'Bearer not-a-valid-token';
  if (auth.includes('RBAC-less')) return `Bearer ${LIMITED_TOKEN}`;
  return `Bearer ${ADMIN_TOKEN}`;
}

/** Replays one transcript against one server, exchange after exchange. */
export class Replayer {
  readonly map = new ValueMap();
  readonly watches: OpenWatch[] = [];

  constructor(private readonly server: ApiServer) {}

  private request(ex: Exchange, overridePath?: string): { url: string; init: RequestInit } {
    const path = overridePath ?? this.map.path(ex.request.path, () => String(this.server.resourceVersion));
    const headers: Record<string, string> = { 'User-Agent': 'wire-record/1.0' };
    const auth = authorization(ex);
    if (auth !== undefined) headers.Authorization = auth;
    if (ex.request.headers['Content-Type'] !== undefined)
      headers['Content-Type'] = ex.request.headers['Content-Type'];
    if (ex.request.headers.Accept !== undefined) headers.Accept = ex.request.headers.Accept;
    const body = ex.request.body;
    const init: RequestInit = { method: ex.request.method, headers };
    if (body !== null && body !== undefined && ex.request.method !== 'GET') {
      const mapped = this.map.body(body);
      init.body = typeof mapped === 'string' ? mapped : JSON.stringify(mapped);
    }
    return { url: `${this.server.url}${path}`, init };
  }

  /** Sends a non-watch exchange and returns the differences from the recording. */
  async exchange(ex: Exchange): Promise<string[]> {
    const { url, init } = this.request(ex);
    let res: Response;
    try {
      res = await fetch(url, init);
    } catch {
      // A pooled keep-alive connection the server closed (restart): retry once on a new one, as clients do.
      res = await fetch(url, init);
    }
    const text = await res.text();
    const recorded = ex.response;
    if (recorded === null) return [`no recorded response (${ex.error ?? 'unknown'})`];
    const contentType = res.headers.get('content-type') ?? '';
    let body: unknown = text;
    if (contentType.includes('json') && text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        return [`status ${res.status}: body is not JSON: ${text.slice(0, 200)}`];
      }
    }
    const diffs: string[] = [];
    if (res.status !== recorded.status) diffs.push(`status: expected ${recorded.status}, got ${res.status}`);
    diffs.push(...compareHeaders(recorded.headers, res.headers));
    // Lists with a resourceVersion other than Exact come from the v1.24 watch cache: not sorted.
    const query = new URL(ex.request.path, 'http://x').searchParams;
    const unsorted = query.get('resourceVersion') !== null && query.get('resourceVersionMatch') !== 'Exact';
    diffs.push(
      ...compareBody(recorded.body, body, this.map, { unsorted, trimmed: recorded.trimmed !== undefined }),
    );
    this.map.learn(recorded.body, body);
    if (diffs.length > 0 && isObject(body) && body.kind === 'Status')
      diffs.push(`(our Status: ${JSON.stringify(body)})`);
    return diffs;
  }

  /**
   * Starts a watch exchange: checks status and headers now, keeps reading in the background.
   * Watches the recording saw idle are shortened to `timeoutSeconds=1` to check the clean end.
   */
  async startWatch(ex: Exchange, index: number): Promise<{ diffs: string[]; watch?: OpenWatch }> {
    const recorded = ex.response;
    if (recorded === null) return { diffs: ['no recorded response'] };
    const body = recorded.body as { lines?: string[] } | string;
    const lines = typeof body === 'object' && Array.isArray(body.lines) ? body.lines : undefined;
    const expected = (lines ?? [])
      .map(parseLine)
      .filter((e): e is WatchEvent => e !== undefined && e.type !== 'BOOKMARK');
    let path = this.map.path(ex.request.path, () => String(this.server.resourceVersion));
    if (lines !== undefined && expected.length === 0)
      path = path.replace(/timeoutSeconds=\d+/, 'timeoutSeconds=1');
    const controller = new AbortController();
    const { url, init } = this.request(ex, path);
    const res = await fetch(url, { ...init, signal: controller.signal });
    const diffs: string[] = [];
    if (res.status !== recorded.status) diffs.push(`status: expected ${recorded.status}, got ${res.status}`);
    diffs.push(...compareHeaders(recorded.headers, res.headers));
    if (lines === undefined) {
      const text = await res.text();
      const parsed: unknown =
        res.headers.get('content-type')?.includes('json') && text !== '' ? JSON.parse(text) : text;
      diffs.push(...compareBody(recorded.body, parsed, this.map, { unsorted: false }));
      return { diffs };
    }
    if (
      recorded.headers['Transfer-Encoding'] === 'chunked' &&
      res.headers.get('transfer-encoding') !== 'chunked'
    ) {
      diffs.push(
        `header Transfer-Encoding: expected "chunked", got ${String(res.headers.get('transfer-encoding'))}`,
      );
    }
    const events: WatchEvent[] = [];
    let ended = false;
    const reader = (res.body as ReadableStream<Uint8Array> | null)?.getReader();
    const done = (async (): Promise<'ended' | 'complete' | 'aborted'> => {
      if (reader === undefined) return 'ended';
      const decoder = new TextDecoder();
      let buffer = '';
      try {
        for (;;) {
          const chunk = await reader.read();
          if (chunk.done) {
            ended = true;
            return 'ended';
          }
          buffer += decoder.decode(chunk.value, { stream: true });
          let nl = buffer.indexOf('\n');
          while (nl >= 0) {
            const event = parseLine(buffer.slice(0, nl));
            buffer = buffer.slice(nl + 1);
            if (event !== undefined && event.type !== 'BOOKMARK') events.push(event);
            nl = buffer.indexOf('\n');
          }
          if (expected.length > 0 && events.length >= expected.length) {
            controller.abort();
            return 'complete';
          }
        }
      } catch {
        return 'aborted';
      }
    })();
    const watch: OpenWatch = {
      index,
      expected,
      events,
      done,
      abort: () => controller.abort(),
      get ended() {
        return ended;
      },
    };
    this.watches.push(watch);
    return { diffs, watch };
  }

  /** Compares what an open watch received (types in order, names as a multiset) once it finished. */
  static watchDiffs(watch: OpenWatch, outcome: 'ended' | 'complete' | 'aborted' | 'timeout'): string[] {
    const diffs: string[] = [];
    const types = (es: WatchEvent[]): string[] => es.map((e) => `${e.type} ${e.kind}`);
    const names = (es: WatchEvent[]): string[] => es.map((e) => e.name ?? '').sort();
    if (JSON.stringify(types(watch.expected)) !== JSON.stringify(types(watch.events))) {
      diffs.push(
        `event types: expected ${JSON.stringify(types(watch.expected))}, got ${JSON.stringify(types(watch.events))}`,
      );
    }
    if (JSON.stringify(names(watch.expected)) !== JSON.stringify(names(watch.events))) {
      diffs.push(
        `event objects: expected ${JSON.stringify(names(watch.expected))}, got ${JSON.stringify(names(watch.events))}`,
      );
    }
    if (watch.expected.length === 0 && outcome !== 'ended')
      diffs.push(`idle watch: expected the server to end it, got ${outcome}`);
    return diffs;
  }

  /** Polls a GET exchange until its status is the recorded one (asynchronous controllers: GC, namespaces). */
  async eventually(ex: Exchange, attempts: number, pause: () => Promise<void>): Promise<string[]> {
    let diffs: string[] = [];
    for (let i = 0; i < attempts; i++) {
      diffs = await this.exchange(ex);
      if (!diffs.some((d) => d.startsWith('status:'))) return diffs;
      await pause();
    }
    return diffs;
  }
}
