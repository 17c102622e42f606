import { describe, expect, it } from 'vitest';

import type { KubeObject, WatchEvent } from '../types.js';
import type { UserCodeError } from '../user-code-error.js';
import { Store, stripManagedFields } from './store.js';

function obj(
  namespace: string | undefined,
  name: string,
  rv: string,
  extra: Partial<KubeObject['metadata']> = {},
  data: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { ...(namespace !== undefined ? { namespace } : {}), name, resourceVersion: rv, ...extra },
    data,
  };
}

function feed<T extends KubeObject>(store: Store<T>, events: WatchEvent<T>[]): WatchEvent<T>[] {
  return events.map((e) => store.apply(e));
}

const init: WatchEvent = { type: 'Init' };
const done: WatchEvent = { type: 'InitDone' };
const initApply = (object: KubeObject): WatchEvent => ({ type: 'InitApply', object });
const apply = (object: KubeObject): WatchEvent => ({ type: 'Apply', object });
const del = (object: KubeObject): WatchEvent => ({ type: 'Delete', object });

describe('Store', () => {
  it('fills from a list and answers get/list/size/keys', () => {
    const store = new Store();
    feed(store, [
      init,
      initApply(obj('a', 'x', '1')),
      initApply(obj('b', 'y', '2')),
      initApply(obj(undefined, 'z', '3')),
      done,
    ]);
    expect(store.size).toBe(3);
    expect(store.get('a/x')?.metadata.resourceVersion).toBe('1');
    expect(store.get({ namespace: 'b', name: 'y' })?.metadata.name).toBe('y');
    expect(store.get(obj(undefined, 'z', '9'))?.metadata.resourceVersion).toBe('3');
    expect(store.get('a/missing')).toBeUndefined();
    expect(store.list().map((o) => o.metadata.name)).toEqual(['x', 'y', 'z']);
    expect(store.list('a').map((o) => o.metadata.name)).toEqual(['x']);
    expect([...store.keys()]).toEqual(['a/x', 'b/y', 'z']);
  });

  it('swaps a relist in atomically at InitDone: readers never see a half list', () => {
    const store = new Store();
    feed(store, [init, initApply(obj('a', 'x', '1')), initApply(obj('a', 'y', '2')), done]);
    feed(store, [init, initApply(obj('a', 'x', '5'))]);
    // mid-relist: the old complete list is still what readers see
    expect(store.listing).toBe(true);
    expect(store.ready).toBe(true);
    expect([...store.state().entries()].map(([k, o]) => [k, o.metadata.resourceVersion])).toEqual([
      ['a/x', '1'],
      ['a/y', '2'],
    ]);
    feed(store, [initApply(obj('a', 'w', '6')), done]);
    expect(store.listing).toBe(false);
    expect([...store.state().entries()].map(([k, o]) => [k, o.metadata.resourceVersion])).toEqual([
      ['a/x', '5'],
      ['a/w', '6'],
    ]);
    expect(store.byIndex('namespace', 'a').map((o) => o.metadata.name)).toEqual(['x', 'w']);
  });

  it('discards a half list when a new Init restarts it', () => {
    const store = new Store();
    feed(store, [init, initApply(obj('a', 'x', '1')), init, initApply(obj('a', 'y', '2')), done]);
    expect([...store.keys()]).toEqual(['a/y']);
  });

  it('applies Apply and Delete, and ignores a Delete of an unknown key', () => {
    const store = new Store();
    feed(store, [
      init,
      done,
      apply(obj('a', 'x', '1')),
      apply(obj('a', 'x', '2')),
      del(obj('a', 'nope', '3')),
    ]);
    expect(store.get('a/x')?.metadata.resourceVersion).toBe('2');
    feed(store, [del(obj('a', 'x', '4'))]);
    expect(store.size).toBe(0);
  });

  it('deep-freezes what it stores and passes on that very object', () => {
    const store = new Store();
    const input = obj('a', 'x', '1', { labels: { app: 'web' } }, { nested: { list: [{ k: 1 }] } });
    const [out] = feed(store, [apply(input)]);
    const stored = store.get('a/x');
    expect(out).toEqual({ type: 'Apply', object: stored });
    expect(out?.type === 'Apply' && out.object).toBe(stored);
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen(stored?.metadata.labels)).toBe(true);
    const nested = (stored?.['data'] as { nested: { list: { k: number }[] } }).nested;
    expect(Object.isFrozen(nested.list[0])).toBe(true);
    expect(() => {
      (stored as { metadata: { name: string } }).metadata.name = 'changed';
    }).toThrow(TypeError);
  });

  it('drops metadata.managedFields by default (in place), and keeps them with an identity transform', () => {
    const managed = { managedFields: [{ manager: 'kubectl', operation: 'Apply' }] };
    const store = new Store();
    const input = obj('a', 'x', '1', managed);
    feed(store, [apply(input)]);
    expect(store.get('a/x')?.metadata.managedFields).toBeUndefined();
    expect(store.get('a/x')).toBe(input); // no copy of the object; its metadata is rebuilt
    expect(Object.keys(input.metadata)).toEqual(['namespace', 'name', 'resourceVersion']);
    expect(Object.isFrozen(input.metadata)).toBe(true);

    const keep = new Store({ transform: (o) => o });
    feed(keep, [apply(obj('a', 'x', '1', managed))]);
    expect(keep.get('a/x')?.metadata.managedFields).toEqual(managed.managedFields);
  });

  it('copies instead of mutating when the object is already frozen', () => {
    const frozen = Object.freeze(obj('a', 'x', '1', { managedFields: [{}] }));
    Object.freeze(frozen.metadata);
    const stripped = stripManagedFields(frozen);
    expect(stripped).not.toBe(frozen);
    expect(stripped.metadata.managedFields).toBeUndefined();
    expect(frozen.metadata.managedFields).toEqual([{}]);
    // only the metadata frozen: the object keeps its identity, the frozen metadata is not touched
    const meta = Object.freeze({ name: 'y', resourceVersion: '2', managedFields: [{}] });
    const partly = { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta };
    expect(stripManagedFields(partly)).toBe(partly);
    expect(partly.metadata).toEqual({ name: 'y', resourceVersion: '2' });
    expect(meta.managedFields).toEqual([{}]);
  });

  it('runs a custom transform before storing, on every event type', () => {
    const store = new Store({
      transform: (o) => ({ ...o, metadata: { ...o.metadata, annotations: { seen: 'yes' } } }),
    });
    const out = feed(store, [
      init,
      initApply(obj('a', 'x', '1')),
      done,
      apply(obj('a', 'y', '2')),
      del(obj('a', 'y', '3')),
    ]);
    expect(store.get('a/x')?.metadata.annotations).toEqual({ seen: 'yes' });
    const deleted = out[4];
    expect(deleted?.type === 'Delete' && deleted.object.metadata.annotations).toEqual({ seen: 'yes' });
  });

  it('keeps the namespace, owner and custom indexes in step with Apply and Delete', () => {
    const owner = (uid: string) => ({
      ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'p', uid }],
    });
    const store = new Store({
      indexers: { app: (o) => (o.metadata.labels?.['app'] ? [o.metadata.labels['app']] : []) },
    });
    feed(store, [
      init,
      initApply(obj('a', 'x', '1', { labels: { app: 'web' }, ...owner('u1') })),
      initApply(obj('b', 'y', '2', { labels: { app: 'web' }, ...owner('u1') })),
      done,
    ]);
    expect(store.byIndex('app', 'web').map((o) => o.metadata.name)).toEqual(['x', 'y']);
    expect(store.byIndex('owner', 'u1').map((o) => o.metadata.name)).toEqual(['x', 'y']);
    // x moves to app=db and to another owner
    feed(store, [apply(obj('a', 'x', '3', { labels: { app: 'db' }, ...owner('u2') }))]);
    expect(store.byIndex('app', 'web').map((o) => o.metadata.name)).toEqual(['y']);
    expect(store.byIndex('app', 'db').map((o) => o.metadata.name)).toEqual(['x']);
    expect(store.byIndex('owner', 'u1').map((o) => o.metadata.name)).toEqual(['y']);
    expect(store.byIndex('owner', 'u2').map((o) => o.metadata.name)).toEqual(['x']);
    feed(store, [del(obj('b', 'y', '4', { labels: { app: 'web' }, ...owner('u1') }))]);
    expect(store.byIndex('app', 'web')).toEqual([]);
    expect(store.list('b')).toEqual([]);
    // empty buckets are released
    const internals = store as unknown as {
      indexNames: Map<string, number>;
      live: { indexes: Map<string, Set<string>>[] };
    };
    const buckets = new Map(
      [...internals.indexNames].map(([name, position]) => [name, internals.live.indexes[position]]),
    );
    expect([...(buckets.get('app')?.keys() ?? [])]).toEqual(['db']);
    expect([...(buckets.get('owner')?.keys() ?? [])]).toEqual(['u2']);
    expect([...(buckets.get('namespace')?.keys() ?? [])]).toEqual(['a']);
  });

  it('updates an object in place: owners gained and lost move it between owner buckets', () => {
    const store = new Store();
    const owned = (rv: string, uids: string[]) =>
      obj('a', 'x', rv, {
        ownerReferences: uids.map((uid) => ({ apiVersion: 'v1', kind: 'ConfigMap', name: uid, uid })),
      });
    feed(store, [init, initApply(obj('a', 'x', '1')), done]);
    expect(store.byIndex('owner', 'u1')).toEqual([]);
    feed(store, [apply(owned('2', ['u1']))]);
    expect(store.byIndex('owner', 'u1').map((o) => o.metadata.resourceVersion)).toEqual(['2']);
    feed(store, [apply(owned('3', ['u1', 'u2']))]);
    expect(store.byIndex('owner', 'u2').map((o) => o.metadata.resourceVersion)).toEqual(['3']);
    expect(store.byIndex('owner', 'u1').map((o) => o.metadata.resourceVersion)).toEqual(['3']);
    feed(store, [apply(obj('a', 'x', '4'))]);
    expect(store.byIndex('owner', 'u1')).toEqual([]);
    expect(store.byIndex('owner', 'u2')).toEqual([]);
    expect(store.byIndex('namespace', 'a').map((o) => o.metadata.resourceVersion)).toEqual(['4']);
    expect(store.get('a/x')?.metadata.resourceVersion).toBe('4');
  });

  it('indexes existing objects when an indexer is added later, and refuses bad indexers', () => {
    const store = new Store();
    feed(store, [apply(obj('a', 'x', '1', { labels: { tier: 'fe' } }))]);
    store.addIndexer('tier', (o) => [o.metadata.labels?.['tier'] ?? 'none']);
    expect(store.byIndex('tier', 'fe').map((o) => o.metadata.name)).toEqual(['x']);
    expect(() => store.addIndexer('tier', () => [])).toThrow(
      /Store\.addIndexer: name is already an indexer; pick another name; got "tier"/,
    );
    expect(() => store.addIndexer('', () => [])).toThrow(/name must be a non-empty string/);
    expect(() => store.byIndex('nope', 'x')).toThrow(
      /Store\.byIndex: indexName must name an indexer \(namespace, owner, tier\).*got "nope"/,
    );
  });

  it('reports ready$ false until the first InitDone, true through relists, false after clear', () => {
    const store = new Store();
    const seen: boolean[] = [];
    const sub = store.ready$.subscribe((r) => seen.push(r));
    feed(store, [init, initApply(obj('a', 'x', '1'))]);
    expect(seen).toEqual([false]);
    feed(store, [done, init, initApply(obj('a', 'x', '2')), done]);
    expect(seen).toEqual([false, true]);
    store.clear();
    expect(seen).toEqual([false, true, false]);
    expect(store.size).toBe(0);
    expect(store.byIndex('namespace', 'a')).toEqual([]);
    sub.unsubscribe();
  });

  it('replays its contents as Init…InitDone, or Init + what was listed so far mid-list', () => {
    const store = new Store();
    expect([...store.replay()]).toEqual([]);
    const x = obj('a', 'x', '1');
    feed(store, [init, initApply(x)]);
    expect([...store.replay()]).toEqual([init, initApply(x)]);
    feed(store, [done]);
    expect([...store.replay()]).toEqual([init, initApply(x), done]);
  });

  it('indexes a list as it fills: repeats, deletes and late indexers mid-list leave exact indexes', () => {
    const ownedBy = (uid: string) => ({
      ownerReferences: [{ apiVersion: 'v1', kind: 'Owner', name: uid, uid, controller: true }],
    });
    const store = new Store();
    feed(store, [init, initApply(obj('a', 'old', '1', ownedBy('u0'))), done]);
    feed(store, [
      init,
      initApply(obj('a', 'x', '2', ownedBy('u1'))),
      initApply(obj('b', 'y', '3', ownedBy('u1'))),
      // listed again with another owner (a restarted page), then y deleted mid-list
      initApply(obj('a', 'x', '4', ownedBy('u2'))),
      del(obj('b', 'y', '5')),
    ]);
    // readers still see the old list and its indexes
    expect(store.byIndex('owner', 'u0').map((o) => o.metadata.name)).toEqual(['old']);
    expect(store.byIndex('owner', 'u1')).toEqual([]);
    store.addIndexer('rv', (o) => [o.metadata.resourceVersion ?? '']);
    expect(store.byIndex('rv', '1').map((o) => o.metadata.name)).toEqual(['old']);
    feed(store, [done]);
    expect(store.byIndex('owner', 'u0')).toEqual([]);
    expect(store.byIndex('owner', 'u1')).toEqual([]);
    expect(store.byIndex('owner', 'u2').map((o) => o.metadata.name)).toEqual(['x']);
    expect(store.list('b')).toEqual([]);
    expect(store.byIndex('rv', '4').map((o) => o.metadata.name)).toEqual(['x']);
    expect(store.byIndex('rv', '1')).toEqual([]);
    // a modification that keeps namespace and owner, then one that drops the owner
    feed(store, [apply(obj('a', 'x', '6', ownedBy('u2')))]);
    expect(store.byIndex('owner', 'u2').map((o) => o.metadata.resourceVersion)).toEqual(['6']);
    expect(store.byIndex('rv', '6').map((o) => o.metadata.name)).toEqual(['x']);
    expect(store.byIndex('rv', '4')).toEqual([]);
    feed(store, [apply(obj('a', 'x', '7'))]);
    expect(store.byIndex('owner', 'u2')).toEqual([]);
    expect(store.list('a').map((o) => o.metadata.resourceVersion)).toEqual(['7']);
  });

  it('shares the stored entry when a relist passes the stored instance again: no transform, freeze or indexer call', () => {
    let transforms = 0;
    let indexed = 0;
    const store = new Store<KubeObject>({
      transform: (o) => {
        transforms++;
        return o;
      },
      indexers: {
        name: (o) => {
          indexed++;
          return [o.metadata.name ?? ''];
        },
      },
    });
    const [, kept, gone] = feed(store, [
      init,
      initApply(obj('a', 'k', '1')),
      initApply(obj('a', 'g', '2')),
      done,
    ]);
    const keptObject = (kept as { object: KubeObject }).object;
    expect(transforms).toBe(2);
    expect(indexed).toBe(2);
    // the relist: k unchanged (the same instance), g gone, n new
    const out = feed(store, [init, initApply(keptObject), initApply(obj('a', 'n', '3'))]);
    expect((out[1] as { object: KubeObject }).object).toBe(keptObject);
    expect(transforms).toBe(3);
    expect(indexed).toBe(3);
    // readers still see the old list until InitDone; an indexer added now covers both tables once
    expect(store.byIndex('name', 'g')).toEqual([(gone as { object: KubeObject }).object]);
    store.addIndexer('rv', (o) => [o.metadata.resourceVersion ?? '']);
    expect(store.byIndex('rv', '1')).toEqual([keptObject]);
    feed(store, [done]);
    expect(store.get('a/k')).toBe(keptObject);
    expect([...store.keys()].sort()).toEqual(['a/k', 'a/n']);
    expect(store.byIndex('name', 'g')).toEqual([]);
    expect(store.byIndex('name', 'k')).toEqual([keptObject]);
    expect(store.byIndex('rv', '1')).toEqual([keptObject]);
    expect(store.byIndex('rv', '3').map((o) => o.metadata.name)).toEqual(['n']);
    expect(store.byIndex('rv', '2')).toEqual([]);
  });

  it('keeps every object when an indexer or the transform throws for one: that object is left out of the index, or stored as received (issue 12 §2)', () => {
    const errors: UserCodeError[] = [];
    const store = new Store({
      onUserCodeError: (e) => errors.push(e),
      transform: (o) => {
        if (o.metadata.name === 'odd') throw new Error('cannot transform odd');
        return o;
      },
      indexers: {
        app: (o) => {
          if (o.metadata.name === 'y') throw new Error('no app label');
          return [o.metadata.labels?.['app'] ?? 'none'];
        },
      },
    });
    feed(store, [init, initApply(obj('a', 'x', '1')), initApply(obj('a', 'y', '1')), done]);
    expect(store.list('a').map((o) => o.metadata.name)).toEqual(['x', 'y']);
    expect(store.byIndex('app', 'none').map((o) => o.metadata.name)).toEqual(['x']);
    feed(store, [apply(obj('a', 'odd', '2'))]);
    expect(store.get('a/odd')?.metadata.resourceVersion).toBe('2');
    // an indexer added later that throws for one object: the others are indexed, nothing escapes
    store.addIndexer('bad', (o) => {
      if (o.metadata.name === 'x') throw new Error('boom');
      return ['v'];
    });
    expect(store.byIndex('bad', 'v').map((o) => o.metadata.name)).toEqual(['y', 'odd']);
    feed(store, [apply(obj('a', 'x', '2'))]);
    expect(store.list('a').map((o) => o.metadata.resourceVersion)).toEqual(['2', '1', '2']);
    expect(errors.map((e) => `${e.hook}:${e.key ?? ''}`)).toEqual([
      'indexer:a/y',
      'transform:a/odd',
      'indexer:a/x',
      'indexer:a/x',
    ]);
    expect(errors[0]?.message).toMatch(/indexer threw for "a\/y": no app label/);
    expect(store.hasIndex('bad')).toBe(true);
    expect(store.hasIndex('owner')).toBe(true);
    expect(store.hasIndex('nope')).toBe(false);
  });

  it('refuses unusable options', () => {
    expect(() => new Store({ transform: 3 as never })).toThrow(
      /Store: options\.transform must be a function/,
    );
  });
});
