/**
 * managedFields as the v1.24 field manager decodes, encodes and validates them
 * (`fieldmanager/internal/managedfields.go`, `fieldmanager.go` `isResetManagedFields`,
 * apimachinery `ValidateManagedFields`), and FieldsV1 sets (`fieldpath/serialize.go`).
 */
import { describe, expect, it } from 'vitest';

import { FieldSet, FieldsV1Error } from './field-set.js';
import {
  decodeManagedFields,
  describeManager,
  encodeManagedFields,
  identity,
  isResetManagedFields,
  ManagedFieldsError,
  validateManagedFields,
} from './managed-fields.js';

const entry = (over: Record<string, unknown>): Record<string, unknown> => ({
  manager: 'm',
  operation: 'Update',
  apiVersion: 'v1',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:data': { 'f:a': {} } },
  ...over,
});

describe('FieldsV1 (fieldpath/serialize.go)', () => {
  it('reads {} as a member, "." as its parent being one, and canonicalises keys', () => {
    const set = FieldSet.fromFieldsV1({
      'f:a': {},
      'f:b': { '.': {}, 'k:{"protocol":"TCP","port":80}': {} },
    });
    expect(set.has(['f:a'])).toBe(true);
    expect(set.has(['f:b'])).toBe(true);
    expect(set.has(['f:b', 'k:{"port":80,"protocol":"TCP"}'])).toBe(true);
  });

  it('drops element types it does not know, as a member of its parent', () => {
    expect(FieldSet.fromFieldsV1({ 'f:x': { 'z:future': {} } }).toFieldsV1()).toEqual({ 'f:x': {} });
  });

  it.each([{ bad: {} }, { 'k:{oops': {} }, { 'f:a': 1 }, 'x'])('refuses %j', (value) => {
    expect(() => FieldSet.fromFieldsV1(value)).toThrow(FieldsV1Error);
  });

  it('writes children in PathElement order: fields, keys, values, indices; numbers numerically', () => {
    const set = FieldSet.of(
      ['i:0'],
      ['v:10'],
      ['v:9'],
      ['k:{"port":443}'],
      ['k:{"port":80}'],
      ['f:b'],
      ['f:a'],
    );
    expect(Object.keys(set.toFieldsV1())).toEqual([
      'f:a',
      'f:b',
      'k:{"port":80}',
      'k:{"port":443}',
      'v:9',
      'v:10',
      'i:0',
    ]);
  });

  it("iterates conflicts as SMD does: a level's members before its children", () => {
    const set = FieldSet.of(['f:spec', 'f:x', 'f:y'], ['f:spec', 'f:z'], ['f:data']);
    expect(set.leafOrder()).toEqual([['f:data'], ['f:spec', 'f:z'], ['f:spec', 'f:x', 'f:y']]);
  });
});

describe('decode and encode (internal/managedfields.go)', () => {
  it('keys sets by identity (Apply entries without apiVersion), the later of two entries wins', () => {
    const m = decodeManagedFields([
      entry({}),
      entry({ fieldsV1: { 'f:data': { 'f:b': {} } } }),
      entry({ manager: 'a', operation: 'Apply', apiVersion: 'v1', subresource: 'status' }),
    ]);
    expect([...m.sets.keys()]).toEqual([
      identity({ manager: 'm', operation: 'Update', apiVersion: 'v1' }),
      '{"manager":"a","operation":"Apply","subresource":"status"}',
    ]);
    expect(
      m.sets.get(identity({ manager: 'm', operation: 'Update', apiVersion: 'v1' }))?.set.toFieldsV1(),
    ).toEqual({
      'f:data': { 'f:b': {} },
    });
  });

  it.each([
    [entry({ operation: 'Patch' }), 'operation must be `Apply` or `Update`'],
    [entry({ apiVersion: '' }), 'apiVersion must not be empty'],
    [entry({ fieldsType: undefined }), 'missing fieldsType in managed fields entry 0'],
    [entry({ fieldsType: 'FieldsV2' }), 'invalid fieldsType "FieldsV2" in managed fields entry 0'],
    [entry({ fieldsV1: { nope: {} } }), 'error decoding set: missing colon: nope'],
  ])('refuses %j: %s', (e, message) => {
    expect(() => decodeManagedFields([e])).toThrow(new ManagedFieldsError(message));
  });

  it('sorts Apply before Update, then by time, manager, apiVersion, subresource; keeps a missing time missing', () => {
    const m = decodeManagedFields([
      entry({ manager: 'z', time: '2026-01-01T00:00:02Z' }),
      entry({ manager: 'y', time: '2026-01-01T00:00:01Z' }),
      entry({ manager: 'x', operation: 'Apply', time: '2026-01-01T00:00:09Z' }),
      entry({ manager: 'w' }),
    ]);
    expect(encodeManagedFields(m).map((e) => [e.manager, e.time])).toEqual([
      ['x', '2026-01-01T00:00:09Z'],
      ['w', undefined],
      ['y', '2026-01-01T00:00:01Z'],
      ['z', '2026-01-01T00:00:02Z'],
    ]);
  });

  it('names managers as messages do (printManager)', () => {
    expect(describeManager(identity({ manager: 'a', operation: 'Apply' }))).toBe('"a"');
    expect(describeManager(identity({ manager: 'c', operation: 'Update', apiVersion: 'v1' }))).toBe(
      '"c" using v1',
    );
    expect(describeManager(identity({ manager: 's', operation: 'Apply', subresource: 'status' }))).toBe(
      '"s" with subresource "status"',
    );
  });
});

describe('requests that reset managedFields (fieldmanager.go isResetManagedFields)', () => {
  it.each([
    [[], true],
    [[{}], true],
    [[{ manager: '' }], true],
    [[{ fieldsV1: {} }], false],
    [[{}, {}], false],
    [undefined, false],
    [null, false],
  ])('%j → %s', (raw, reset) => {
    expect(isResetManagedFields(raw)).toBe(reset);
  });
});

describe('ValidateManagedFields (apimachinery meta/v1/validation)', () => {
  it('a manager over 128 bytes, or with characters that do not print', () => {
    const entries = decodeManagedFields([
      entry({ manager: 'x'.repeat(129) }),
      entry({ manager: 'tab\there' }),
    ]);
    expect(validateManagedFields(encodeManagedFields(entries))).toEqual([
      {
        reason: 'FieldValueInvalid',
        field: 'metadata.managedFields[0].manager',
        message: 'Invalid value: "tab\\there": invalid character U+0009 (at position 3)',
      },
      {
        reason: 'FieldValueTooLong',
        field: 'metadata.managedFields[1].manager',
        message: 'Too long: must have at most 128 bytes',
      },
    ]);
  });
});
