/**
 * autoscaling/v2 HorizontalPodAutoscaler: defaults as `pkg/apis/autoscaling/v2/defaults.go`
 * (`minReplicas: 1`, a CPU utilisation target of 80 % when no metric is given), the status its
 * strategy's `PrepareForCreate` leaves (`currentMetrics: null`, `desiredReplicas: 0`, which Go
 * always serialises). No `metadata.generation` (the v1.24 HPA strategy keeps none). The storage
 * version is autoscaling/v1 in v1.24 (its `storageVersionHash`).
 *
 * Does not: serve autoscaling/v1 (that needs the v1 ↔ v2 conversion), or scale anything.
 *
 * @module
 */
import type { Json, KObj } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import type { ResourceType } from '../types.js';
import { builtin } from './builtin.js';

function hpaDefaults(o: KObj): void {
  const spec = isObject(o['spec']) ? o['spec'] : {};
  o['spec'] = spec;
  spec['minReplicas'] ??= 1;
  if (!Array.isArray(spec['metrics']) || spec['metrics'].length === 0) {
    spec['metrics'] = [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
      },
    ];
  }
}

/** The autoscaling/v2 kinds. */
export function autoscalingKinds(): ResourceType[] {
  return [
    builtin({
      group: 'autoscaling',
      version: 'v2',
      storageVersion: 'v1',
      resource: 'horizontalpodautoscalers',
      kind: 'HorizontalPodAutoscaler',
      namespaced: true,
      shortNames: ['hpa'],
      categories: ['all'],
      hasStatus: true,
      knownFields: ['spec', 'status'],
      defaults: hpaDefaults,
      prepare: (o, old) => {
        const status: Json = old === undefined ? {} : isObject(o['status']) ? o['status'] : {};
        if (status['currentMetrics'] === undefined) status['currentMetrics'] = null;
        status['desiredReplicas'] ??= 0;
        o['status'] = status;
      },
    }),
  ];
}
