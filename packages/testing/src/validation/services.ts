/**
 * Service rules of kube-apiserver v1.24 (`pkg/apis/core/validation/validation.go` ValidateService,
 * validateServicePort) that tests meet first: ports required unless headless or ExternalName, names
 * required and unique when there are several ports, port numbers and protocols, the selector's
 * labels, the type. The port defaults they depend on (protocol TCP, targetPort = port) are set by
 * {@link defaultServicePorts}. ClusterIP allocation and IP families are not emulated.
 *
 * Also the apps/v1 Deployment selector, immutable on update (`pkg/registry/apps/deployment/strategy.go`).
 *
 * @module
 */
import { dns1123LabelErrors } from '@rxkube/wire';

import type { StatusCause } from '../status.js';
import type { KObj } from '../store/object.js';
import { isObject } from '../store/object.js';
import { goQuote, invalidCause, validateLabels } from './names.js';

const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

const specOf = (o: KObj): Record<string, unknown> => (isObject(o['spec']) ? o['spec'] : {});

/** `SetDefaults_ServicePort`: protocol TCP; targetPort = port when unset or 0. */
export function defaultServicePorts(o: KObj): void {
  const ports = specOf(o)['ports'];
  if (!Array.isArray(ports)) return;
  for (const p of ports) {
    if (!isObject(p)) continue;
    if (p['protocol'] === undefined || p['protocol'] === '') p['protocol'] = 'TCP';
    if (p['targetPort'] === undefined || p['targetPort'] === 0 || p['targetPort'] === '')
      p['targetPort'] = p['port'];
  }
}

function portNumCauses(field: string, v: unknown): StatusCause[] {
  const n = typeof v === 'number' ? v : 0;
  return n >= 1 && n <= 65535 ? [] : [invalidCause(field, n, 'must be between 1 and 65535, inclusive')];
}

/** `ValidateService` (without metadata), in its order. */
export function serviceCauses(o: KObj): StatusCause[] {
  const causes: StatusCause[] = [];
  const spec = specOf(o);
  const ports = Array.isArray(spec['ports']) ? spec['ports'].map((p) => (isObject(p) ? p : {})) : [];
  const headless = spec['clusterIP'] === 'None';
  if (ports.length === 0 && !headless && spec['type'] !== 'ExternalName')
    causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.ports' });
  const names = new Set<string>();
  ports.forEach((p, i) => {
    const at = `spec.ports[${String(i)}]`;
    const name = typeof p['name'] === 'string' ? p['name'] : '';
    if (ports.length > 1 && name === '')
      causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${at}.name` });
    else if (name !== '') {
      for (const msg of dns1123LabelErrors(name)) causes.push(invalidCause(`${at}.name`, name, msg));
      if (names.has(name))
        causes.push({
          reason: 'FieldValueDuplicate',
          message: `Duplicate value: ${goQuote(name)}`,
          field: `${at}.name`,
        });
      names.add(name);
    }
    causes.push(...portNumCauses(`${at}.port`, p['port']));
    const protocol = typeof p['protocol'] === 'string' ? p['protocol'] : '';
    if (protocol === '')
      causes.push({ reason: 'FieldValueRequired', message: 'Required value', field: `${at}.protocol` });
    else if (!PROTOCOLS.includes(protocol)) {
      causes.push({
        reason: 'FieldValueNotSupported',
        message: `Unsupported value: ${goQuote(protocol)}: supported values: ${PROTOCOLS.map(goQuote).join(', ')}`,
        field: `${at}.protocol`,
      });
    }
    if (typeof p['targetPort'] === 'number')
      causes.push(...portNumCauses(`${at}.targetPort`, p['targetPort']));
  });
  if (isObject(spec['selector'])) causes.push(...validateLabels(spec['selector'], 'spec.selector'));
  const type = typeof spec['type'] === 'string' ? spec['type'] : '';
  if (!TYPES.includes(type)) {
    causes.push({
      reason: 'FieldValueNotSupported',
      message: `Unsupported value: ${goQuote(type)}: supported values: ${TYPES.map(goQuote).join(', ')}`,
      field: 'spec.type',
    });
  }
  return causes;
}

function goStringMap(m: unknown): string {
  if (!isObject(m) || Object.keys(m).length === 0) return 'map[string]string(nil)';
  const body = Object.keys(m)
    .sort()
    .map((k) => `${goQuote(k)}:${goQuote(typeof m[k] === 'string' ? m[k] : '')}`)
    .join(', ');
  return `map[string]string{${body}}`;
}

function goRequirements(v: unknown): string {
  if (!Array.isArray(v) || v.length === 0) return '[]v1.LabelSelectorRequirement(nil)';
  const items = v.map((r) => {
    const req = isObject(r) ? r : {};
    const values = Array.isArray(req['values'])
      ? `[]string{${req['values'].map((x) => goQuote(typeof x === 'string' ? x : JSON.stringify(x))).join(', ')}}`
      : '[]string(nil)';
    const text = (x: unknown): string => (typeof x === 'string' ? x : '');
    return `v1.LabelSelectorRequirement{Key:${goQuote(text(req['key']))}, Operator:${goQuote(text(req['operator']))}, Values:${values}}`;
  });
  return `[]v1.LabelSelectorRequirement{${items.join(', ')}}`;
}

/** Go's `%#v` of a `*v1.LabelSelector` as field errors print it. */
function goLabelSelector(v: unknown): string {
  if (!isObject(v)) return 'null';
  return `v1.LabelSelector{MatchLabels:${goStringMap(v['matchLabels'])}, MatchExpressions:${goRequirements(v['matchExpressions'])}}`;
}

/** apps/v1: a Deployment's `spec.selector` cannot change. */
export function deploymentSelectorImmutable(next: KObj, old: KObj): StatusCause[] {
  const a = specOf(next)['selector'];
  const b = specOf(old)['selector'];
  if (JSON.stringify(a ?? null) === JSON.stringify(b ?? null)) return [];
  return [
    {
      reason: 'FieldValueInvalid',
      message: `Invalid value: ${goLabelSelector(a)}: field is immutable`,
      field: 'spec.selector',
    },
  ];
}
