import { describe, expect, it } from 'vitest';

import { KeyedQueue } from './keyed-queue.js';

function state<K, V>(q: KeyedQueue<K, V>) {
  return { depth: q.depth, active: q.activeCount, parked: q.parkedCount, idle: q.idle };
}

describe('KeyedQueue', () => {
  it('hands out keys in FIFO order, at most `limit` at a time', () => {
    const q = new KeyedQueue<string, number>();
    expect(q.push('a', 1, 0)).toEqual({ kind: 'enqueued', depth: 1 });
    expect(q.push('b', 1, 1)).toEqual({ kind: 'enqueued', depth: 2 });
    expect(q.push('c', 1, 2)).toEqual({ kind: 'enqueued', depth: 3 });
    expect(q.take(2)).toEqual({ key: 'a', value: 1, since: 0 });
    expect(q.take(2)).toEqual({ key: 'b', value: 1, since: 1 });
    expect(q.take(2)).toBeUndefined();
    expect(state(q)).toEqual({ depth: 1, active: 2, parked: 0, idle: false });
  });

  it('replaces a waiting value in place (latest wins, position kept)', () => {
    const q = new KeyedQueue<string, number>();
    q.push('a', 1, 0);
    q.push('b', 1, 1);
    expect(q.push('a', 2, 5)).toEqual({ kind: 'replaced', previous: 1 });
    expect(q.take(9)).toEqual({ key: 'a', value: 2, since: 0 });
    expect(q.take(9)).toEqual({ key: 'b', value: 1, since: 1 });
  });

  it('parks a value for a key in flight and moves it to the back on finish', () => {
    const q = new KeyedQueue<string, number>();
    q.push('a', 1, 0);
    q.take(1);
    expect(q.push('a', 2, 1)).toEqual({ kind: 'parked' });
    expect(q.push('a', 3, 2)).toEqual({ kind: 'replaced', previous: 2 });
    q.push('b', 1, 3);
    expect(q.take(5)).toEqual({ key: 'b', value: 1, since: 3 });
    expect(state(q)).toEqual({ depth: 0, active: 2, parked: 1, idle: false });
    // a finishes: its parked value (parked at 1) joins the FIFO behind anything waiting
    q.push('c', 1, 4);
    expect(q.finish('a')).toBe(2);
    expect(q.take(5)).toEqual({ key: 'c', value: 1, since: 4 });
    expect(q.take(5)).toEqual({ key: 'a', value: 3, since: 1 });
  });

  it('never hands out a key that is already in flight', () => {
    const q = new KeyedQueue<string, number>();
    q.push('a', 1, 0);
    q.take(10);
    q.push('a', 2, 1);
    expect(q.take(10)).toBeUndefined();
  });

  it('holds no state for a key once it has nothing waiting, parked or in flight', () => {
    const q = new KeyedQueue<number, number>();
    for (let k = 0; k < 100; k++) q.push(k, k, 0);
    for (let k = 0; k < 100; k++) q.take(100);
    for (let k = 0; k < 50; k++) q.push(k, -k, 1);
    expect(state(q)).toEqual({ depth: 0, active: 100, parked: 50, idle: false });
    for (let k = 0; k < 100; k++) q.finish(k);
    expect(state(q)).toEqual({ depth: 50, active: 0, parked: 0, idle: false });
    for (let k = 0; k < 50; k++) q.finish(q.take(100)?.key ?? -1);
    expect(state(q)).toEqual({ depth: 0, active: 0, parked: 0, idle: true });
  });

  it('keeps FIFO order across the internal compaction of a long backlog', () => {
    const q = new KeyedQueue<number, number>();
    const order: number[] = [];
    for (let k = 0; k < 5000; k++) q.push(k, k, 0);
    for (let i = 0; i < 3000; i++) {
      const t = q.take(1);
      if (t === undefined) throw new Error('expected a key');
      order.push(t.key);
      q.finish(t.key);
      if (i % 2 === 0) q.push(10_000 + i, i, 0); // new keys join the back while the front drains
    }
    q.push(4000, -1, 0); // replaced in place: keeps its position
    for (let t = q.take(1); t !== undefined; t = q.take(1)) {
      order.push(t.key);
      q.finish(t.key);
    }
    const expected = [
      ...Array.from({ length: 5000 }, (_, k) => k),
      ...Array.from({ length: 1500 }, (_, j) => 10_000 + 2 * j),
    ];
    expect(order).toEqual(expected);
    expect(q.idle).toBe(true);
  });

  it('forgets everything on clear', () => {
    const q = new KeyedQueue<string, number>();
    q.push('a', 1, 0);
    q.take(1);
    q.push('a', 2, 0);
    q.push('b', 1, 0);
    q.clear();
    expect(state(q)).toEqual({ depth: 0, active: 0, parked: 0, idle: true });
  });
});
