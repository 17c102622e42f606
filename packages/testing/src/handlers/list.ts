/**
 * LIST as kube-apiserver serves it from etcd: selectors, `limit`/`continue` pages with the real
 * token, `remainingItemCount`, and the resourceVersion semantics (`0`, NotOlderThan, Exact from
 * history, 410 for expired continue tokens, 504 for a version from the future).
 *
 * @module
 */
import type { ResourceType } from '../registry/types.js';
import { parseFieldSelector, parseLabelSelector, SelectorError } from '../selectors.js';
import { parseShardSelector } from '../shard-selector.js';
import { ApiError, badRequest, expired, invalidOptions, resourceVersionTooLarge } from '../status.js';
import type { KObj } from '../store/object.js';
import { metaOf } from '../store/object.js';
import { decodeContinue, encodeContinue, parseResourceVersion } from './continue-token.js';
import type { EngineCore as Engine } from './engine-types.js';
import type { ListOptions, ListResult, Selectors } from './engine-types.js';

/** Parses selectors (400 on bad input). */
export function parseSelectors(
  type: ResourceType,
  labelSelector: string | null | undefined,
  fieldSelector: string | null | undefined,
  shardSelector?: string | null,
): Selectors {
  try {
    return {
      ...(shardSelector !== undefined && shardSelector !== null && shardSelector !== ''
        ? { shard: parseShardSelector(shardSelector) }
        : {}),
      label: parseLabelSelector(labelSelector ?? ''),
      field: parseFieldSelector(fieldSelector ?? '', [
        'metadata.name',
        'metadata.namespace',
        ...type.selectableFields,
      ]),
    };
  } catch (e) {
    if (e instanceof SelectorError) throw new ApiError(badRequest(e.message));
    throw e;
  }
}

/** Whether a stored object matches selectors. */
export function matchesSelectors(type: ResourceType, sel: Selectors, o: KObj): boolean {
  if (sel.shard !== undefined && !sel.shard.matches(metaOf(o))) return false;
  if (!sel.label.empty && !sel.label.matches(metaOf(o).labels)) return false;
  if (sel.field.empty) return true;
  const fields: Record<string, string> = {
    'metadata.name': o.metadata.name ?? '',
    'metadata.namespace': o.metadata.namespace ?? '',
    ...(type.fields?.(o) ?? {}),
  };
  return sel.field.matches(fields);
}

/** LIST with selectors, pagination, resourceVersion semantics. Items in storage form. */
export function listObjects(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  q: ListOptions,
): ListResult {
  const sel = engine.selectors(type, q.labelSelector, q.fieldSelector, q.shardSelector);
  const rvText = q.resourceVersion ?? undefined;
  const match = q.resourceVersionMatch ?? undefined;
  if (match && (rvText === undefined || rvText === '')) {
    throw new ApiError(
      invalidOptions('ListOptions', [
        {
          reason: 'FieldValueForbidden',
          message: 'Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided',
          field: 'resourceVersionMatch',
        },
      ]),
    );
  }
  if (match && match !== 'Exact' && match !== 'NotOlderThan') {
    throw new ApiError(
      invalidOptions('ListOptions', [
        {
          reason: 'FieldValueNotSupported',
          message: `Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`,
          field: 'resourceVersionMatch',
        },
      ]),
    );
  }
  let limit = 0;
  if (q.limit) {
    const n = Number(q.limit);
    if (Number.isInteger(n) && n > 0) limit = n;
  }
  const current = engine.store.resourceVersion;
  let atRv = current;
  let start: string | undefined;
  let fromCache = false;
  if (q.continue) {
    const tok = decodeContinue(q.continue);
    start = tok.start;
    if (tok.rv === -1) atRv = current;
    else {
      atRv = tok.rv;
      if (engine.isExpired(atRv)) {
        throw new ApiError(
          expired(
            'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
            { continue: encodeContinue(-1, tok.start) },
          ),
        );
      }
    }
  } else if (rvText !== undefined && rvText !== '') {
    const rv = parseResourceVersion(
      rvText,
      'resourceVersion: Invalid value: ' + JSON.stringify(rvText) + ': ',
    );
    if (rv > current) throw new ApiError(resourceVersionTooLarge(rv, current), { 'Retry-After': '1' });
    if (match === 'Exact') {
      if (engine.isExpired(rv))
        throw new ApiError(expired('The resourceVersion for the provided list is too old.'));
      atRv = rv;
    } else if (rv === 0) {
      fromCache = true;
    }
  }
  if (fromCache) limit = 0;
  let state: Map<string, KObj> | undefined;
  if (atRv !== current) {
    const s = engine.store.stateAt(type.storageKey, atRv);
    if (s === 'expired') throw new ApiError(expired('The resourceVersion for the provided list is too old.'));
    state = s;
  }
  const keys = state ? [...state.keys()].sort() : engine.store.sortedKeys(type.storageKey);
  const get = (k: string): KObj | undefined => (state ? state.get(k) : engine.store.get(type.storageKey, k));
  const prefix = type.namespaced && namespace !== undefined ? `${namespace}/` : '';
  let i = prefix ? lowerBound(keys, prefix) : 0;
  if (start !== undefined) i = Math.max(i, lowerBound(keys, prefix + start));
  const items: KObj[] = [];
  const hasSelector = !sel.label.empty || !sel.field.empty || sel.shard !== undefined;
  let lastKey: string | undefined;
  for (; i < keys.length; i++) {
    const k = keys[i] ?? '';
    if (prefix && !k.startsWith(prefix)) break;
    if (limit > 0 && items.length >= limit) break;
    const o = get(k);
    if (!o) continue;
    lastKey = k;
    if (hasSelector && !engine.matches(type, sel, o)) continue;
    items.push(o);
  }
  // anything left (matching) after this page?
  let more = false;
  let remaining = 0;
  if (limit > 0 && lastKey !== undefined && !hasSelector) {
    const end = prefix ? lowerBound(keys, prefix.slice(0, -1) + '0') : keys.length;
    remaining = Math.max(0, end - i);
    more = remaining > 0;
  } else if (limit > 0 && lastKey !== undefined) {
    for (let j = i; j < keys.length; j++) {
      const k = keys[j] ?? '';
      if (prefix && !k.startsWith(prefix)) break;
      const o = get(k);
      if (!o) continue;
      if (hasSelector) {
        if (engine.matches(type, sel, o)) {
          more = true;
          break;
        }
      } else {
        more = true;
        remaining++;
      }
    }
  }
  const shardInfo = sel.shard === undefined ? {} : { shardInfo: { selector: sel.shard.text } };
  if (!more) return { resourceVersion: atRv, items, ...shardInfo };
  const tokenStart = (lastKey ?? '').slice(prefix.length) + '\u0000';
  const result: ListResult = {
    resourceVersion: atRv,
    items,
    continue: encodeContinue(atRv, tokenStart),
    ...shardInfo,
  };
  return hasSelector ? result : { ...result, remainingItemCount: remaining };
}

function lowerBound(keys: readonly string[], target: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] ?? '') < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
