/**
 * Cells of the networking.k8s.io, policy and autoscaling printers, after `printIngress`,
 * `printNetworkPolicy`, `printPodDisruptionBudget` and `printHorizontalPodAutoscaler` of
 * `pkg/printers/internalversion/printers.go` (v1.24).
 *
 * @module
 */
import type { Json } from '../../store/object.js';
import { isObject } from '../../store/object.js';
import { age } from './duration.js';
import type { RowPrinter } from './core.js';
import { formatSelector, intOrString, num, obj, str, text } from './format.js';

/** `formatHosts`: up to four hosts, `*` for a rule without one, then `+ N more...`. */
function formatHosts(rules: unknown): string {
  const list = Array.isArray(rules) ? rules.filter(isObject) : [];
  const hosts: string[] = [];
  let max = 3;
  for (const rule of list) {
    if (hosts.length === 4) break;
    hosts.push(str(rule, 'host') || '*');
    max--;
  }
  if (hosts.length === 0) return '*';
  const more = list.length - hosts.length;
  return more > 0 && max < 0 ? `${hosts.join(',')} + ${String(more)} more...` : hosts.join(',');
}

function loadBalancerAddresses(status: Json): string {
  const ingress = obj(status, 'loadBalancer')['ingress'];
  const list = Array.isArray(ingress) ? ingress.filter(isObject) : [];
  return list
    .map((i) => str(i, 'ip') || str(i, 'hostname'))
    .filter((s) => s !== '')
    .join(',');
}

/** `printIngress`: Name, Class, Hosts, Address, Ports, Age. */
export const ingressRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  const tls = Array.isArray(spec['tls']) && spec['tls'].length > 0;
  return [
    o.metadata.name ?? '',
    str(spec, 'ingressClassName') || '<none>',
    formatHosts(spec['rules']),
    loadBalancerAddresses(obj(o, 'status')),
    tls ? '80, 443' : '80',
    age(o.metadata.creationTimestamp, now),
  ];
};

/** `printNetworkPolicy`: Name, Pod-Selector, Age. */
export const networkPolicyRow: RowPrinter = (o, now) => [
  o.metadata.name ?? '',
  formatSelector(obj(o, 'spec')['podSelector']),
  age(o.metadata.creationTimestamp, now),
];

/** `printPodDisruptionBudget`: Name, Min Available, Max Unavailable, Allowed Disruptions, Age. */
export const pdbRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  return [
    o.metadata.name ?? '',
    intOrString(spec['minAvailable'], 'N/A'),
    intOrString(spec['maxUnavailable'], 'N/A'),
    num(obj(o, 'status'), 'disruptionsAllowed'),
    age(o.metadata.creationTimestamp, now),
  ];
};

/** One metric of `formatHPAMetrics`: `current/target`. */
function formatMetric(spec: Json, current: Json | undefined): string {
  const type = str(spec, 'type');
  const source = obj(spec, type.charAt(0).toLowerCase() + type.slice(1));
  const target = obj(source, 'target');
  const now = current ? obj(obj(current, type.charAt(0).toLowerCase() + type.slice(1)), 'current') : {};
  const value = (field: string): string => {
    const v = now[field];
    return v === undefined ? '<unknown>' : text(v);
  };
  switch (type) {
    case 'Resource':
    case 'ContainerResource':
      if (typeof target['averageUtilization'] === 'number') {
        const u = now['averageUtilization'];
        return `${typeof u === 'number' ? `${String(u)}%` : '<unknown>'}/${String(target['averageUtilization'])}%`;
      }
      return `${value('averageValue')}/${text(target['averageValue'])}`;
    case 'Pods':
      return `${value('averageValue')}/${text(target['averageValue'])}`;
    case 'Object':
    case 'External':
      if (target['type'] === 'AverageValue')
        return `${value('averageValue')}/${text(target['averageValue'])} (avg)`;
      return `${value('value')}/${text(target['value'])}`;
    default:
      return '<unknown type>';
  }
}

/** `formatHPAMetrics`: up to three metrics, then `+ N more...`; `<none>` without metrics. */
function formatHpaMetrics(specs: unknown, statuses: unknown): string {
  const list = Array.isArray(specs) ? specs.filter(isObject) : [];
  const current = Array.isArray(statuses) ? statuses.filter(isObject) : [];
  if (list.length === 0) return '<none>';
  const shown = list.slice(0, 3).map((m, i) => formatMetric(m, current[i]));
  const more = list.length - shown.length;
  return more > 0 ? `${shown.join(', ')} + ${String(more)} more...` : shown.join(', ');
}

/** `printHorizontalPodAutoscaler`: Name, Reference, Targets, MinPods, MaxPods, Replicas, Age. */
export const hpaRow: RowPrinter = (o, now) => {
  const spec = obj(o, 'spec');
  const status = obj(o, 'status');
  const ref = obj(spec, 'scaleTargetRef');
  return [
    o.metadata.name ?? '',
    `${str(ref, 'kind')}/${str(ref, 'name')}`,
    formatHpaMetrics(spec['metrics'], status['currentMetrics']),
    typeof spec['minReplicas'] === 'number' ? String(spec['minReplicas']) : '<unset>',
    num(spec, 'maxReplicas'),
    num(status, 'currentReplicas'),
    age(o.metadata.creationTimestamp, now),
  ];
};
