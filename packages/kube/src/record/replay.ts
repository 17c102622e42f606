/**
 * `replay`: feeds a recording (`parseRecording`) through controllers — the module's real ones,
 * built with `controller()` as the Manager builds them — in virtual time, against the dry-run sink
 * of `replay-client.ts`, and reports per key the reconciles that ran, why (the triggers coalesced
 * into each, kube-rs's reasons), and the writes they would make; then the difference between those
 * writes and the recorded ones. This is "what would the new version have done with yesterday's
 * events".
 *
 * Virtual time: every timer of the controllers (debounce, backoff, requeue, timeouts) runs on a
 * `VirtualTimeScheduler` whose clock starts at the recording's start; each recorded event is
 * delivered at its recorded time. Between two instants the promises of the reconciles settle (the
 * sink answers at once), so a reconcile takes no virtual time. The same recording and the same
 * controllers give the same report, byte for byte: backoff jitter is fixed (`random: () => 0.5`
 * unless a controller sets its own).
 *
 * What it does not replay: time a reconcile took in reality, requests other than writes the
 * reconcile makes to other systems, and anything the controllers read outside their `Client`.
 *
 * @module
 */
import type { SchedulerLike, Subscription } from 'rxjs';
import { NEVER, Observable, VirtualAction, VirtualTimeScheduler } from 'rxjs';

import type { ControllerOptions, ControllerReconcile } from '../controller/options.js';
import { controller } from '../controller/controller.js';
import type { ControllerResult } from '../controller/report.js';
import type { ReconcileTrace, ReconcileTracing, TriggerReason } from '../controller/tracing.js';
import { EventRecorder } from '../events/event-recorder.js';
import type { WatchTarget } from '../reflector/watch-registry.js';
import { WatchRegistry, watchTargetKey } from '../reflector/watch-registry.js';
import type { KubeObject, ObjectRef, WatchEvent } from '../types.js';
import { objectKey } from '../types.js';
import type { RecordedEvent, RecordedWrite, Recording } from './format.js';
import type { ReplayWrite } from './replay-client.js';
import { replayClient, ReplayState } from './replay-client.js';
import { inReconcile } from './write-client.js';

/**
 * A controller to replay: a Manager registration (`mgr.registered` after the module's `setup`), or
 * any `{ name, options, reconcile }` with `controller()`'s options (without client and registry).
 *
 * ## Example
 * ```ts
 * declare const reconcile: ControllerReconcile<KubeObject>;
 * const registration: ReplayController = { name: 'copy', options: { for: { apiVersion: 'v1', kind: 'ConfigMap' } }, reconcile };
 * ```
 */
export interface ReplayController {
  readonly name: string;
  readonly options: Omit<ControllerOptions<KubeObject>, 'client' | 'registry'> & {
    readonly events?: boolean;
    readonly permissions?: unknown;
    readonly single?: boolean;
  };
  readonly reconcile: ControllerReconcile<KubeObject>;
}

/**
 * Options of {@link replay}.
 *
 * ## Example
 * ```ts
 * const options: ReplayOptions = { afterMs: 5_000, onStep: (step) => console.log(`t=${step.t}ms`) };
 * ```
 */
export interface ReplayOptions {
  /** Virtual time to run past the last recorded line (requeues, retries). Default 1000 ms. */
  readonly afterMs?: number;
  /** Called after each virtual instant ran (stepped mode): its time, and what ran so far. */
  readonly onStep?: (step: ReplayStep) => void | Promise<void>;
  /** Safety valve: instants run at most. Default 1,000,000. */
  readonly maxSteps?: number;
}

/**
 * Where a stepped replay is: the instant that just ran (ms since the start), and the reconciles
 * (ended) and writes so far, in order.
 *
 * ## Example
 * ```ts
 * const onStep = (step: ReplayStep) => console.log(`t=${step.t}ms: ${step.writes.length} writes so far`);
 * ```
 */
export interface ReplayStep {
  readonly t: number;
  readonly reconciles: readonly ReplayReconcile[];
  readonly writes: readonly ReplayWrite[];
}

/**
 * One reconcile a replay ran: when (ms since the start), why, and how it ended.
 *
 * ## Example
 * ```ts
 * const line = (r: ReplayReconcile) => `${r.t}ms ${r.reasons.join(', ')} → ${r.outcome}`;
 * ```
 */
