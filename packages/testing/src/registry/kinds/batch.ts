/**
 * batch/v1 kinds: Job and CronJob. Defaults as `pkg/apis/batch/v1/defaults.go` (a CronJob's
 * `jobTemplate.spec` gets only the pod template defaults, as on the real server); the Job's
 * generated selector and `controller-uid`/`job-name` labels as `generateSelector` in
 * `pkg/registry/batch/job/strategy.go` (the Job's own labels are copied from the template when it
 * has none, which the real server does when it decodes the stored Job). Generation counts spec
 * changes (both strategies' `PrepareForUpdate`).
 *
 * Does not: run Jobs or schedule CronJobs (there is no job controller; status stays as written).
 *
 * @module
 */
import type { StatusCause } from '../../status.js';
import type { Json, KObj } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import type { ResourceType } from '../types.js';
import { builtin } from './builtin.js';
import { defaultPodTemplate } from './pod-spec.js';

function specOf(o: KObj): Json {
  const spec = isObject(o['spec']) ? o['spec'] : {};
  o['spec'] = spec;
  return spec;
}

function jobDefaults(o: KObj): void {
  const spec = specOf(o);
  if (spec['completions'] === undefined && spec['parallelism'] === undefined) {
    spec['completions'] = 1;
    spec['parallelism'] = 1;
  }
  spec['parallelism'] ??= 1;
  spec['backoffLimit'] ??= 6;
  spec['completionMode'] ??= 'NonIndexed';
  spec['suspend'] ??= false;
  defaultPodTemplate(spec['template']);
}

/** `generateSelector` and the status reset of the Job strategy's `PrepareForCreate`. */
function jobPrepare(o: KObj, old: KObj | undefined): void {
  if (old !== undefined) return;
  o['status'] = {};
  const spec = specOf(o);
  const uid = o.metadata.uid ?? '';
  if (spec['manualSelector'] !== true) {
    const template = isObject(spec['template']) ? spec['template'] : {};
    const meta = isObject(template['metadata']) ? template['metadata'] : {};
    meta['labels'] = {
      ...(isObject(meta['labels']) ? meta['labels'] : {}),
      'controller-uid': uid,
      'job-name': o.metadata.name ?? '',
    };
    template['metadata'] = meta;
    spec['template'] = template;
    spec['selector'] = { matchLabels: { 'controller-uid': uid } };
  }
  const labels = o.metadata.labels;
  if (labels === undefined || Object.keys(labels).length === 0) {
    const template = isObject(spec['template']) ? spec['template'] : {};
    const meta = isObject(template['metadata']) ? template['metadata'] : {};
    if (isObject(meta['labels'])) o.metadata.labels = { ...(meta['labels'] as Record<string, string>) };
  }
}

function podTemplateCauses(template: unknown, field: string): StatusCause[] {
  const spec = isObject(template) && isObject(template['spec']) ? template['spec'] : {};
  const causes: StatusCause[] = [];
  const containers = spec['containers'];
  if (!Array.isArray(containers) || containers.length === 0)
    causes.push({
      reason: 'FieldValueRequired',
      message: 'Required value',
      field: `${field}.spec.containers`,
    });
  const restart = spec['restartPolicy'];
  if (restart !== 'OnFailure' && restart !== 'Never') {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${JSON.stringify(restart ?? '')}: supported values: "OnFailure", "Never"`,
      field: `${field}.spec.restartPolicy`,
    });
  }
  return causes;
}

function cronJobDefaults(o: KObj): void {
  const spec = specOf(o);
  spec['concurrencyPolicy'] ??= 'Allow';
  spec['suspend'] ??= false;
  spec['successfulJobsHistoryLimit'] ??= 3;
  spec['failedJobsHistoryLimit'] ??= 1;
  const jobTemplate = isObject(spec['jobTemplate']) ? spec['jobTemplate'] : undefined;
  if (jobTemplate) {
    const meta = isObject(jobTemplate['metadata']) ? jobTemplate['metadata'] : {};
    if (meta['creationTimestamp'] === undefined) meta['creationTimestamp'] = null;
    jobTemplate['metadata'] = meta;
    const jobSpec = isObject(jobTemplate['spec']) ? jobTemplate['spec'] : undefined;
    if (jobSpec) defaultPodTemplate(jobSpec['template']);
  }
}

const CRON_FIELD =
  /^(\*|\?|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?(,(\*|[0-9A-Za-z]+(-[0-9A-Za-z]+)?)(\/\d+)?)*$/;

function cronJobValidate(o: KObj): StatusCause[] {
  const spec = isObject(o['spec']) ? o['spec'] : {};
  const causes: StatusCause[] = [];
  const schedule = spec['schedule'];
  if (typeof schedule !== 'string' || schedule === '') {
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.schedule' });
  } else if (!schedule.startsWith('@')) {
    const fields = schedule.trim().split(/\s+/);
    if (fields.length !== 5 || !fields.every((f) => CRON_FIELD.test(f))) {
      causes.push({
        reason: 'FieldValueInvalid',
        message: `Invalid value: ${JSON.stringify(schedule)}: expected exactly 5 fields, found ${String(fields.length)}: ${schedule}`,
        field: 'spec.schedule',
      });
    }
  }
  const jobTemplate = isObject(spec['jobTemplate']) ? spec['jobTemplate'] : {};
  const jobSpec = isObject(jobTemplate['spec']) ? jobTemplate['spec'] : {};
  causes.push(...podTemplateCauses(jobSpec['template'], 'spec.jobTemplate.spec.template'));
  return causes;
}

/** The batch/v1 kinds. */
export function batchKinds(): ResourceType[] {
  return [
    builtin({
      group: 'batch',
      version: 'v1',
      resource: 'cronjobs',
      kind: 'CronJob',
      namespaced: true,
      shortNames: ['cj'],
      categories: ['all'],
      hasStatus: true,
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      defaults: cronJobDefaults,
      prepare: (o, old) => {
        if (old === undefined) o['status'] = {};
      },
      validate: cronJobValidate,
    }),
    builtin({
      group: 'batch',
      version: 'v1',
      resource: 'jobs',
      kind: 'Job',
      namespaced: true,
      categories: ['all'],
      hasStatus: true,
      hasGeneration: true,
      knownFields: ['spec', 'status'],
      defaults: jobDefaults,
      prepare: jobPrepare,
      validate: (o) =>
        podTemplateCauses(isObject(o['spec']) ? o['spec']['template'] : undefined, 'spec.template'),
    }),
  ];
}
