/**
 * `Manager.run()`'s signal handling: start, run until SIGTERM or SIGINT, stop gracefully on the
 * first signal, exit at once on the second (controller-runtime's `SetupSignalHandler`).
 *
 * @module
 */
import type { Logger } from 'pino';

import type { ShutdownReport } from './manager-options.js';

/**
 * Options of `Manager.run()`: which signals, and the process and exit to use (tests pass fakes).
 *
 * @example
 * ```ts
 * process.exitCode = await mgr.run({ signals: ['SIGTERM'] });
 * ```
 */
export interface ManagerRunOptions {
  /** Signals that stop the manager; default SIGTERM and SIGINT. */
  readonly signals?: readonly NodeJS.Signals[];
  /** Where to listen for them; default `process`. */
  readonly process?: Pick<NodeJS.EventEmitter, 'on' | 'off'>;
  /** Called with 130 on a second signal; default `process.exit`. */
  readonly exit?: (code: number) => void;
}

/** What `runUntilSignal` drives: a manager's start, stop and logger. */
export interface Stoppable {
  readonly log: Logger;
  start(): Promise<void>;
  stop(): Promise<ShutdownReport>;
  /** Resolves when the target stopped for any reason (a lost leader Lease included). */
  readonly finished?: Promise<ShutdownReport>;
}

/**
 * Starts `target`, then resolves with 0 once a signal stopped it with every reconcile drained (1
 * if the drain hit the deadline, or when it stopped itself because it lost the leader Lease); a
 * second signal calls `exit(130)` at once.
 */
export async function runUntilSignal(
  target: Stoppable,
  deadlineMs: number,
  options: ManagerRunOptions = {},
): Promise<number> {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const proc = options.process ?? process;
  const exit = options.exit ?? ((code: number) => process.exit(code));
  let signalled = false;
  let stopped!: (report: ShutdownReport) => void;
  const finished = new Promise<ShutdownReport>((resolve) => (stopped = resolve));
  const onSignal = (signal: NodeJS.Signals): void => {
    if (signalled) {
      target.log.warn({ signal }, 'second signal: exiting now without draining');
      exit(130);
      return;
    }
    signalled = true;
    target.log.info({ signal, deadlineMs }, 'shutting down: intake stopped, draining reconciles in flight');
    void target.stop().then(stopped);
  };
  for (const s of signals) proc.on(s, onSignal);
  try {
    await target.start();
    const report = await (target.finished === undefined
      ? finished
      : Promise.race([finished, target.finished]));
    return report.drained && report.leaderLost !== true ? 0 : 1;
  } finally {
    for (const s of signals) proc.off(s, onSignal);
  }
}