export interface ReplayReconcile {
  readonly seq: number;
  readonly t: number;
  readonly controller: string;
  readonly key: string;
  /** The triggers coalesced into it, in order, as `reason (Kind ns/name)`. */
  readonly reasons: readonly string[];
  readonly outcome: string;
  /** `requeue 300000ms` or `awaitChange`, when it succeeded. */
  readonly action?: string;
}

/**
 * What a replay found: the reconciles and the writes they would make, and the recorded writes to
 * compare them with.
 *
 * ## Example
 * ```ts
 * declare const recording: Recording;
 * const report: ReplayReport = await replay(recording, mgr.registered);
 * console.log(formatReplay(report));
 * ```
 */
export interface ReplayReport {
  readonly recording: Recording;
  readonly reconciles: readonly ReplayReconcile[];
  readonly writes: readonly ReplayWrite[];
  /** Watch targets the controllers asked for that the recording does not have (replayed empty). */
  readonly unrecorded: readonly WatchTarget[];
  /**
   * The final state: each object as last delivered, with the replay's successful writes since
   * merged over it (what an invariant of a permutation test checks).
   */
  readonly objects: readonly KubeObject[];
}

/** A `VirtualTimeScheduler` whose clock starts at `base` (epoch ms). */
class ReplayScheduler extends VirtualTimeScheduler {
  constructor(base: number) {
    super(VirtualAction, Number.POSITIVE_INFINITY);
    this.now = () => base + this.frame;
  }
}

