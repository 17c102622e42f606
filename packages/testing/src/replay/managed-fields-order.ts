/**
 * The order of `managedFields` entries is kube-apiserver's `sortEncodedManagedFields`
 * (k8s.io/apiserver/pkg/endpoints/handlers/fieldmanager/internal/managedfields.go): operation,
 * then time in whole seconds, manager, apiVersion, subresource. Times cannot be replayed, so when
 * a slow run puts two writes the recording made within one second into different seconds, our
 * order differs from the recorded one for that reason alone. {@link inRecordedOrder} accepts
 * exactly that case: the same entries, our order following the rule with our times, and the rule
 * giving the recorded order with the recorded times. Test support only.
 *
 * @module
 */
import { isObject, type JsonObject } from '../apply/json-value.js';

const text = (v: unknown): string => (typeof v === 'string' ? v : '');
const keyOf = (e: JsonObject): string =>
  [text(e['operation']), text(e['manager']), text(e['apiVersion']), text(e['subresource'])].join('\u0000');
const seconds = (t: unknown): number => {
  const ms = typeof t === 'string' ? Date.parse(t) : NaN;
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
};
const cmp = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function sortedByRule(entries: readonly JsonObject[], time: (e: JsonObject) => number): JsonObject[] {
  return [...entries].sort(
    (a, b) =>
      cmp(text(a['operation']), text(b['operation'])) ||
      time(a) - time(b) ||
      cmp(text(a['manager']), text(b['manager'])) ||
      cmp(text(a['apiVersion']), text(b['apiVersion'])) ||
      cmp(text(a['subresource']), text(b['subresource'])),
  );
}

/**
 * `actual` put in the recorded order when its order differs from `expected` only because the
 * entries' times fall in other seconds (see the module comment); otherwise `actual` unchanged, so
 * any other difference of order or content is still reported.
 */
export function inRecordedOrder(expected: unknown, actual: unknown): unknown {
  if (!Array.isArray(expected) || !Array.isArray(actual) || expected.length !== actual.length) return actual;
  const exp = expected.filter(isObject);
  const act = actual.filter(isObject);
  if (exp.length !== expected.length || act.length !== actual.length) return actual;
  const recordedSeconds = new Map(exp.map((e) => [keyOf(e), seconds(e['time'])]));
  if (recordedSeconds.size !== exp.length || !act.every((a) => recordedSeconds.has(keyOf(a)))) return actual;
  const ours = sortedByRule(act, (a) => seconds(a['time']));
  if (ours.some((e, i) => e !== act[i])) return actual;
  const recorded = sortedByRule(act, (a) => recordedSeconds.get(keyOf(a)) ?? 0);
  if (recorded.some((e, i) => keyOf(e) !== keyOf(exp[i] ?? {}))) return actual;
  return recorded;
}
