/**
 * apps/v1 kinds: Deployment, ReplicaSet and StatefulSet (with `scale`), DaemonSet. Defaults as
 * `pkg/apis/apps/v1/defaults.go` (pod templates: `pod-spec.ts`); statuses and the DaemonSet
 * template generation as each kind's `PrepareForCreate`/`PrepareForUpdate` in
 * `pkg/registry/apps/<kind>/strategy.go`. Generation counts spec changes (every strategy's
 * `PrepareForUpdate`), which the engine does for `hasGeneration` kinds.
 *
 * @module
 */
import { LabelSelectorFieldError, labelRequirementMatches, labelSelectorRequirements } from '@rxkube/wire';
import type { LabelSelector } from '@rxkube/wire';

import type { StatusCause } from '../../status.js';
import type { Json, KObj } from '../../store/object.js';
import { deepEqual, isObject } from '../../store/object.js';
import { deploymentSelectorImmutable } from '../../validation/services.js';
import type { ResourceType } from '../types.js';
import { builtin, labelsOf } from './builtin.js';
import { defaultPodTemplate } from './pod-spec.js';

/**
 * `ValidatePodTemplateSpecForReplicaSet`'s test: `metav1.LabelSelectorAsSelector(spec.selector)`
 * (`matchLabels` and `matchExpressions`) matches the template's labels. A selector the conversion
 * refuses is judged by its `matchLabels` alone, as before.
 */
function selectsTemplate(
  selector: Record<string, unknown>,
  matchLabels: Readonly<Record<string, string>>,
  tlabels: Readonly<Record<string, string>> | undefined,
): boolean {
  try {
    return labelSelectorRequirements(selector as LabelSelector).every((r) =>
      labelRequirementMatches(r, tlabels),
    );
  } catch (e) {
    if (!(e instanceof LabelSelectorFieldError)) throw e;
    return Object.entries(matchLabels).every(([k, v]) => tlabels?.[k] === v);
  }
}

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
    selectsTemplate(selector, matchLabels, tlabels);
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
  const strategy = isObject(spec['strategy']) ? spec['strategy'] : {};
  strategy['type'] ??= 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const rolling = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
    rolling['maxUnavailable'] ??= '25%';
    rolling['maxSurge'] ??= '25%';
    strategy['rollingUpdate'] = rolling;
  }
  spec['strategy'] = strategy;
  defaultPodTemplate(spec['template']);
}

function specOf(o: KObj): Json | undefined {
  return isObject(o['spec']) ? o['spec'] : undefined;
}

function replicaSetDefaults(o: KObj): void {
  const spec = specOf(o);
  if (!spec) return;
  spec['replicas'] ??= 1;
  defaultPodTemplate(spec['template']);
}

function statefulSetDefaults(o: KObj): void {
  const spec = specOf(o);
  if (!spec) return;
  spec['podManagementPolicy'] ??= 'OrderedReady';
  spec['replicas'] ??= 1;
  spec['revisionHistoryLimit'] ??= 10;
  const strategy = isObject(spec['updateStrategy']) ? spec['updateStrategy'] : {};
  strategy['type'] ??= 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const rolling = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
    rolling['partition'] ??= 0;
    strategy['rollingUpdate'] = rolling;
  }
  spec['updateStrategy'] = strategy;
  defaultPodTemplate(spec['template']);
  if (Array.isArray(spec['volumeClaimTemplates'])) {
    for (const claim of spec['volumeClaimTemplates']) {
      if (!isObject(claim)) continue;
      const claimSpec = isObject(claim['spec']) ? claim['spec'] : {};
      claimSpec['volumeMode'] ??= 'Filesystem';
      claim['spec'] = claimSpec;
      claim['status'] ??= { phase: 'Pending' };
    }
  }
}

