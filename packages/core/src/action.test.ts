import { describe, expect, it } from 'vitest';

import { Action } from './action.js';
import { InvalidArgumentError } from './invalid-argument-error.js';

describe('Action', () => {
  it('builds frozen plain requeue objects', () => {
    const action = Action.requeue(250);
    expect(action).toEqual({ type: 'requeue', afterMs: 250 });
    expect(Object.isFrozen(action)).toBe(true);
    expect(Action.requeue(0)).toEqual({ type: 'requeue', afterMs: 0 });
    expect(JSON.parse(JSON.stringify(action))).toEqual(action);
  });

  it('returns one frozen awaitChange object', () => {
    expect(Action.awaitChange()).toEqual({ type: 'awaitChange' });
    expect(Action.awaitChange()).toBe(Action.awaitChange());
    expect(Object.isFrozen(Action.awaitChange())).toBe(true);
  });

  it.each([-1, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '5' as unknown as number])(
    'rejects requeue(%s) with an InvalidArgumentError naming afterMs',
    (afterMs) => {
      const attempt = () => Action.requeue(afterMs);
      expect(attempt).toThrow(InvalidArgumentError);
      expect(attempt).toThrow(/Action\.requeue: afterMs must be a finite number of milliseconds >= 0/);
      try {
        attempt();
      } catch (error) {
        expect((error as InvalidArgumentError).argument).toBe('afterMs');
        expect((error as InvalidArgumentError).received).toBe(afterMs);
      }
    },
  );

  it('recognises well-formed actions only', () => {
    expect(Action.is(Action.requeue(3))).toBe(true);
    expect(Action.is({ type: 'awaitChange' })).toBe(true);
    expect(Action.is({ type: 'requeue', afterMs: -1 })).toBe(false);
    expect(Action.is({ type: 'requeue', afterMs: Number.NaN })).toBe(false);
    expect(Action.is({ type: 'requeue' })).toBe(false);
    expect(Action.is({ type: 'other' })).toBe(false);
    expect(Action.is('awaitChange')).toBe(false);
    expect(Action.is(null)).toBe(false);
    expect(Action.is(undefined)).toBe(false);
  });
});
