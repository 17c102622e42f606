import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { InvalidArgumentError } from '../invalid-argument-error.js';
import { resourceVersionChanged } from './resource-version-changed.js';
import type { MetaObject } from './meta-object.js';

interface Obj extends MetaObject {
  readonly deleted?: boolean;
}
const isDelete = (o: Obj): boolean => o.deleted === true;

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

const meta = { namespace: 'ns', name: 'cm' };
const values: Record<string, Obj> = {
  a: { metadata: { ...meta, resourceVersion: '10' } },
  b: { metadata: { ...meta, resourceVersion: '10', labels: { replayed: 'yes' } } }, // same version (resync)
  c: { metadata: { ...meta, resourceVersion: '9' } }, // different (versions are opaque, not ordered)
  d: { metadata: { namespace: 'ns', name: 'other', resourceVersion: '10' } }, // other key
  e: { metadata: { ...meta, resourceVersion: '11' } },
  x: { metadata: { ...meta, resourceVersion: '12' }, deleted: true },
};

describe('resourceVersionChanged', () => {
  it('passes new resourceVersions and first sightings, filters replays of a seen version', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-b-c-d-e-|', values);
      const expected = '    -a---c-d-e-|';
      //                     b replays version 10; c (9) differs and passes: versions are compared, not ordered
      expectObservable(source.pipe(resourceVersionChanged(undefined, ts))).toBe(expected, values);
    });
  });

  it('forgets a key ttl after its last sighting, then passes it again', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-b------b-|', values);
      const expected = '    -a--------b-|';
      //                     ttl 5: b@3 is a repeat and refreshes the key; b@10 is 7 >= 5 after it: forgotten, passes
      expectObservable(source.pipe(resourceVersionChanged({ ttl: 5 }, ts))).toBe(expected, values);
    });
  });

  it('passes deletes and forgets their key', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-x-a-|', values);
      const expected = '    -a-x-a-|';
      //                     after the delete, a is a first sighting again
      expectObservable(source.pipe(resourceVersionChanged({ isDelete }, ts))).toBe(expected, values);
    });
  });

  it('forwards completion and errors', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      expectObservable(hot('-a-b-|', values).pipe(resourceVersionChanged(undefined, ts))).toBe(
        '-a---|',
        values,
      );
      expectObservable(hot('-a-b-#', values).pipe(resourceVersionChanged(undefined, ts))).toBe(
        '-a---#',
        values,
      );
    });
  });

  it('holds one sweep timer, drops it once keys idle out, and cancels it on unsubscribe', () => {
    const ts = newScheduler();
    const seen: Obj[] = [];
    ts.run(() => {
      const subject = new Subject<Obj>();
      const sub = subject.pipe(resourceVersionChanged({ ttl: 5 }, ts)).subscribe((o) => seen.push(o));
      subject.next(values.a as Obj);
      subject.next(values.d as Obj);
      expect(ts.actions.length).toBe(1);
      ts.schedule(() => {
        // both keys idle for 5: memory empty, so no sweep is pending, and a passes again
        expect(ts.actions.length).toBe(0);
        subject.next(values.a as Obj);
        expect(ts.actions.length).toBe(1);
        sub.unsubscribe();
        expect(ts.actions.length).toBe(0);
        expect(subject.observed).toBe(false);
      }, 6);
    });
    expect(seen).toEqual([values.a, values.d, values.a]);
  });

  it('throws InvalidArgumentError for a bad ttl', () => {
    expect(() => resourceVersionChanged({ ttl: 0 })).toThrow(InvalidArgumentError);
    expect(() => resourceVersionChanged({ ttl: Infinity })).toThrow(/options\.ttl/);
  });
});
