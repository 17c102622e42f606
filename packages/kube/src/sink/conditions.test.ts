import { InvalidArgumentError } from '@rxkube/core';
import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';

import type { Condition } from './conditions.js';
import { findCondition, rfc3339, setCondition } from './conditions.js';
import { draftStatus } from './draft-status.js';

interface Status {
  conditions?: Condition[];
}

function newScheduler(): TestScheduler {
  return new TestScheduler((actual, expected) => expect(actual).toEqual(expected));
}

describe('setCondition', () => {
  it('adds a condition with the scheduler time as lastTransitionTime (RFC 3339 seconds)', () => {
    const ts = newScheduler();
    const clock = { now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 678), schedule: ts.schedule.bind(ts) };
    const status: Status = {};
    setCondition(status, { type: 'Ready', status: 'True', reason: 'Up', observedGeneration: 2 }, clock);
    expect(status.conditions).toEqual([
      {
        type: 'Ready',
        status: 'True',
        reason: 'Up',
        message: '',
        lastTransitionTime: '2026-01-02T03:04:05Z',
        observedGeneration: 2,
      },
    ]);
  });

  it('moves lastTransitionTime only when status changes; reason/message updates keep it', () => {
    const ts = newScheduler();
    ts.run(() => {
      const status: Status = {};
      setCondition(status, { type: 'Ready', status: 'False', reason: 'Starting' }, ts);
      const first = findCondition(status, 'Ready')?.lastTransitionTime;
      expect(first).toBe(rfc3339(0));
      // At 5 s: same status, new reason → time kept. At 9 s: status flips → time moves.
      ts.schedule(() => {
        setCondition(status, { type: 'Ready', status: 'False', reason: 'Pulling', message: 'image' }, ts);
        expect(findCondition(status, 'Ready')).toMatchObject({
          reason: 'Pulling',
          message: 'image',
          lastTransitionTime: first,
        });
      }, 5000);
      ts.schedule(() => {
        setCondition(status, { type: 'Ready', status: 'True', reason: 'Up' }, ts);
        expect(findCondition(status, 'Ready')).toMatchObject({
          status: 'True',
          message: '',
          lastTransitionTime: '1970-01-01T00:00:09Z',
        });
      }, 9000);
      ts.flush();
      expect(findCondition(status, 'Ready')?.status).toBe('True'); // both scheduled checks ran
    });
  });

  it('re-setting an identical condition in a draft produces no patch', () => {
    const ts = newScheduler();
    ts.run(() => {
      const obj = { metadata: { name: 'w' }, status: {} as Status };
      const first = draftStatus(obj, (s) =>
        setCondition(s, { type: 'Ready', status: 'True', reason: 'Up' }, ts),
      );
      expect(first.patch).toHaveLength(1);
      const again = draftStatus({ ...obj, status: first.next as Status }, (s) =>
        setCondition(s, { type: 'Ready', status: 'True', reason: 'Up' }, ts),
      );
      expect(again.patch).toEqual([]);
    });
  });

  it('refuses bad conditions with InvalidArgumentError', () => {
    expect(() => setCondition({}, { type: '', status: 'True', reason: 'R' })).toThrow(InvalidArgumentError);
    expect(() => setCondition({}, { type: 'Ready', status: 'yes' as 'True', reason: 'R' })).toThrow(
      'condition.status',
    );
    expect(() => setCondition({}, { type: 'Ready', status: 'True', reason: '' })).toThrow('condition.reason');
  });
});