/** Lets every promise chain started so far settle (the sink answers at once). */
async function settle(): Promise<void> {
  for (let i = 0; i < 4; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Replays `recording` through `controllers` in virtual time (see the module doc).
 *
 * ## Example
 * ```ts
 * import { readFileSync } from 'node:fs';
 * declare function setup(mgr: Manager): Promise<void>;
 * const recording = parseRecording(readFileSync('run.ndjson', 'utf8'));
 * const mgr = new Manager({ client, name: recording.header.name });
 * await setup(mgr); // the module's setup registers its controllers
 * console.log(formatReplay(await replay(recording, mgr.registered)));
 * ```
 */
export async function replay(
  recording: Recording,
  controllers: readonly ReplayController[],
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  const { header } = recording;
  const base = header.epochMs ?? 0;
  const scheduler = new ReplayScheduler(base);
  const state = new ReplayState(header.resources ?? [], recording.writes, scheduler, base);
  const byTarget = new Map<string, RecordedEvent[]>();
  for (const e of recording.events) {
    const key = watchTargetKey(e.target);
    const list = byTarget.get(key) ?? [];
    list.push(e);
    byTarget.set(key, list);
  }
  const unrecorded: WatchTarget[] = [];
  const registry = new WatchRegistry(
    (target) => {
      const events = byTarget.get(watchTargetKey(target));
      if (events === undefined) unrecorded.push(target);
      return delivered(events ?? EMPTY_LIST, state, scheduler, base);
    },
    {},
    scheduler,
  );
  const reconciles: ReplayReconcile[] = [];
  const tracing = replayTracing(state, scheduler, base, reconciles);
  const subscriptions: Subscription[] = [];
  for (const c of controllers) {
    const { events, permissions: _p, single: _s, ...rest } = c.options;
    const client = replayClient(state, { controller: c.name, primary: rest.for });
    const scope =
      rest.namespace !== undefined || header.namespaces === undefined || header.namespaces.length === 0
        ? {}
        : header.namespaces.length === 1
          ? { namespace: header.namespaces[0]! }
          : { namespaces: header.namespaces };
    const ctrl = controller<KubeObject>(
      {
        random: () => 0.5,
        ...rest,
        ...scope,
        name: c.name,
        client,
        registry,
        log: {},
        logResults: false,
        tracing,
        ...(events === true
          ? {
              recorder: new EventRecorder(
                client,
                { reportingController: `${header.name}/${c.name}`, reportingInstance: 'replay' },
                scheduler,
              ),
            }
          : {}),
      },
      scheduler,
    );
    const reconcile: ControllerReconcile<KubeObject> = (request, ctx) =>
      inReconcile(c.name, objectKey(request), () => c.reconcile(request, ctx));
    subscriptions.push(ctrl.run(reconcile).subscribe());
  }
  const last = Math.max(0, ...recording.events.map((e) => e.t), ...recording.writes.map((w) => w.t));
  const end = base + last + (options.afterMs ?? 1000);
  const maxSteps = options.maxSteps ?? 1_000_000;
  try {
    for (let step = 0; step < maxSteps; step++) {
      await settle();
      const next = scheduler.actions[0];
      if (next === undefined || base + next.delay > end) break;
      scheduler.maxFrames = next.delay;
      scheduler.flush();
      await settle();
      await options.onStep?.({ t: next.delay, reconciles, writes: state.writes });
    }
  } finally {
    for (const s of subscriptions) s.unsubscribe();
  }
  return { recording, reconciles, writes: state.writes, unrecorded, objects: state.final() };
}

const EMPTY_LIST: readonly RecordedEvent[] = [];

/** A target's recorded events, each delivered (and applied to the state) at its time. */
function delivered(
  events: readonly RecordedEvent[],
  state: ReplayState,
  scheduler: SchedulerLike,
  base: number,
): Observable<WatchEvent<KubeObject>> {
  if (events.length === 0) {
    // Not recorded: an empty list, so the controller's caches sync.
    return new Observable((subscriber) => {
      subscriber.next({ type: 'Init' });
      subscriber.next({ type: 'InitDone' });
      return NEVER.subscribe(subscriber);
    });
  }
  return new Observable((subscriber) => {
    const subs = events.map((e) =>
      scheduler.schedule(
        () => {
          state.deliver(e.event);
          subscriber.next(e.event);
        },
        Math.max(0, base + e.t - scheduler.now()),
      ),
    );
    return () => {
      for (const s of subs) s.unsubscribe();
    };
  });
}

/** The tracer of a replay: collects each reconcile with its triggers and outcome. */
function replayTracing(
  state: ReplayState,
  scheduler: SchedulerLike,
  base: number,
  out: ReplayReconcile[],
): ReconcileTracing {
  const pending = new Map<string, string[]>();
  const id = (controller: string, key: string) => `${controller}\u0000${key}`;
  return {
    triggered(controller, key, note) {
      const list = pending.get(id(controller, key)) ?? [];
      list.push(reasonText(note.reason, note.object));
      pending.set(id(controller, key), list);
    },
    queued() {
      // the queue wait is virtual: nothing to report
    },
    start(controller, key, _request: ObjectRef): ReconcileTrace {
      const reasons = pending.get(id(controller, key)) ?? [];
      pending.delete(id(controller, key));
      const seq = state.next();
      const t = scheduler.now() - base;
      return {
        request: () => undefined,
        end(result: ControllerResult | undefined) {
          out.push({
            seq,
            t,
            controller,
            key,
            reasons,
            outcome: result === undefined ? 'cancelled' : result.outcome,
            ...(result?.action !== undefined
              ? {
                  action:
                    result.action.type === 'requeue' ? `requeue ${result.action.afterMs}ms` : 'awaitChange',
                }
              : {}),
          });
        },
      };
    },
  };
}

function reasonText(reason: TriggerReason, object: KubeObject | undefined): string {
  return object === undefined ? reason : `${reason} (${object.kind} ${objectKey(object)})`;
}

/** A write as one line: verb, object, subresource, patch type, field manager and body. */
function writeLine(w: Omit<RecordedWrite, 'type' | 't' | 'outcome'>): string {
  const sub = w.subresource !== undefined ? `/${w.subresource}` : '';
  const type = w.patchType !== undefined ? ` (${w.patchType})` : '';
  const body = w.body === undefined ? '' : ` ${canonical(masked(w.body, w.ref.kind))}`;
  return `${w.verb} ${w.ref.kind} ${objectKey(w.ref)}${sub}${type}${body}`;
}

const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/**
 * A body with what cannot compare across a recording and its replay masked: timestamps (virtual
 * time differs from the recorded wall clock by the reconciles' real durations), an Event's name
 * (derived from its time) and `resourceVersion`.
 */
function masked(value: unknown, kind: string, key = ''): unknown {
  if (typeof value === 'string') return TIMESTAMP.test(value) ? '<time>' : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => masked(v, kind));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (key === 'metadata' && (k === 'resourceVersion' || (kind === 'Event' && k === 'name'))) continue;
    out[k] = masked(v, kind, k);
  }
  return out;
}

/** JSON with sorted keys. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}

/** Longest common subsequence diff of two lists of lines: `-` only in `a`, `+` only in `b`. */
function diffLines(a: readonly string[], b: readonly string[]): string[] {
  const n = a.length;
  const m = b.length;
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      i++;
      j++;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push(`- ${a[i++]}`);
    else out.push(`+ ${b[j++]}`);
  }
  while (i < n) out.push(`- ${a[i++]}`);
  while (j < m) out.push(`+ ${b[j++]}`);
  return out;
}

