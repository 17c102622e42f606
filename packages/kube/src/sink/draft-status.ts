/**
 * `draftStatus`: draft the desired `status` of an object with immer and get the JSON Patch of the
 * change; `setObservedGeneration` for the usual `status.observedGeneration` bookkeeping.
 *
 * @module
 */
import { enablePatches, produceWithPatches } from 'immer';
import type { Draft, Patch as ImmerPatch } from 'immer';

import type { JsonPatchOperation } from '../client/verb-options.js';
import type { KubeObject } from '../types.js';
import { toJsonPatch } from './json-patch.js';

/**
 * What {@link draftStatus} returns.
 *
 * ## Example
 * ```ts
 * const drafted: DraftedStatus<WidgetStatus> = draftStatus(widget, (s) => {
 *   s.phase = 'Ready';
 * });
 * drafted.patch; // [{ op: 'replace', path: '/status/phase', value: 'Ready' }] when phase was set before
 * ```
 */
export interface DraftedStatus<S> {
  /** The new status (frozen by immer); `undefined` when the recipe removed it or it never existed. */
  readonly next: S | undefined;
  /** RFC 6902 operations on the object (paths under `/status`); `[]` when nothing changed. */
  readonly patch: JsonPatchOperation[];
}

/**
 * A recipe for the status: mutate `draft` in place (immer), or return a whole new status.
 * The draft is `{}` when the object has no status yet.
 *
 * ## Example
 * ```ts
 * const recipe: StatusRecipe<WidgetStatus> = (s) => {
 *   setObservedGeneration(s, widget);
 *   s.phase = 'Ready';
 * };
 * desired$.pipe(map((widget) => ({ object: widget, update: recipe }))); // a StatusWrite for statusSink
 * ```
 */
export type StatusRecipe<S> = (draft: Draft<S>) => S | Draft<S> | void | undefined;

/**
 * Drafts the desired `status` of `object` with immer and returns it with the JSON Patch that turns
 * the object's status into it (only `status` is drafted; the object is not changed).
 *
 * ## Example
 * ```ts
 * const { next, patch } = draftStatus(widget, (s) => {
 *   setObservedGeneration(s, widget);
 *   s.phase = 'Ready';
 * });
 * if (patch.length > 0) await client.patch(ref, { type: 'json', body: patch }, { subresource: 'status' });
 * ```
 *
 * ## Semantics
 * - No status yet: the recipe gets `{}`; if it adds anything, the patch is one `add` of `/status`
 *   (adding `/status/x` would fail when `/status` is absent), and nothing otherwise.
 * - Patches are converted with {@link toJsonPatch} against the current status: escaped keys, no
 *   `undefined` values, `replace` of a missing key sent as `add`.
 * - Writes that do not change a value (assigning the same primitive) produce no operation, so an
 *   unchanged status gives `patch: []` — the cue to send no request at all.
 *
 * @param object the object whose status is drafted (any `KubeObject`).
 * @param recipe mutates the draft (immer rules: mutate or return, not both).
 * @throws {InvalidArgumentError} if the status holds values JSON cannot carry.
 */
export function draftStatus<S extends object>(
  object: KubeObject<unknown, S>,
  recipe: StatusRecipe<S>,
): DraftedStatus<S> {
  enablePatches();
  const current = object.status;
  const base = (current ?? {}) as S;
  const [next, patches] = produceStatus(base, recipe);
  if (current !== undefined) {
    return { next, patch: toJsonPatch(patches, current, ['status']) };
  }
  // No status in JSON: send the drafted status whole, if it has anything.
  const patch = toJsonPatch([{ op: 'replace', path: [], value: next }], undefined, ['status']);
  const empty = next === undefined || (typeof next === 'object' && Object.keys(next).length === 0);
  return { next: empty ? undefined : next, patch: empty ? [] : patch };
}

/** `produceWithPatches` with the one signature used here (its overloads defeat inference on `S`). */
const produceStatus = produceWithPatches as <S>(
  base: S,
  recipe: StatusRecipe<S>,
) => readonly [S | undefined, ImmerPatch[], ImmerPatch[]];

/**
 * Sets `draft.observedGeneration` to `object.metadata.generation` (only when it differs, so an
 * up-to-date status stays unchanged). Objects without a generation leave the draft alone.
 *
 * ## Example
 * ```ts
 * draftStatus(widget, (s) => setObservedGeneration(s, widget));
 * ```
 */
export function setObservedGeneration(
  draft: { observedGeneration?: number },
  object: { metadata: { generation?: number } },
): void {
  const generation = object.metadata.generation;
  if (generation !== undefined && draft.observedGeneration !== generation) {
    draft.observedGeneration = generation;
  }
}
