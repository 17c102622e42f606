// @rxkube/core as a user installs it: a keyed workqueue and a reconcile loop over an Observable.
import assert from 'node:assert/strict';

import {
  Action,
  applier,
  isTerminalError,
  runByKey,
  TerminalError,
  type ReconcileResult,
} from '@rxkube/core';
import { from, lastValueFrom, of, throwError, toArray } from 'rxjs';

interface Change {
  readonly key: string;
  readonly n: number;
}
const changes: Change[] = [
  { key: 'a', n: 1 },
  { key: 'b', n: 2 },
  { key: 'a', n: 3 },
];

const worked: string[] = await lastValueFrom(
  from(changes).pipe(
    runByKey(
      (c) => c.key,
      (c) => of(`${c.key}${c.n}`),
      { concurrency: 2 },
    ),
    toArray(),
  ),
);
assert.ok(worked.includes('b2') && worked.at(-1) === 'a3', `runByKey: ${worked.join(',')}`);

const results: ReconcileResult<Change, string>[] = await lastValueFrom(
  from(changes.slice(0, 2)).pipe(
    applier(
      (c) => c.key,
      (c) => (c.key === 'b' ? throwError(() => new TerminalError('bad spec')) : of(Action.awaitChange())),
    ),
    toArray(),
  ),
);
assert.equal(results.length, 2);
assert.deepEqual(Action.requeue(1_000), { type: 'requeue', afterMs: 1_000 });
assert.ok(isTerminalError(new TerminalError('x')));
console.log('core ok');
