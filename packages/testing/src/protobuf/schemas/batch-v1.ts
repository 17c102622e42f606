/**
 * Protobuf messages of batch/v1 Job, CronJob: JSON names, field numbers and Go
 * types of Kubernetes 1.24's API (the syntax is in `../declarations.ts`).
 *
 * @module
 */
import type { MessageDeclarations } from '../declarations.js';

/** batch/v1 Job, CronJob. */
export const BATCH_V1: MessageDeclarations = {
  'batch.v1.CronJob': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 batch.v1.CronJobSpec
    status 3 batch.v1.CronJobStatus`,
  'batch.v1.CronJobList': `
    metadata 1 meta.v1.ListMeta
    items 2 []batch.v1.CronJob`,
  'batch.v1.CronJobSpec': `
    schedule 1 string
    timeZone 8 *string omitempty
    startingDeadlineSeconds 2 *int64 omitempty
    concurrencyPolicy 3 string omitempty
    suspend 4 *bool omitempty
    jobTemplate 5 batch.v1.JobTemplateSpec
    successfulJobsHistoryLimit 6 *int32 omitempty
    failedJobsHistoryLimit 7 *int32 omitempty`,
  'batch.v1.CronJobStatus': `
    active 1 []core.v1.ObjectReference omitempty
    lastScheduleTime 4 *Time omitempty
    lastSuccessfulTime 5 *Time omitempty`,
  'batch.v1.Job': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 batch.v1.JobSpec
    status 3 batch.v1.JobStatus`,
  'batch.v1.JobCondition': `
    type 1 string
    status 2 string
    lastProbeTime 3 Time
    lastTransitionTime 4 Time
    reason 5 string omitempty
    message 6 string omitempty`,
  'batch.v1.JobList': `
    metadata 1 meta.v1.ListMeta
    items 2 []batch.v1.Job`,
  'batch.v1.JobSpec': `
    parallelism 1 *int32 omitempty
    completions 2 *int32 omitempty
    activeDeadlineSeconds 3 *int64 omitempty
    backoffLimit 7 *int32 omitempty
    selector 4 *meta.v1.LabelSelector omitempty
    manualSelector 5 *bool omitempty
    template 6 core.v1.PodTemplateSpec
    ttlSecondsAfterFinished 8 *int32 omitempty
    completionMode 9 *string omitempty
    suspend 10 *bool omitempty`,
  'batch.v1.JobStatus': `
    conditions 1 []batch.v1.JobCondition omitempty
    startTime 2 *Time omitempty
    completionTime 3 *Time omitempty
    active 4 int32 omitempty
    succeeded 5 int32 omitempty
    failed 6 int32 omitempty
    completedIndexes 7 string omitempty
    uncountedTerminatedPods 8 *batch.v1.UncountedTerminatedPods omitempty
    ready 9 *int32 omitempty`,
  'batch.v1.JobTemplateSpec': `
    metadata 1 meta.v1.ObjectMeta
    spec 2 batch.v1.JobSpec`,
  'batch.v1.UncountedTerminatedPods': `
    succeeded 1 []string omitempty
    failed 2 []string omitempty`,
};
