/**
 * Protobuf messages of coordination.k8s.io/v1 Lease: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** coordination.k8s.io/v1 Lease. */
export const COORDINATION_V1: MessageDeclarations = {
  'coordination.v1.Lease': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 coordination.v1.LeaseSpec`,
  'coordination.v1.LeaseList': `
    metadata 1 meta.v1.ListMeta
    items 2 []coordination.v1.Lease`,
  'coordination.v1.LeaseSpec': `
    holderIdentity 1 *string omitempty
    leaseDurationSeconds 2 *int32 omitempty
    acquireTime 3 *MicroTime omitempty
    renewTime 4 *MicroTime omitempty
    leaseTransitions 5 *int32 omitempty`,
};
