import { describe, expect, it } from 'vitest';

import { inRecordedOrder } from './managed-fields-order.js';

const main = (time: string) => ({
  manager: 'm',
  operation: 'Update',
  apiVersion: 'v1',
  time,
  fieldsV1: { a: 1 },
});
const status = (time: string) => ({ ...main(time), subresource: 'status', fieldsV1: { b: 1 } });

// sortEncodedManagedFields (apiserver fieldmanager/internal/managedfields.go): operation, time
// in seconds, manager, apiVersion, subresource
describe('inRecordedOrder (managedFields order of sortEncodedManagedFields)', () => {
  it('puts ours in the recorded order when only the seconds differ', () => {
    // the recording made both writes within one second (a tie: main before status); a slow run
    // put them in two seconds (status, written first, before main)
    const expected = [main('2026-01-01T00:00:05Z'), status('2026-01-01T00:00:05Z')];
    const actual = [status('2026-01-01T00:00:09Z'), main('2026-01-01T00:00:10Z')];
    expect(inRecordedOrder(expected, actual)).toEqual([actual[1], actual[0]]);
  });

  it('leaves an order that breaks the rule for our own times as it is', () => {
    const expected = [main('2026-01-01T00:00:05Z'), status('2026-01-01T00:00:05Z')];
    const actual = [status('2026-01-01T00:00:10Z'), main('2026-01-01T00:00:10Z')];
    expect(inRecordedOrder(expected, actual)).toBe(actual);
  });

  it('leaves an order the recorded times do not give as it is', () => {
    // a tie in seconds puts the main resource's entry first; a recording showing status first is
    // not explained by the rule, so our (different) order must stay a difference
    const expected = [status('2026-01-01T00:00:05Z'), main('2026-01-01T00:00:05Z')];
    const actual = [main('2026-01-01T00:00:09Z'), status('2026-01-01T00:00:09Z')];
    expect(inRecordedOrder(expected, actual)).toBe(actual);
  });

  it('leaves different entries as they are', () => {
    const expected = [main('2026-01-01T00:00:05Z')];
    const actual = [status('2026-01-01T00:00:05Z')];
    expect(inRecordedOrder(expected, actual)).toBe(actual);
  });
});
