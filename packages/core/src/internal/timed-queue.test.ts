import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import { TimedQueue, timedSlot } from './timed-queue.js';
import type { TimedSlot } from './timed-queue.js';

interface Named extends TimedSlot {
  readonly name: string;
}
const slot = (name: string, due: number): Named => ({ ...timedSlot(due), name });

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('TimedQueue', () => {
  it('fires slots in (deadline, arming order) on one scheduler action', () => {
    const ts = newScheduler();
    const fired: [number, string][] = [];
    ts.run(() => {
      const queue = new TimedQueue<Named>(ts, (s) => fired.push([ts.now(), s.name]));
      for (const s of [slot('c', 7), slot('a', 3), slot('b', 3), slot('d', 5)]) queue.arm(s);
      expect(ts.actions.length).toBe(1);
      expect(queue.size).toBe(4);
    });
    expect(fired).toEqual([
      [3, 'a'],
      [3, 'b'],
      [5, 'd'],
      [7, 'c'],
    ]);
  });

  it('notices a deadline moved later only when the slot comes due, and re-files it', () => {
    const ts = newScheduler();
    const fired: [number, string][] = [];
    ts.run(() => {
      const queue = new TimedQueue<Named>(ts, (s) => fired.push([ts.now(), s.name]));
      const a = slot('a', 2);
      queue.arm(a);
      queue.arm(slot('b', 4));
      a.due = 6; // no heap work now
      queue.arm(a); // later than filed: still a no-op
    });
    expect(fired).toEqual([
      [4, 'b'],
      [6, 'a'],
    ]);
  });

  it('moves a queued slot earlier when re-armed with an earlier deadline', () => {
    const ts = newScheduler();
    const fired: [number, string][] = [];
    ts.run(() => {
      const queue = new TimedQueue<Named>(ts, (s) => fired.push([ts.now(), s.name]));
      const a = slot('a', 9);
      queue.arm(slot('b', 5));
      queue.arm(a);
      a.due = 1;
      queue.arm(a);
    });
    expect(fired).toEqual([
      [1, 'a'],
      [5, 'b'],
    ]);
  });

  it('remove() and clear() take slots out; an empty queue holds no action', () => {
    const ts = newScheduler();
    const fired: string[] = [];
    ts.run(() => {
      const queue = new TimedQueue<Named>(ts, (s) => fired.push(s.name));
      const [a, b, c] = [slot('a', 2), slot('b', 3), slot('c', 4)];
      for (const s of [a, b, c]) queue.arm(s);
      queue.remove(b);
      queue.remove(b); // not queued any more: no-op
      expect(queue.size).toBe(2);
      queue.remove(a);
      queue.remove(c);
      expect(ts.actions.length).toBe(0);
      queue.arm(a);
      queue.arm(c);
      queue.clear();
      expect(queue.size).toBe(0);
      expect(ts.actions.length).toBe(0);
      queue.arm(b); // usable after clear
    });
    expect(fired).toEqual(['b']);
  });

  it('keeps heap order through many random arms, moves and removes', () => {
    const ts = newScheduler();
    const fired: number[] = [];
    ts.run(() => {
      const queue = new TimedQueue<Named>(ts, (s) => fired.push(s.due));
      let seed = 42;
      const rnd = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
      const slots = Array.from({ length: 200 }, (_, i) => slot(`s${i}`, 1 + rnd(100)));
      for (const s of slots) queue.arm(s);
      for (let i = 0; i < 50; i++) {
        const s = slots[rnd(slots.length)] as Named;
        s.due = 1 + rnd(100);
        queue.arm(s);
      }
      for (let i = 0; i < 30; i++) queue.remove(slots[rnd(slots.length)] as Named);
    });
    expect(fired.length).toBeGreaterThan(150);
    expect(fired).toEqual([...fired].sort((x, y) => x - y));
  });
});
