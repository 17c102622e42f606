/**
 * The defaults kube-apiserver v1.24 gives a PodSpec when it decodes a Pod or a pod template
 * (Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob): `SetDefaults_PodSpec`,
 * `SetDefaults_Container`, `SetDefaults_ContainerPort`, probes and volume sources of
 * `pkg/apis/core/v1/defaults.go`. They are decode-time defaults, so the writer owns them in
 * `managedFields`, as on the real server.
 *
 * Does not: run admission (service account token volumes, tolerations, `priority`), which a real
 * server adds to Pods only.
 *
 * @module
 */
import type { Json } from '../../store/object.js';
import { isObject } from '../../store/object.js';

/** `imagePullPolicy`: `Always` for `:latest` or an untagged image, `IfNotPresent` otherwise. */
export function defaultPullPolicy(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  const withoutDigest = image.split('@')[0] ?? image;
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.indexOf(':', lastSlash + 1);
  if (image.includes('@')) return 'IfNotPresent';
  if (colon < 0) return 'Always';
  return withoutDigest.slice(colon + 1) === 'latest' ? 'Always' : 'IfNotPresent';
}

function defaultProbe(p: unknown): void {
  if (!isObject(p)) return;
  p['timeoutSeconds'] ??= 1;
  p['periodSeconds'] ??= 10;
  p['successThreshold'] ??= 1;
  p['failureThreshold'] ??= 3;
  if (isObject(p['httpGet'])) {
    p['httpGet']['path'] ??= '/';
    p['httpGet']['scheme'] ??= 'HTTP';
  }
}

function defaultContainer(c: unknown): void {
  if (!isObject(c)) return;
  c['resources'] ??= {};
  c['terminationMessagePath'] ??= '/dev/termination-log';
  c['terminationMessagePolicy'] ??= 'File';
  c['imagePullPolicy'] ??= defaultPullPolicy(c['image']);
  if (Array.isArray(c['ports'])) for (const p of c['ports']) if (isObject(p)) p['protocol'] ??= 'TCP';
  if (Array.isArray(c['env']))
    for (const e of c['env']) {
      const from = isObject(e) && isObject(e['valueFrom']) ? e['valueFrom'] : undefined;
      if (from && isObject(from['fieldRef'])) from['fieldRef']['apiVersion'] ??= 'v1';
    }
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) defaultProbe(c[probe]);
}

function defaultVolume(v: unknown): void {
  if (!isObject(v)) return;
  for (const source of ['configMap', 'secret', 'downwardAPI', 'projected']) {
    if (isObject(v[source])) v[source]['defaultMode'] ??= 420;
  }
  const known = [
    'hostPath',
    'emptyDir',
    'gcePersistentDisk',
    'awsElasticBlockStore',
    'gitRepo',
    'secret',
    'nfs',
    'iscsi',
    'glusterfs',
    'persistentVolumeClaim',
    'rbd',
    'flexVolume',
    'cinder',
    'cephfs',
    'flocker',
    'downwardAPI',
    'fc',
    'azureFile',
    'configMap',
    'vsphereVolume',
    'quobyte',
    'azureDisk',
    'photonPersistentDisk',
    'projected',
    'portworxVolume',
    'scaleIO',
    'storageos',
    'csi',
    'ephemeral',
  ];
  // SetDefaults_Volume: a volume without a source is an emptyDir
  if (!known.some((k) => v[k] !== undefined)) v['emptyDir'] = {};
}

/** Applies the PodSpec defaults to `spec` (mutates it). */
export function defaultPodSpec(spec: Json): void {
  spec['restartPolicy'] ??= 'Always';
  spec['terminationGracePeriodSeconds'] ??= 30;
  spec['dnsPolicy'] ??= 'ClusterFirst';
  spec['securityContext'] ??= {};
  spec['schedulerName'] ??= 'default-scheduler';
  for (const list of ['containers', 'initContainers']) {
    const cs = spec[list];
    if (Array.isArray(cs)) for (const c of cs) defaultContainer(c);
  }
  if (Array.isArray(spec['volumes'])) for (const v of spec['volumes']) defaultVolume(v);
}

/**
 * Applies the pod template defaults to `template` (a PodTemplateSpec): the PodSpec defaults and
 * `metadata.creationTimestamp: null`, which Go's `metav1.Time` zero value serialises.
 */
export function defaultPodTemplate(template: unknown): void {
  if (!isObject(template)) return;
  const meta = isObject(template['metadata']) ? template['metadata'] : {};
  if (meta['creationTimestamp'] === undefined) meta['creationTimestamp'] = null;
  template['metadata'] = meta;
  const spec = isObject(template['spec']) ? template['spec'] : {};
  defaultPodSpec(spec);
  template['spec'] = spec;
}