const groupKey = (controller: string | undefined, key: string | undefined): string =>
  `${controller ?? '(no controller)'} ${key ?? '(no key)'}`;

/**
 * The differences between the recorded writes and the replay's, per controller and key: `-` a
 * write recorded but not made in the replay, `+` one the replay made that was not recorded
 * (timestamps, Event names and resourceVersions masked). Empty when they are the same.
 *
 * ## Example
 * ```ts
 * declare const recording: Recording;
 * declare const controllers: readonly ReplayController[];
 * const changed = diffWrites(await replay(recording, controllers));
 * console.log(changed.join('\n')); // e.g. copy ns/a, - apply ConfigMap ns/a-copy {…}, + apply ConfigMap ns/a-copy {…}
 * ```
 */
export function diffWrites(report: ReplayReport): string[] {
  const recorded = new Map<string, string[]>();
  const replayed = new Map<string, string[]>();
  for (const w of report.recording.writes) {
    const g = groupKey(w.controller, w.key);
    recorded.set(g, [...(recorded.get(g) ?? []), writeLine(w)]);
  }
  for (const w of report.writes) {
    const g = groupKey(w.controller, w.key);
    replayed.set(g, [...(replayed.get(g) ?? []), writeLine(w)]);
  }
  const out: string[] = [];
  for (const g of [...new Set([...recorded.keys(), ...replayed.keys()])].sort()) {
    const lines = diffLines(recorded.get(g) ?? [], replayed.get(g) ?? []);
    if (lines.length > 0) out.push(g, ...lines);
  }
  return out;
}

/**
 * The report as text: per controller and key, each reconcile (time, why, outcome) with the writes
 * it would make, then the diff against the recorded writes. Deterministic: sorted by controller
 * and key, times relative to the recording's start.
 *
 * ## Example
 * ```ts
 * declare const recording: Recording;
 * process.stdout.write(formatReplay(await replay(recording, mgr.registered)));
 * ```
 */
export function formatReplay(report: ReplayReport): string {
  const { header } = report.recording;
  const lines: string[] = [
    `replay of ${header.name}${header.module !== undefined ? ` (${header.module})` : ''}: ` +
      `${report.recording.events.length} events, ${report.recording.writes.length} writes recorded`,
  ];
  for (const t of report.unrecorded) {
    lines.push(
      `note: watch ${t.resource.kind}${t.namespace !== undefined ? ` in ${t.namespace}` : ''} was not recorded: replayed as an empty list`,
    );
  }
  type Item = { seq: number; text: string[] };
  const groups = new Map<string, Item[]>();
  const add = (g: string, item: Item) => groups.set(g, [...(groups.get(g) ?? []), item]);
  for (const r of report.reconciles) {
    add(groupKey(r.controller, r.key), {
      seq: r.seq,
      text: [
        `  ${r.t}ms reconcile (${r.reasons.length === 0 ? 'no trigger' : summarize(r.reasons)}) → ${r.outcome}` +
          (r.action !== undefined ? ` (${r.action})` : ''),
      ],
    });
  }
  for (const w of report.writes) {
    add(groupKey(w.controller, w.key), {
      seq: w.seq,
      text: [
        `    ${writeLine(w)}${w.outcome.ok ? '' : ` → ${w.outcome.code ?? ''} ${w.outcome.reason} (as recorded)`}`,
      ],
    });
  }
  for (const g of [...groups.keys()].sort()) {
    lines.push(g);
    // a reconcile's writes are told before its end: order by sequence, each write under the
    // reconcile that started last before it
    const items = groups.get(g)!.sort((a, b) => a.seq - b.seq);
    for (const item of items) lines.push(...item.text);
  }
  const diff = diffWrites(report);
  lines.push(diff.length === 0 ? 'writes: the same as recorded' : 'writes different from the recorded ones:');
  for (const d of diff) lines.push(d.startsWith('- ') || d.startsWith('+ ') ? `  ${d}` : d);
  return `${lines.join('\n')}\n`;
}

/** Reasons with repeats counted: `object updated (ConfigMap ns/a) ×2, resync`. */
function summarize(reasons: readonly string[]): string {
  const counts = new Map<string, number>();
  for (const r of reasons) counts.set(r, (counts.get(r) ?? 0) + 1);
  return [...counts].map(([r, n]) => (n === 1 ? r : `${r} ×${n}`)).join(', ');
}
