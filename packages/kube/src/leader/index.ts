/**
 * Leader election on a coordination.k8s.io Lease (client-go's leaderelection timings).
 *
 * The public names of `leader/`: the entry `@rxkube/kube/leader` is this file, and `@rxkube/kube`
 * re-exports the few an operator author uses every day (docs/design.md, "Entry points").
 *
 * @module @rxkube/kube/leader
 */
// First, as in every entry: on a too-old Node, fail with the required version before any
// dependency loads.
import '../node-version.js';
export {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  defaultIdentity,
  LEADER_ELECTION_JITTER_FACTOR,
  LeaderElector,
} from './leader-elector.js';
export type { Lease, LeaseSpec, LeaderElectionAttempt, LeaderElectionOptions } from './leader-elector.js';
