/**
 * The soak's controllers: more than twenty on one Manager, sharing watches — cluster-wide,
 * per namespace, label-selected, with namespace lanes, with debounce, with mapped and owned
 * watches — each reconcile slow (a random time) and sometimes throwing. Every reconcile records
 * what it saw; the checks compare that with the server at the end, and any two reconciles of one
 * key at once are counted as a violation.
 *
 * @module
 */
import { Action } from '@rxkube/core';
import type {
  ControllerWatch,
  KubeObject,
  Manager,
  ManagedControllerOptions,
  ObjectRef,
  ReconcileContext,
} from '@rxkube/kube';
import { defer } from 'rxjs';

import type { Random } from './random.js';
import type { Layout } from './workload.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const SECRET = { apiVersion: 'v1', kind: 'Secret' } as const;

/** What one successful reconcile saw. */
export interface Seen {
  /** The primary object's resourceVersion. */
  readonly rv: string;
  /** Mapped: the resourceVersion of the same-named Secret (`absent` when the Store had none). */
  readonly secretRv?: string;
  /** Owner: its children's `name=resourceVersion`, sorted. */
  readonly children?: string;
}

/** One controller's shape, and what its reconciles saw. */
export interface SoakController {
  readonly name: string;
  readonly resource: 'configmaps' | 'secrets';
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly kind: 'plain' | 'mapped' | 'owner';
  /** Last successful reconcile per key; `absent` once a request found the object gone. */
  readonly seen: Map<string, Seen | 'absent'>;
  /** Keys reconciled right now. */
  readonly inFlight: Set<string>;
  reconciles: number;
  /** Injected failures of every kind (thrown, thrown synchronously, hung). */
  failures: number;
  /** Reconciles that threw synchronously, before returning anything (a "panic"). */
  thrownSync: number;
  /** Reconciles that hung until their deadline aborted `ctx.signal`. */
  hung: number;
  /** Times a reconcile started for a key already in flight (must stay 0). */
  overlaps: number;
}

/** The options of each soak controller, by name. */
function shapes(
  layout: Layout,
): { name: string; kind: SoakController['kind']; options: ManagedControllerOptions<KubeObject> }[] {
  const ns = (i: number): string => layout.namespaces[i % layout.namespaces.length] ?? 'soak-00';
  const sameNameSecret: ControllerWatch = {
    resource: SECRET,
    map: (o) => [{ namespace: o.metadata.namespace ?? '', name: o.metadata.name ?? '' }],
  };
  const list: {
    name: string;
    kind: SoakController['kind'];
    options: ManagedControllerOptions<KubeObject>;
  }[] = [
    { name: 'all-1', kind: 'plain', options: { for: CM, concurrency: 1 } },
    { name: 'all-4', kind: 'plain', options: { for: CM, concurrency: 4 } },
    { name: 'all-lanes', kind: 'plain', options: { for: CM, concurrency: 2, namespaceLanes: true } },
    {
      name: 'all-debounce',
      kind: 'plain',
      options: { for: CM, concurrency: 4, debounce: { ms: 20, maxWaitMs: 200 } },
    },
    {
      name: 'all-lanes-debounce',
      kind: 'plain',
      options: { for: CM, concurrency: 1, namespaceLanes: true, debounce: { ms: 10, maxWaitMs: 100 } },
    },
    { name: 'gold', kind: 'plain', options: { for: CM, labelSelector: 'tier=gold', concurrency: 2 } },
    {
      name: 'gold-lanes',
      kind: 'plain',
      options: { for: CM, labelSelector: 'tier=gold', namespaceLanes: true },
    },
    { name: 'mapped', kind: 'mapped', options: { for: CM, watches: [sameNameSecret], concurrency: 4 } },
    {
      name: 'mapped-ns',
      kind: 'mapped',
      options: { for: CM, namespace: ns(1), watches: [sameNameSecret], concurrency: 2 },
    },
    {
      name: 'owner',
      kind: 'owner',
      options: { for: CM, labelSelector: 'role=parent', owns: [SECRET], concurrency: 2 },
    },
    {
      name: 'owner-lanes',
      kind: 'owner',
      options: {
        for: CM,
        labelSelector: 'role=parent',
        owns: [SECRET],
        namespaceLanes: true,
        debounce: { ms: 10, maxWaitMs: 50 },
      },
    },
    { name: 'secrets', kind: 'plain', options: { for: SECRET, concurrency: 4 } },
    { name: 'secrets-ns', kind: 'plain', options: { for: SECRET, namespace: ns(2), concurrency: 1 } },
  ];
  for (let i = 0; i < 10; i++) {
    list.push({
      name: `ns-${String(i).padStart(2, '0')}`,
      kind: 'plain',
      options: {
        for: CM,
        namespace: ns(i),
        concurrency: 1 + (i % 3),
        ...(i % 4 === 0 ? { debounce: { ms: 5, maxWaitMs: 50 } } : {}),
      },
    });
  }
  return list;
}

