/**
 * Cells of the core/v1 printers and Lease's, after `printPod`, `printService`, `printSecret`,
 * `printServiceAccount`, `printEvent`, `printPersistentVolumeClaim`, `printEndpoints` and
 * `printLease` of `pkg/printers/internalversion/printers.go` (v1.24). Every cell of a row is sent,
 * wide (`priority: 1`) ones included, as the real server does.
 *
 * @module
 */
import type { KObj } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import { age } from './duration.js';
import { formatLabels, num, obj, str, text } from './format.js';

/** A row of cells of one object. */
export type RowPrinter = (o: KObj, now: number) => unknown[];

const none = (s: string): string => (s === '' ? '<none>' : s);

/** `printPod`: Name, Ready, Status, Restarts, Age, IP, Node, Nominated Node, Readiness Gates. */
export const podRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  const status = obj(o, 'status');
  const containers = Array.isArray(spec['containers']) ? spec['containers'].length : 0;
  let reason = str(status, 'reason') || str(status, 'phase');
  let restarts = 0;
  let ready = 0;
  const initStatuses = Array.isArray(status['initContainerStatuses']) ? status['initContainerStatuses'] : [];
  let initializing = false;
  initStatuses.filter(isObject).forEach((c, i) => {
    restarts += num(c, 'restartCount');
    const state = obj(c, 'state');
    const terminated = obj(state, 'terminated');
    if (isObject(state['terminated']) && num(terminated, 'exitCode') === 0) return;
    if (initializing) return;
    initializing = true;
    const waiting = obj(state, 'waiting');
    if (isObject(state['terminated']))
      reason = str(terminated, 'reason')
        ? `Init:${str(terminated, 'reason')}`
        : `Init:ExitCode:${String(num(terminated, 'exitCode'))}`;
    else if (str(waiting, 'reason') && str(waiting, 'reason') !== 'PodInitializing')
      reason = `Init:${str(waiting, 'reason')}`;
    else reason = `Init:${String(i)}/${String(initStatuses.length)}`;
  });
  if (!initializing) {
    restarts = 0;
    let hasRunning = false;
    const statuses = Array.isArray(status['containerStatuses']) ? status['containerStatuses'] : [];
    for (const c of [...(statuses as unknown[])].reverse().filter(isObject)) {
      restarts += num(c, 'restartCount');
      const state = obj(c, 'state');
      if (str(obj(state, 'waiting'), 'reason')) reason = str(obj(state, 'waiting'), 'reason');
      else if (isObject(state['terminated'])) {
        const t = obj(state, 'terminated');
        reason =
          str(t, 'reason') ||
          (num(t, 'signal') !== 0
            ? `Signal:${String(num(t, 'signal'))}`
            : `ExitCode:${String(num(t, 'exitCode'))}`);
      } else if (isObject(state['running']) && c['ready'] === true) {
        hasRunning = true;
        ready++;
      }
    }
    if (reason === 'Completed' && hasRunning) reason = 'Running';
  }
  if (o.metadata.deletionTimestamp) reason = str(status, 'reason') === 'NodeLost' ? 'Unknown' : 'Terminating';
  const gates = Array.isArray(spec['readinessGates']) ? spec['readinessGates'].filter(isObject) : [];
  const conditions = Array.isArray(status['conditions']) ? status['conditions'].filter(isObject) : [];
  const trueGates = gates.filter((g) =>
    conditions.some((c) => c['type'] === g['conditionType'] && c['status'] === 'True'),
  ).length;
  return [
    o.metadata.name ?? '',
    `${String(ready)}/${String(containers)}`,
    reason,
    String(restarts),
    age(o.metadata.creationTimestamp, now),
    none(str(status, 'podIP')),
    none(str(spec, 'nodeName')),
    none(str(status, 'nominatedNodeName')),
    gates.length === 0 ? '<none>' : `${String(trueGates)}/${String(gates.length)}`,
  ];
};

function servicePorts(spec: Record<string, unknown>): string {
  const ports = Array.isArray(spec['ports']) ? spec['ports'].filter(isObject) : [];
  if (ports.length === 0) return '<none>';
  return ports
    .map((p) => {
      const protocol = str(p, 'protocol') || 'TCP';
      const node = num(p, 'nodePort');
      return node > 0
        ? `${String(num(p, 'port'))}:${String(node)}/${protocol}`
        : `${String(num(p, 'port'))}/${protocol}`;
    })
    .join(',');
}

function externalIps(spec: Record<string, unknown>, status: Record<string, unknown>): string {
  const type = str(spec, 'type') || 'ClusterIP';
  const external = Array.isArray(spec['externalIPs']) ? (spec['externalIPs'] as string[]) : [];
  switch (type) {
    case 'ClusterIP':
    case 'NodePort':
      return external.length > 0 ? external.join(',') : '<none>';
    case 'LoadBalancer': {
      const ingress = Array.isArray(obj(status, 'loadBalancer')['ingress'])
        ? (obj(status, 'loadBalancer')['ingress'] as unknown[]).filter(isObject)
        : [];
      const lb = ingress.map((i) => str(i, 'ip') || str(i, 'hostname')).filter((s) => s !== '');
      const all = [...lb, ...external];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return str(spec, 'externalName');
    default:
      return '<unknown>';
  }
}

/** `printService`: Name, Type, Cluster-IP, External-IP, Port(s), Age, Selector. */
export const serviceRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  return [
    o.metadata.name ?? '',
    str(spec, 'type') || 'ClusterIP',
    none(str(spec, 'clusterIP')),
    externalIps(spec, obj(o, 'status')),
    servicePorts(spec),
    age(o.metadata.creationTimestamp, now),
    formatLabels(spec['selector']),
  ];
};

