/**
 * Cells of the apps/v1 and batch/v1 printers, after `printDeployment`, `printReplicaSet`,
 * `printStatefulSet`, `printDaemonSet`, `printJob` and `printCronJob` of
 * `pkg/printers/internalversion/printers.go` (v1.24), wide cells included.
 *
 * @module
 */
import { age, humanDuration } from './duration.js';
import type { RowPrinter } from './core.js';
import { containersAndImages, formatLabels, formatSelector, num, obj, str } from './format.js';

/** `printDeployment`: Name, Ready, Up-to-date, Available, Age, Containers, Images, Selector. */
export const deploymentRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  const status = obj(o, 'status');
  return [
    o.metadata.name ?? '',
    `${String(num(status, 'readyReplicas'))}/${String(num(spec, 'replicas'))}`,
    num(status, 'updatedReplicas'),
    num(status, 'availableReplicas'),
    age(o.metadata.creationTimestamp, now),
    ...containersAndImages(spec['template']),
    formatSelector(spec['selector']),
  ];
};

/** `printReplicaSet`: Name, Desired, Current, Ready, Age, Containers, Images, Selector. */
export const replicaSetRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  const status = obj(o, 'status');
  return [
    o.metadata.name ?? '',
    num(spec, 'replicas'),
    num(status, 'replicas'),
    num(status, 'readyReplicas'),
    age(o.metadata.creationTimestamp, now),
    ...containersAndImages(spec['template']),
    formatSelector(spec['selector']),
  ];
};

/** `printStatefulSet`: Name, Ready, Age, Containers, Images. */
export const statefulSetRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  const status = obj(o, 'status');
  return [
    o.metadata.name ?? '',
    `${String(num(status, 'readyReplicas'))}/${String(num(spec, 'replicas'))}`,
    age(o.metadata.creationTimestamp, now),
    ...containersAndImages(spec['template']),
  ];
};

/**
 * `printDaemonSet`: Name, Desired, Current, Ready, Up-to-date, Available, Node Selector, Age,
 * Containers, Images, Selector.
 */
export const daemonSetRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  const status = obj(o, 'status');
  return [
    o.metadata.name ?? '',
    num(status, 'desiredNumberScheduled'),
    num(status, 'currentNumberScheduled'),
    num(status, 'numberReady'),
    num(status, 'updatedNumberScheduled'),
    num(status, 'numberAvailable'),
    formatLabels(obj(obj(spec, 'template'), 'spec')['nodeSelector']),
    age(o.metadata.creationTimestamp, now),
    ...containersAndImages(spec['template']),
    formatSelector(spec['selector']),
  ];
};

/** `printJob`: Name, Completions, Duration, Age, Containers, Images, Selector. */
export const jobRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  const status = obj(o, 'status');
  const succeeded = num(status, 'succeeded');
  let completions: string;
  if (typeof spec['completions'] === 'number')
    completions = `${String(succeeded)}/${String(spec['completions'])}`;
  else {
    const parallelism = num(spec, 'parallelism');
    completions =
      parallelism > 1 ? `${String(succeeded)}/1 of ${String(parallelism)}` : `${String(succeeded)}/1`;
  }
  const start = Date.parse(str(status, 'startTime'));
  const end = Date.parse(str(status, 'completionTime'));
  const duration = Number.isNaN(start) ? '' : humanDuration(((Number.isNaN(end) ? now : end) - start) / 1000);
  return [
    o.metadata.name ?? '',
    completions,
    duration,
    age(o.metadata.creationTimestamp, now),
    ...containersAndImages(spec['template']),
    formatSelector(spec['selector']),
  ];
};

/**
 * `printCronJob`: Name, Schedule, Suspend, Active, Last Schedule, Age, Containers, Images,
 * Selector.
 */
export const cronJobRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  const status = obj(o, 'status');
  const jobSpec = obj(obj(spec, 'jobTemplate'), 'spec');
  const suspend = spec['suspend'];
  const last = str(status, 'lastScheduleTime');
  return [
    o.metadata.name ?? '',
    str(spec, 'schedule'),
    typeof suspend === 'boolean' ? (suspend ? 'True' : 'False') : '<unset>',
    Array.isArray(status['active']) ? status['active'].length : 0,
    last === '' ? '<none>' : age(last, now),
    age(o.metadata.creationTimestamp, now),
    ...containersAndImages(jobSpec['template']),
    formatSelector(jobSpec['selector']),
  ];
};