/** Registers the soak's controllers on `mgr`; returns their records. */
export function addControllers(
  mgr: Manager,
  layout: Layout,
  random: Random,
  failureRate: number,
  maxReconcileMs: number,
): SoakController[] {
  return shapes(layout).map(({ name, kind, options }) => {
    const c: SoakController = {
      name,
      resource: options.for.kind === 'Secret' ? 'secrets' : 'configmaps',
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      ...(options.labelSelector !== undefined ? { labelSelector: options.labelSelector } : {}),
      kind,
      seen: new Map(),
      inFlight: new Set(),
      reconciles: 0,
      failures: 0,
      thrownSync: 0,
      hung: 0,
      overlaps: 0,
    };
    const reconcile = (request: ObjectRef, ctx: ReconcileContext<KubeObject>) => {
      // A third of the failures is thrown synchronously, before any Observable exists (issue 19 §2).
      if (random.chance(failureRate / 3)) {
        c.reconciles++;
        c.failures++;
        c.thrownSync++;
        throw new Error(`soak: injected synchronous failure of ${name} for ${ctx.key}`);
      }
      return defer(async () => {
        const key = ctx.key;
        if (c.inFlight.has(key)) c.overlaps++;
        c.inFlight.add(key);
        c.reconciles++;
        try {
          const seen = seenBy(c, ctx);
          // Honours ctx.signal, as user code should: a reconcile past its deadline ends here.
          await sleep(random.int(maxReconcileMs + 1), ctx.signal);
          if (random.chance(failureRate)) {
            c.failures++;
            if (random.chance(0.5)) {
              // Hung (an HTTP call without a timeout): only the deadline ends it (issue 19 §1).
              c.hung++;
              await sleep(Infinity, ctx.signal);
            }
            throw new Error(`soak: injected failure of ${name} for ${key}`);
          }
          c.seen.set(key, seen);
          return Action.awaitChange();
        } finally {
          c.inFlight.delete(key);
        }
      });
    };
    mgr.add(name, options, reconcile);
    return c;
  });
}

function seenBy(c: SoakController, ctx: ReconcileContext<KubeObject>): Seen {
  const rv = ctx.object.metadata.resourceVersion ?? '';
  if (c.kind === 'mapped') {
    const secret = ctx.storeOf(SECRET).get(ctx.key);
    return { rv, secretRv: secret?.metadata.resourceVersion ?? 'absent' };
  }
  if (c.kind === 'owner') {
    const children = ctx
      .owned(SECRET)
      .map((s) => `${s.metadata.name ?? ''}=${s.metadata.resourceVersion ?? ''}`)
      .sort()
      .join(',');
    return { rv, children };
  }
  return { rv };
}

/** Resolves after `ms` (never for `Infinity`); rejects with the signal's reason once it aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    };
    const timer = Number.isFinite(ms)
      ? setTimeout(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        }, ms)
      : undefined;
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
}
