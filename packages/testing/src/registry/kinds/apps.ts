/**
 * apps/v1 kinds: Deployment (with `scale`).
 *
 * @module
 */
import type { StatusCause } from '../../status.js';
import type { KObj } from '../../store/object.js';
import { deepEqual, isObject } from '../../store/object.js';
import { deploymentSelectorImmutable } from '../../validation/services.js';
import type { ResourceType } from '../types.js';
import { builtin, labelsOf } from './builtin.js';

function deploymentValidate(o: KObj): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = isObject(o['spec']) ? o['spec'] : {};
  const selector = isObject(spec['selector']) ? spec['selector'] : undefined;
  const template = isObject(spec['template']) ? spec['template'] : {};
  const tmeta = isObject(template['metadata']) ? template['metadata'] : {};
  const tlabels = labelsOf(tmeta['labels']);
  const tspec = isObject(template['spec']) ? template['spec'] : {};
  if (!selector)
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.selector' });
  const matchLabels = selector ? (labelsOf(selector['matchLabels']) ?? {}) : {};
  const matches =
    selector !== undefined &&
    Object.keys(matchLabels).length + (Array.isArray(selector['matchExpressions']) ? 1 : 0) > 0 &&
    Object.entries(matchLabels).every(([k, v]) => tlabels?.[k] === v);
  if (!matches) {
    const shown = tlabels
      ? `map[string]string{${Object.entries(tlabels)
          .map(([k, v]) => `"${k}":"${v}"`)
          .join(', ')}}`
      : 'map[string]string(nil)';
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${shown}: \`selector\` does not match template \`labels\``,
      field: 'spec.template.metadata.labels',
    });
  }
  const containers = tspec['containers'];
  if (!Array.isArray(containers) || containers.length === 0) {
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value',
      field: 'spec.template.spec.containers',
    });
  }
  const replicas = spec['replicas'];
  if (typeof replicas === 'number' && replicas < 0) {
    causes.push({
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${String(replicas)}: must be greater than or equal to 0`,
      field: 'spec.replicas',
    });
  }
  return causes;
}

function deploymentDefaults(o: KObj): void {
  const spec = isObject(o['spec']) ? o['spec'] : undefined;
  if (!spec) return;
  spec['replicas'] ??= 1;
  spec['revisionHistoryLimit'] ??= 10;
  spec['progressDeadlineSeconds'] ??= 600;
  spec['strategy'] ??= { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } };
}

/** The apps/v1 kinds. */
export function appsKinds(): ResourceType[] {
  return [
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      statusKeeps: ['labels'],
      // annotations are copied to the ReplicaSets, so they bump the generation like the spec
      generationChanged: (next, old) =>
        !deepEqual(next['spec'], old['spec']) ||
        !deepEqual(next.metadata.annotations, old.metadata.annotations),
      namespaced: true,
      shortNames: ['deploy'],
      categories: ['all'],
      hasStatus: true,
      subresources: [
        {
          name: 'scale',
          group: 'autoscaling',
          version: 'v1',
          kind: 'Scale',
          verbs: ['get', 'patch', 'update'],
        },
      ],
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      defaults: deploymentDefaults,
      validate: (o, old) => [...deploymentValidate(o), ...(old ? deploymentSelectorImmutable(o, old) : [])],
    }),
  ];
}