function daemonSetDefaults(o: KObj): void {
  const spec = specOf(o);
  if (!spec) return;
  spec['revisionHistoryLimit'] ??= 10;
  const strategy = isObject(spec['updateStrategy']) ? spec['updateStrategy'] : {};
  strategy['type'] ??= 'RollingUpdate';
  if (strategy['type'] === 'RollingUpdate') {
    const rolling = isObject(strategy['rollingUpdate']) ? strategy['rollingUpdate'] : {};
    rolling['maxUnavailable'] ??= 1;
    rolling['maxSurge'] ??= 0;
    strategy['rollingUpdate'] = rolling;
  }
  spec['updateStrategy'] = strategy;
  defaultPodTemplate(spec['template']);
}

/** The zero status a strategy's `PrepareForCreate` leaves: Go serialises its non-`omitempty` counts. */
function zeroStatus(fields: readonly string[]): (o: KObj, old: KObj | undefined) => void {
  return (o, old) => {
    const status: Json = old === undefined ? {} : isObject(o['status']) ? o['status'] : {};
    for (const f of fields) status[f] ??= 0;
    o['status'] = status;
  };
}

const TEMPLATE_GENERATION = 'deprecated.daemonset.template.generation';

/**
 * DaemonSet strategy: a zero status on create, and `spec.templateGeneration` (in apps/v1 the
 * `deprecated.daemonset.template.generation` annotation) set to 1 on create and incremented when
 * the pod template changes (`pkg/registry/apps/daemonset/strategy.go`).
 */
function daemonSetPrepare(o: KObj, old: KObj | undefined): void {
  zeroStatus(['currentNumberScheduled', 'numberMisscheduled', 'desiredNumberScheduled', 'numberReady'])(
    o,
    old,
  );
  const previous = old?.metadata.annotations?.[TEMPLATE_GENERATION];
  let generation = Number(previous ?? '1');
  if (!Number.isInteger(generation) || generation < 1) generation = 1;
  if (old && !deepEqual(specOf(old)?.['template'], specOf(o)?.['template'])) generation++;
  o.metadata.annotations = { ...(o.metadata.annotations ?? {}), [TEMPLATE_GENERATION]: String(generation) };
}

const SCALE = {
  name: 'scale',
  group: 'autoscaling',
  version: 'v1',
  kind: 'Scale',
  verbs: ['get', 'patch', 'update'],
} as const;

/** The apps/v1 kinds. */
export function appsKinds(): ResourceType[] {
  return [
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'deployments',
      kind: 'Deployment',
      statusKeeps: ['labels'],
      namespaced: true,
      shortNames: ['deploy'],
      categories: ['all'],
      hasStatus: true,
      subresources: [SCALE],
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      defaults: deploymentDefaults,
      // PrepareForUpdate (pkg/registry/apps/deployment/strategy.go): annotation changes count too,
      // since they are copied to the ReplicaSets
      generationChanged: (next, old) =>
        !deepEqual(next.metadata.annotations ?? {}, old.metadata.annotations ?? {}),
      // PrepareForCreate: `Status = apps.DeploymentStatus{}` (every field omitempty)
      prepare: (o, old) => {
        if (old === undefined) o['status'] = {};
      },
      validate: (o, old) => [...deploymentValidate(o), ...(old ? deploymentSelectorImmutable(o, old) : [])],
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'replicasets',
      kind: 'ReplicaSet',
      namespaced: true,
      shortNames: ['rs'],
      categories: ['all'],
      hasStatus: true,
      subresources: [SCALE],
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      defaults: replicaSetDefaults,
      prepare: zeroStatus(['replicas']),
      validate: deploymentValidate,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'statefulsets',
      kind: 'StatefulSet',
      namespaced: true,
      shortNames: ['sts'],
      categories: ['all'],
      hasStatus: true,
      subresources: [SCALE],
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      defaults: statefulSetDefaults,
      prepare: zeroStatus(['replicas', 'availableReplicas']),
      validate: deploymentValidate,
    }),
    builtin({
      group: 'apps',
      version: 'v1',
      resource: 'daemonsets',
      kind: 'DaemonSet',
      namespaced: true,
      shortNames: ['ds'],
      categories: ['all'],
      hasStatus: true,
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      defaults: daemonSetDefaults,
      prepare: daemonSetPrepare,
      validate: (o) => deploymentValidate(o).filter((c) => c.field !== 'spec.replicas'),
    }),
  ];
}
