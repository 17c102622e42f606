import { describe, expect, it } from 'vitest';
import { HASH_ANNOTATION, dataHash, hashPatch, type ConfigMap } from './reconcile.js';

const cm = (data: Record<string, string>, annotations?: Record<string, string>): ConfigMap => ({
  metadata: { name: 'a', namespace: 'ns', ...(annotations ? { annotations } : {}) },
  data,
});

describe('configmap-hasher reconcile logic', () => {
  it('hashes data independently of key order and distinguishes key/value splits', () => {
    expect(dataHash(cm({ a: '1', b: '2' }))).toBe(dataHash(cm({ b: '2', a: '1' })));
    expect(dataHash(cm({ ab: 'c' }))).not.toBe(dataHash(cm({ a: 'bc' })));
    expect(dataHash(cm({}))).toMatch(/^[0-9a-f]{16}$/);
  });

  it('patches the annotation when missing or stale, and writes nothing when up to date', () => {
    const fresh = cm({ a: '1' });
    const want = dataHash(fresh);
    expect(hashPatch(fresh)).toEqual({ metadata: { annotations: { [HASH_ANNOTATION]: want } } });
    expect(hashPatch(cm({ a: '1' }, { [HASH_ANNOTATION]: 'stale' }))).toEqual({
      metadata: { annotations: { [HASH_ANNOTATION]: want } },
    });
    expect(hashPatch(cm({ a: '1' }, { [HASH_ANNOTATION]: want, other: 'x' }))).toBeUndefined();
  });
});
