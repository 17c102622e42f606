/**
 * The soak's verdict at quiescence: every Store equals the server; the last reconcile of every
 * key saw the server's final version (or saw it absent) — for mapped controllers the mapped
 * Secret's too, for owners their children's; no key ever had two reconciles at once.
 *
 * @module
 */
import type { KubeClient, KubeObject, Manager, WatchTarget } from '@rxkube/kube';
import { labelMatcher } from '@rxkube/kube/selector';

import type { SoakController } from './operators.js';

/** What the server holds: every soak ConfigMap and Secret. */
export interface ServerState {
  readonly configmaps: readonly KubeObject[];
  readonly secrets: readonly KubeObject[];
}

/** One check's outcome. */
export interface Verdict {
  readonly ok: boolean;
  /** Store mismatches (target: key …). */
  readonly stores: readonly string[];
  /** Keys whose last reconcile did not see the final state. */
  readonly stale: readonly string[];
  /** Reconciles that overlapped for one key. */
  readonly overlaps: number;
}

/** Reads the server's state over HTTP. */
export async function serverState(client: KubeClient): Promise<ServerState> {
  const [configmaps, secrets] = await Promise.all([
    client.list<KubeObject>({ apiVersion: 'v1', kind: 'ConfigMap' }),
    client.list<KubeObject>({ apiVersion: 'v1', kind: 'Secret' }),
  ]);
  return { configmaps: configmaps.items, secrets: secrets.items };
}

const keyOf = (o: KubeObject): string => `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}`;

function matches(o: KubeObject, namespace: string | undefined, labelSelector: string | undefined): boolean {
  if (namespace !== undefined && o.metadata.namespace !== namespace) return false;
  return labelSelector === undefined || labelMatcher(labelSelector)(o.metadata.labels);
}

/** Compares every Store and every controller's record with `state`; `limit` caps listed mismatches. */
export function verdict(
  mgr: Manager,
  controllers: readonly SoakController[],
  state: ServerState,
  limit = 20,
): Verdict {
  const stores: string[] = [];
  for (const target of mgr.targets()) {
    const expected = objectsOf(state, target).filter((o) =>
      matches(o, target.namespace, target.labelSelector),
    );
    const store = mgr.registry.watch(target).store;
    const want = new Map(expected.map((o) => [keyOf(o), o.metadata.resourceVersion]));
    const have = new Map(store.list().map((o) => [keyOf(o), o.metadata.resourceVersion]));
    for (const [k, rv] of want)
      if (have.get(k) !== rv)
        stores.push(`${describe(target)}: ${k} store ${String(have.get(k))} server ${String(rv)}`);
    for (const k of have.keys())
      if (!want.has(k)) stores.push(`${describe(target)}: ${k} in store, gone from server`);
  }
  const stale: string[] = [];
  const secrets = new Map(state.secrets.map((s) => [keyOf(s), s]));
  for (const c of controllers) {
    const objects = c.resource === 'secrets' ? state.secrets : state.configmaps;
    const present = new Map(
      objects.filter((o) => matches(o, c.namespace, c.labelSelector)).map((o) => [keyOf(o), o]),
    );
    for (const [key, o] of present) {
      const seen = c.seen.get(key);
      const rv = o.metadata.resourceVersion ?? '';
      if (seen === undefined || seen === 'absent' || seen.rv !== rv) {
        stale.push(
          `${c.name} ${key}: saw ${seen === undefined ? 'nothing' : seen === 'absent' ? 'absent' : seen.rv}, server ${rv}`,
        );
        continue;
      }
      if (c.kind === 'mapped') {
        const want = secrets.get(key)?.metadata.resourceVersion ?? 'absent';
        if (seen.secretRv !== want)
          stale.push(`${c.name} ${key}: saw Secret ${String(seen.secretRv)}, server ${want}`);
      }
      if (c.kind === 'owner') {
        const want = state.secrets
          .filter(
            (s) =>
              s.metadata.namespace === o.metadata.namespace &&
              s.metadata.ownerReferences?.some((r) => r.controller === true && r.uid === o.metadata.uid),
          )
          .map((s) => `${s.metadata.name ?? ''}=${s.metadata.resourceVersion ?? ''}`)
          .sort()
          .join(',');
        if (seen.children !== want)
          stale.push(`${c.name} ${key}: saw children [${String(seen.children)}], server [${want}]`);
      }
    }
    for (const [key, seen] of c.seen) {
      if (!present.has(key) && seen !== 'absent')
        stale.push(`${c.name} ${key}: gone from server, last reconcile saw ${seen.rv}`);
    }
  }
  const overlaps = controllers.reduce((s, c) => s + c.overlaps, 0);
  return {
    ok: stores.length === 0 && stale.length === 0 && overlaps === 0,
    stores: stores.slice(0, limit),
    stale: stale.slice(0, limit),
    overlaps,
  };
}

function objectsOf(state: ServerState, target: WatchTarget): readonly KubeObject[] {
  return target.resource.kind === 'Secret' ? state.secrets : state.configmaps;
}

function describe(t: WatchTarget): string {
  return `${t.resource.kind}${t.namespace !== undefined ? ` in ${t.namespace}` : ''}${t.labelSelector !== undefined ? ` [${t.labelSelector}]` : ''}${t.metadataOnly === true ? ' (metadata)' : ''}`;
}
