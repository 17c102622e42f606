/**
 * networking.k8s.io/v1 kinds: Ingress and NetworkPolicy. Defaults as
 * `pkg/apis/networking/v1/defaults.go` (NetworkPolicy `policyTypes` and port protocols); the
 * statuses each strategy's `PrepareForCreate` leaves (`pkg/registry/networking/<kind>/strategy.go`);
 * generation counts spec changes.
 *
 * Does not: route traffic or enforce policies (there is no ingress controller or CNI).
 *
 * @module
 */
import type { KObj } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import type { ResourceType } from '../types.js';
import { builtin } from './builtin.js';

function networkPolicyDefaults(o: KObj): void {
  const spec = isObject(o['spec']) ? o['spec'] : {};
  o['spec'] = spec;
  for (const direction of ['ingress', 'egress']) {
    const rules = spec[direction];
    if (!Array.isArray(rules)) continue;
    for (const rule of rules) {
      if (!isObject(rule) || !Array.isArray(rule['ports'])) continue;
      for (const port of rule['ports']) if (isObject(port)) port['protocol'] ??= 'TCP';
    }
  }
  if (spec['policyTypes'] === undefined) {
    const types = ['Ingress'];
    if (Array.isArray(spec['egress']) && spec['egress'].length > 0) types.push('Egress');
    spec['policyTypes'] = types;
  }
}

/** The networking.k8s.io/v1 kinds. */
export function networkingKinds(): ResourceType[] {
  return [
    builtin({
      group: 'networking.k8s.io',
      version: 'v1',
      resource: 'ingresses',
      kind: 'Ingress',
      namespaced: true,
      shortNames: ['ing'],
      hasStatus: true,
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      prepare: (o, old) => {
        if (old === undefined) o['status'] = { loadBalancer: {} };
      },
    }),
    builtin({
      group: 'networking.k8s.io',
      version: 'v1',
      resource: 'networkpolicies',
      kind: 'NetworkPolicy',
      namespaced: true,
      shortNames: ['netpol'],
      hasStatus: true,
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      defaults: networkPolicyDefaults,
      prepare: (o, old) => {
        if (old === undefined) o['status'] = {};
      },
    }),
  ];
}
