/**
 * What the Deployment controller decides (`pkg/controller/deployment/sync.go`, `util/deployment_util.go`),
 * as pure functions of the stored objects: the pod-template-hash, the ReplicaSet a Deployment's
 * template needs (name `<deployment>-<hash>`, `pod-template-hash` label on it, its selector and its
 * template, the controller ownerReference), the revision annotations (`deployment.kubernetes.io/revision`,
 * `revision-history` when an old template comes back, `desired-replicas`, `max-replicas`), the
 * Deployment annotations copied to it, and which old ReplicaSets the `revisionHistoryLimit` removes.
 *
 * Does not: reproduce the real hash value (it hashes the Go struct's dump; here an FNV-32a of the
 * template's JSON, encoded with the real alphabet: equal templates get equal names, different ones
 * different names).
 *
 * @module
 */
import type { Json, KObj } from '../store/object.js';
import { clone, deepEqual, isObject, sortKeys } from '../store/object.js';

/** The label the controller adds to a ReplicaSet, its selector and its pod template. */
export const HASH_LABEL = 'pod-template-hash';
export const REVISION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS = 'deployment.kubernetes.io/max-replicas';

/** Annotations never copied from a Deployment to its ReplicaSets (`skipCopyAnnotation`). */
const NOT_COPIED = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  'deprecated.deployment.rollback.to',
]);

/** The alphabet of apimachinery's `rand.SafeEncodeString` (no vowels, no look-alikes). */
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/**
 * A pod-template-hash: FNV-32a of the template's JSON (keys sorted; plus the collision count), its
 * decimal digits encoded like `rand.SafeEncodeString` — the real shape (`5d78d6f8f6`).
 */
export function podTemplateHash(template: unknown, collisionCount: unknown): string {
  let h = 0x811c9dc5;
  const text =
    JSON.stringify(sortKeys(withoutHash(template) ?? {})) +
    (typeof collisionCount === 'number' ? String(collisionCount) : '');
  for (const byte of Buffer.from(text, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  let out = '';
  for (const ch of String(h)) out += SAFE_ALPHABET[ch.charCodeAt(0) % SAFE_ALPHABET.length] ?? '';
  return out;
}

/** A pod template without the `pod-template-hash` label (a copy). */
export function withoutHash(template: unknown): Json | undefined {
  if (!isObject(template)) return undefined;
  const t = clone(template);
  const meta = isObject(t['metadata']) ? t['metadata'] : undefined;
  const labels = meta && isObject(meta['labels']) ? meta['labels'] : undefined;
  if (labels) {
    delete labels[HASH_LABEL];
    if (Object.keys(labels).length === 0 && meta) delete meta['labels'];
  }
  return t;
}

/** `EqualIgnoreHash`: two pod templates equal but for the hash label. */
export function equalIgnoreHash(a: unknown, b: unknown): boolean {
  return deepEqual(withoutHash(a), withoutHash(b));
}

/** The revision of a ReplicaSet (0 when it has none). */
export function revisionOf(o: KObj): number {
  const n = Number(o.metadata.annotations?.[REVISION] ?? '0');
  return Number.isInteger(n) && n > 0 ? n : 0;
}

/** `maxSurge` resolved against `replicas` (percentages round up), 0 for Recreate. */
function maxSurge(spec: Json, replicas: number): number {
  const strategy = isObject(spec['strategy']) ? spec['strategy'] : {};
  if (strategy['type'] === 'Recreate') return 0;
  const rolling = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
  const v = rolling['maxSurge'] ?? '25%';
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.endsWith('%')) return Math.ceil((Number(v.slice(0, -1)) * replicas) / 100);
  return Number(v) || 0;
}

/** The annotations a ReplicaSet carries for `deployment`: copied ones, then the controller's own, sorted. */
export function replicaSetAnnotations(
  deployment: KObj,
  revision: number,
  previous: Record<string, string> | undefined,
  history: string | undefined,
): Record<string, string> {
  const spec = isObject(deployment['spec']) ? deployment['spec'] : {};
  const replicas = typeof spec['replicas'] === 'number' ? spec['replicas'] : 1;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(deployment.metadata.annotations ?? {}))
    if (!NOT_COPIED.has(k)) out[k] = v;
  out[DESIRED_REPLICAS] = String(replicas);
  out[MAX_REPLICAS] = String(replicas + maxSurge(spec, replicas));
  out[REVISION] = String(revision);
  const h = history ?? previous?.[REVISION_HISTORY];
  if (h) out[REVISION_HISTORY] = h;
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The ReplicaSet a Deployment's current template needs (wire form, without server fields). */
export function newReplicaSet(deployment: KObj, hash: string, revision: number): KObj {
  const spec = isObject(deployment['spec']) ? deployment['spec'] : {};
  const template = clone(isObject(spec['template']) ? spec['template'] : {});
  const tmeta = isObject(template['metadata']) ? template['metadata'] : {};
  const labels = {
    ...(isObject(tmeta['labels']) ? (tmeta['labels'] as Record<string, string>) : {}),
    [HASH_LABEL]: hash,
  };
  template['metadata'] = { ...tmeta, labels };
  const selector = clone(isObject(spec['selector']) ? spec['selector'] : {});
  selector['matchLabels'] = {
    ...(isObject(selector['matchLabels']) ? selector['matchLabels'] : {}),
    [HASH_LABEL]: hash,
  };
  const name = deployment.metadata.name ?? '';
  const rsSpec: Json = { replicas: typeof spec['replicas'] === 'number' ? spec['replicas'] : 1 };
  if (typeof spec['minReadySeconds'] === 'number' && spec['minReadySeconds'] > 0)
    rsSpec['minReadySeconds'] = spec['minReadySeconds'];
  rsSpec['selector'] = selector;
  rsSpec['template'] = template;
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name: `${name}-${hash}`,
      namespace: deployment.metadata.namespace,
      labels,
      annotations: replicaSetAnnotations(deployment, revision, undefined, undefined),
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'Deployment',
          name,
          uid: deployment.metadata.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: rsSpec,
  };
}

/**
 * Old ReplicaSets the `revisionHistoryLimit` removes (`cleanupDeployment`): scaled to zero, oldest
 * revision first, beyond the limit (default 10).
 */
export function replicaSetsToClean(deployment: KObj, old: readonly KObj[]): KObj[] {
  const spec = isObject(deployment['spec']) ? deployment['spec'] : {};
  const limit = typeof spec['revisionHistoryLimit'] === 'number' ? spec['revisionHistoryLimit'] : 10;
  const idle = old
    .filter((rs) => {
      const s = isObject(rs['spec']) ? rs['spec'] : {};
      return s['replicas'] === 0 && !rs.metadata.deletionTimestamp;
    })
    .sort((a, b) => revisionOf(a) - revisionOf(b));
  return idle.slice(0, Math.max(0, idle.length - limit));
}
