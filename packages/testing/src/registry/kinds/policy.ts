/**
 * policy/v1 PodDisruptionBudget: the zero status its strategy's `PrepareForCreate` leaves (four
 * counts Go always serialises; `pkg/registry/policy/poddisruptionbudget/strategy.go`), generation
 * counting spec changes. The storage version is policy/v1beta1 in v1.24 (its `storageVersionHash`).
 *
 * Does not: compute disruptions (there is no disruption controller) or serve `pods/eviction`.
 *
 * @module
 */
import type { Json } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import type { ResourceType } from '../types.js';
import { builtin } from './builtin.js';

const PDB_COUNTS = ['disruptionsAllowed', 'currentHealthy', 'desiredHealthy', 'expectedPods'];

/** The policy/v1 kinds. */
export function policyKinds(): ResourceType[] {
  return [
    builtin({
      group: 'policy',
      version: 'v1',
      storageVersion: 'v1beta1',
      resource: 'poddisruptionbudgets',
      kind: 'PodDisruptionBudget',
      namespaced: true,
      shortNames: ['pdb'],
      hasStatus: true,
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      prepare: (o, old) => {
        const status: Json = old === undefined ? {} : isObject(o['status']) ? o['status'] : {};
        for (const f of PDB_COUNTS) status[f] ??= 0;
        o['status'] = status;
      },
    }),
  ];
}
