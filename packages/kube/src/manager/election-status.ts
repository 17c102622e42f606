/**
 * The Manager's side of leader election: starting the elector with the leader gauge and a line per
 * change of leadership, releasing it at shutdown; one warning per streak of failed tries, one line
 * when the Lease is reachable again, and the `leader-election` readiness check, which fails while
 * the API server refuses the Lease (401/403) and names the permission to grant.
 *
 * @module
 */
import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';

import { isForbidden, isUnauthorized } from '../errors.js';
import type { LeaderElectionAttempt, LeaderElector } from '../leader/leader-elector.js';
import type { ControllerMetrics } from '../ops/metrics.js';
import type { ProbeCheck } from '../ops/probes.js';
import { errorText } from './controller-supervisor.js';

/** Follows an elector's attempts: logs streaks of failures and answers readiness. */
export class ElectionStatus {
  private refused: unknown;
  private failing = false;

  constructor(
    private readonly elector: LeaderElector,
    private readonly log: Logger,
  ) {}

  /** Starts the elector: the leader gauge and a log line follow leadership; attempts are noted. */
  start(metrics: ControllerMetrics): Subscription[] {
    const elector = this.elector;
    const subscriptions = [
      elector.leadership$.subscribe((leading) => {
        metrics.setLeader(elector.leaseName, leading);
        this.log.info(
          { lease: `${elector.leaseNamespace}/${elector.leaseName}`, identity: elector.identity, leading },
          leading ? 'became leader' : 'not leading',
        );
      }),
      elector.attempts$.subscribe((a) => this.note(a)),
    ];
    elector.start();
    return subscriptions;
  }

  /** Gives the Lease up (the next leader need not wait for it to expire); the gauge drops to 0. */
  async release(metrics: ControllerMetrics): Promise<void> {
    await this.elector.release();
    metrics.setLeader(this.elector.leaseName, false);
  }

  /** Records one attempt to read or write the Lease. */
  note(a: LeaderElectionAttempt): void {
    if (a.error === undefined) {
      if (this.failing)
        this.log.info({ lease: this.elector.leaseName }, 'leader election: the Lease is reachable again');
      this.failing = false;
      this.refused = undefined;
      return;
    }
    // One warning per streak of failed tries (they repeat every retry period).
    if (!this.failing) {
      this.log.warn(
        { error: a.error, lease: this.elector.leaseName },
        'leader election: could not read or write the Lease; retrying',
      );
    }
    this.failing = true;
    this.refused = isForbidden(a.error) || isUnauthorized(a.error) ? a.error : undefined;
  }

  /** `/readyz`'s `leader-election` check: not ready while the Lease is refused. */
  readonly check: ProbeCheck = {
    name: 'leader-election',
    check: () => {
      if (this.refused === undefined) return { ok: true };
      const { leaseNamespace: ns, leaseName } = this.elector;
      return {
        ok: false,
        reason: `Lease ${ns}/${leaseName} refused: ${errorText(this.refused)} — grant get, create and update on coordination.k8s.io leases in namespace ${ns}`,
      };
    },
  };
}