/** `printSecret`: Name, Type, Data, Age. */
export const secretRow: RowPrinter = (o, now) => [
  o.metadata.name ?? '',
  str(o, 'type'),
  Object.keys(obj(o, 'data')).length,
  age(o.metadata.creationTimestamp, now),
];

/** `printServiceAccount`: Name, Secrets, Age. */
export const serviceAccountRow: RowPrinter = (o, now) => [
  o.metadata.name ?? '',
  Array.isArray(o['secrets']) ? o['secrets'].length : 0,
  age(o.metadata.creationTimestamp, now),
];

/**
 * `printEvent` on the core form (events.k8s.io Events are converted first): Last Seen, Type,
 * Reason, Object, Subobject, Source, Message, First Seen, Count, Name.
 */
export const eventRow: RowPrinter = (o, now) => {
  const eventTime = typeof o['eventTime'] === 'string' ? o['eventTime'] : undefined;
  const first = typeof o['firstTimestamp'] === 'string' ? age(o['firstTimestamp'], now) : age(eventTime, now);
  let last = typeof o['lastTimestamp'] === 'string' ? age(o['lastTimestamp'], now) : first;
  let count = num(o, 'count');
  const series = isObject(o['series']) ? o['series'] : undefined;
  if (series) {
    last = age(str(series, 'lastObservedTime'), now);
    count = num(series, 'count');
  } else if (count === 0) count = 1;
  const involved = obj(o, 'involvedObject');
  const kind = str(involved, 'kind').toLowerCase();
  const target = str(involved, 'name') ? `${kind}/${str(involved, 'name')}` : kind;
  const source = obj(o, 'source');
  const component = str(source, 'component') || str(o, 'reportingComponent');
  const instance = str(source, 'host') || str(o, 'reportingInstance');
  return [
    last,
    str(o, 'type'),
    str(o, 'reason'),
    target,
    str(involved, 'fieldPath'),
    component === '' ? '<unknown>' : instance === '' ? component : `${component}, ${instance}`,
    str(o, 'message').trim(),
    first,
    count,
    o.metadata.name ?? '',
  ];
};

const ACCESS_MODES: Readonly<Record<string, string>> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};

/** `printPersistentVolumeClaim`: Name, Status, Volume, Capacity, Access Modes, StorageClass, Age, VolumeMode. */
export const pvcRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  const status = obj(o, 'status');
  const phase = o.metadata.deletionTimestamp ? 'Terminating' : str(status, 'phase');
  const volume = str(spec, 'volumeName');
  const modes = Array.isArray(status['accessModes']) ? (status['accessModes'] as string[]) : [];
  const storageClass =
    o.metadata.annotations?.['volume.beta.kubernetes.io/storage-class'] ?? str(spec, 'storageClassName');
  return [
    o.metadata.name ?? '',
    phase,
    volume,
    volume === '' ? '' : text(obj(status, 'capacity')['storage']) || '0',
    [...new Set(modes)].map((m) => ACCESS_MODES[m] ?? m).join(','),
    storageClass,
    age(o.metadata.creationTimestamp, now),
    str(spec, 'volumeMode') || '<unset>',
  ];
};

/** `formatEndpoints`: up to three `ip:port`, then `+ N more...`. */
function formatEndpoints(o: KObj): string {
  const subsets = Array.isArray(o['subsets']) ? o['subsets'].filter(isObject) : [];
  const list: string[] = [];
  let total = 0;
  for (const s of subsets) {
    const addresses = Array.isArray(s['addresses']) ? s['addresses'].filter(isObject) : [];
    const ports = Array.isArray(s['ports']) ? s['ports'].filter(isObject) : [];
    if (ports.length === 0) {
      for (const a of addresses) {
        total++;
        if (list.length < 3) list.push(str(a, 'ip'));
      }
      continue;
    }
    for (const p of ports) {
      for (const a of addresses) {
        total++;
        if (list.length < 3) list.push(`${str(a, 'ip')}:${String(num(p, 'port'))}`);
      }
    }
  }
  if (total === 0) return '<none>';
  const more = total - list.length;
  return more > 0 ? `${list.join(',')} + ${String(more)} more...` : list.join(',');
}

/** `printEndpoints`: Name, Endpoints, Age. */
export const endpointsRow: RowPrinter = (o, now) => [
  o.metadata.name ?? '',
  formatEndpoints(o),
  age(o.metadata.creationTimestamp, now),
];

/** `printLease`: Name, Holder, Age. */
export const leaseRow: RowPrinter = (o, now) => [
  o.metadata.name ?? '',
  str(obj(o, 'spec'), 'holderIdentity'),
  age(o.metadata.creationTimestamp, now),
];
