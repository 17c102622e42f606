import { Subject } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { InvalidArgumentError } from '../invalid-argument-error.js';
import { generationChanged } from './generation-changed.js';
import type { MetaObject } from './meta-object.js';

interface Obj extends MetaObject {
  readonly deleted?: boolean;
}
const isDelete = (o: Obj): boolean => o.deleted === true;

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

const values: Record<string, Obj> = {
  a: { metadata: { namespace: 'ns', name: 'w', generation: 1, resourceVersion: '1' } },
  b: { metadata: { namespace: 'ns', name: 'w', generation: 1, resourceVersion: '2' } }, // status-only update
  c: { metadata: { namespace: 'ns', name: 'w', generation: 2, resourceVersion: '3' } }, // spec update
  d: { metadata: { namespace: 'other', name: 'w', generation: 1, resourceVersion: '1' } }, // same name, other ns
  e: { metadata: { name: 'w', generation: 1, resourceVersion: '1' } }, // cluster-scoped "w"
  m: { metadata: { namespace: 'ns', name: 'cm', resourceVersion: '1' } }, // no generation (ConfigMap)
  n: { metadata: { namespace: 'ns', name: 'cm', resourceVersion: '2' } },
  x: { metadata: { namespace: 'ns', name: 'w', generation: 2, resourceVersion: '4' }, deleted: true },
};

describe('generationChanged', () => {
  it('passes spec changes (generation bumps) and first sightings, filters status-only updates', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-b-c-d-e-|', values);
      const expected = '    -a---c-d-e-|';
      //                     b keeps generation 1; c bumps it; d (other/w) and e (cluster-scoped w) are other keys
      expectObservable(source.pipe(generationChanged(undefined, ts))).toBe(expected, values);
    });
  });

  it('filters every update of an object without generation after its first sighting', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -m-n-|', values);
      const expected = '    -m---|';
      //                     generation undefined both times = unchanged (controller-runtime semantics)
      expectObservable(source.pipe(generationChanged(undefined, ts))).toBe(expected, values);
    });
  });

  it('uses options.keyOf instead of namespace/name', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-d-e-|', values);
      const expected = '    -a-----|';
      //                     keyed by name only, d and e are repeats of a (generation 1)
      const keyOf = (o: Obj): string => o.metadata?.name ?? '';
      expectObservable(source.pipe(generationChanged({ keyOf }, ts))).toBe(expected, values);
    });
  });

  it('forgets a key ttl after its last sighting, then passes it again', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-b------b-|', values);
      const expected = '    -a--------b-|';
      //                     ttl 5: b@3 is a repeat and refreshes the key; b@10 is 7 >= 5 after it: forgotten, passes
      expectObservable(source.pipe(generationChanged({ ttl: 5 }, ts))).toBe(expected, values);
    });
  });

  it('passes deletes and forgets their key', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      const source = hot('  -a-x-a-|', values);
      const expected = '    -a-x-a-|';
      //                     after the delete, a is a first sighting again
      expectObservable(source.pipe(generationChanged({ isDelete }, ts))).toBe(expected, values);
    });
  });

  it('forwards completion and errors', () => {
    const ts = newScheduler();
    ts.run(({ hot, expectObservable }) => {
      expectObservable(hot('-a-b-|', values).pipe(generationChanged(undefined, ts))).toBe('-a---|', values);
      expectObservable(hot('-a-b-#', values).pipe(generationChanged(undefined, ts))).toBe('-a---#', values);
    });
  });

  it('holds one sweep timer, drops it once keys idle out, and cancels it on unsubscribe', () => {
    const ts = newScheduler();
    const seen: Obj[] = [];
    ts.run(() => {
      const subject = new Subject<Obj>();
      const sub = subject.pipe(generationChanged({ ttl: 5 }, ts)).subscribe((o) => seen.push(o));
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
    expect(() => generationChanged({ ttl: 0 })).toThrow(InvalidArgumentError);
    expect(() => generationChanged({ ttl: Infinity })).toThrow(/options\.ttl/);
  });
});
