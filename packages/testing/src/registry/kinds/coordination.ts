/**
 * coordination.k8s.io/v1 Lease: MicroTime checks, create-on-update, no unconditional updates.
 *
 * @module
 */
import type { StatusCause } from '../../status.js';
import { isObject } from '../../store/object.js';
import type { ResourceType } from '../types.js';
import { builtin, microTimeError } from './builtin.js';

/** coordination.k8s.io/v1 Lease. */
export function coordinationKinds(): ResourceType[] {
  return [
    builtin({
      group: 'coordination.k8s.io',
      version: 'v1',
      resource: 'leases',
      kind: 'Lease',
      metaValidation: { flavor: 'generic', onUpdate: 'update' },
      namespaced: true,
      knownFields: ['spec'],
      allowCreateOnUpdate: true,
      allowUnconditionalUpdate: false,
      decodeCheck: (o) => {
        const spec = isObject(o['spec']) ? o['spec'] : {};
        return microTimeError('Lease', spec['acquireTime']) ?? microTimeError('Lease', spec['renewTime']);
      },
      validate: (o) => {
        const spec = isObject(o['spec']) ? o['spec'] : {};
        const causes: StatusCause[] = [];
        for (const f of ['leaseDurationSeconds', 'leaseTransitions'] as const) {
          const v = spec[f];
          if (typeof v === 'number' && (f === 'leaseDurationSeconds' ? v <= 0 : v < 0)) {
            causes.push({
              reason: 'FieldValueInvalid',
              message: `Invalid value: ${String(v)}: must be greater than ${f === 'leaseDurationSeconds' ? '0' : 'or equal to 0'}`,
              field: `spec.${f}`,
            });
          }
        }
        return causes;
      },
    }),
  ];
}
