/**
 * What else a Manager runs besides controllers (controller-runtime's `mgr.Add(runnable)`): named
 * Observables subscribed at start — while leading, unless registered with `leaderElection: false`.
 * A runnable that errors is logged and ends; it never stops the manager.
 *
 * @module
 */
import type { Logger } from 'pino';
import type { Observable, Subscription } from 'rxjs';
import { catchError, defer, EMPTY, ignoreElements, merge, switchMap } from 'rxjs';

import { InvalidArgumentError } from '../internal/invalid-argument.js';
import { isRegistrationName } from './registration.js';

interface Runnable {
  readonly name: string;
  readonly run: () => Observable<unknown>;
  readonly leaderElection: boolean;
}

/** The runnables registered with one Manager. */
export class Runnables {
  private readonly list: Runnable[] = [];

  /** @throws {InvalidArgumentError} for a duplicate or malformed name, or a `run` that is not a function. */
  add(name: string, run: () => Observable<unknown>, options: { readonly leaderElection?: boolean }): void {
    const fail = (field: string, value: unknown, expected: string): never => {
      throw new InvalidArgumentError('Manager.addRunnable', field, value, expected);
    };
    if (!isRegistrationName(name)) fail('name', name, 'must be a lower-case name of letters, digits and "-"');
    if (this.list.some((r) => r.name === name)) fail('name', name, 'must be unique in this manager');
    if (typeof run !== 'function') fail('run', run, 'must be a function () => Observable');
    this.list.push({ name, run, leaderElection: options.leaderElection !== false });
  }

  /** Subscribes the runnables: the ungated ones at once, the others while `leadership$` is true. */
  start(leadership$: Observable<boolean>, log: Logger): Subscription[] {
    const runnable = (r: Runnable): Observable<never> =>
      defer(r.run).pipe(
        ignoreElements(),
        catchError((error: unknown) => {
          log.error({ runnable: r.name, error }, `runnable ${r.name} failed; it is not restarted`);
          return EMPTY;
        }),
      );
    const gated = this.list.filter((r) => r.leaderElection);
    return [
      merge(...this.list.filter((r) => !r.leaderElection).map(runnable)).subscribe(),
      leadership$.pipe(switchMap((leading) => (leading ? merge(...gated.map(runnable)) : EMPTY))).subscribe(),
    ];
  }
}
