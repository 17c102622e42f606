/**
 * Local checks of a CustomResourceDefinition: the rules of the apiextensions validation that catch
 * most mistakes before a request is sent. The API server remains the authority (it checks the
 * schema's structural rules, CEL, conversion); its 422 is reported the same way by `ensureCrd`.
 *
 * @module
 */
import type { CrdCause } from './invalid-crd-error.js';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Checks a CRD (plain JSON) and returns every problem found, as `{ field, message }`; empty when
 * it looks installable.
 *
 * ## Example
 * ```ts
 * validateCrd({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: {} });
 * // [{ field: 'metadata.name', message: 'is required: …' }, { field: 'spec', … }]
 * ```
 *
 * ## Semantics
 * Checks `apiVersion`/`kind`, `metadata.name` = `<plural>.<group>`, `spec.group` (a DNS subdomain
 * with a dot), `spec.names.plural`/`singular` (lowercase DNS labels), `spec.names.kind`/`listKind`
 * (set, start with a letter), `spec.scope` (`Namespaced` or `Cluster`), and `spec.versions`: at
 * least one, unique DNS-1035 names, at least one `served`, exactly one `storage`, and an
 * `schema.openAPIV3Schema` of `type: object` on every version.
 */
export function validateCrd(crd: unknown): CrdCause[] {
  const causes: CrdCause[] = [];
  const add = (field: string, message: string): void => {
    causes.push({ field, message });
  };
  if (!isRecord(crd)) {
    add('(root)', `must be an object (a CustomResourceDefinition); got ${describe(crd)}`);
    return causes;
  }
  if (crd['apiVersion'] !== 'apiextensions.k8s.io/v1') {
    add(
      'apiVersion',
      `must be "apiextensions.k8s.io/v1"; got ${describe(crd['apiVersion'])}` +
        (crd['apiVersion'] === 'apiextensions.k8s.io/v1beta1'
          ? ' (v1beta1 was removed in Kubernetes 1.22: move spec.validation/version into spec.versions[])'
          : ''),
    );
  }
  if (crd['kind'] !== 'CustomResourceDefinition') {
    add('kind', `must be "CustomResourceDefinition"; got ${describe(crd['kind'])}`);
  }
  const metadata = isRecord(crd['metadata']) ? crd['metadata'] : {};
  const spec = crd['spec'];
  if (!isRecord(spec)) {
    add('spec', `is required: an object with group, names, scope and versions; got ${describe(spec)}`);
    if (typeof metadata['name'] !== 'string' || metadata['name'] === '')
      add('metadata.name', 'is required: set it to "<spec.names.plural>.<spec.group>"');
    return causes;
  }
  const group = spec['group'];
  if (typeof group !== 'string' || group === '') {
    add('spec.group', 'is required: the API group of the custom resources, a domain such as "example.com"');
  } else if (!DNS_SUBDOMAIN.test(group) || !group.includes('.')) {
    add(
      'spec.group',
      `must be a lowercase DNS subdomain with at least one dot (e.g. "example.com"); got "${group}"`,
    );
  }
  const names = spec['names'];
  let plural: string | undefined;
  if (!isRecord(names)) {
    add('spec.names', 'is required: { plural, kind } at least (singular, listKind, shortNames optional)');
  } else {
    const p = names['plural'];
    if (typeof p !== 'string' || p === '')
      add('spec.names.plural', 'is required: the lowercase plural, e.g. "widgets"');
    else if (!DNS_LABEL.test(p))
      add('spec.names.plural', `must be a lowercase RFC 1123 label (a-z, 0-9, '-'); got "${p}"`);
    else plural = p;
    const singular = names['singular'];
    if (singular !== undefined && (typeof singular !== 'string' || !DNS_LABEL.test(singular)))
      add('spec.names.singular', `must be a lowercase RFC 1123 label when set; got ${describe(singular)}`);
    for (const f of ['kind', 'listKind'] as const) {
      const k = names[f];
      if (f === 'kind' && (typeof k !== 'string' || k === ''))
        add('spec.names.kind', 'is required: the CamelCase kind, e.g. "Widget"');
      else if (k !== undefined && (typeof k !== 'string' || !DNS_1035_LABEL.test(k.toLowerCase())))
        add(
          `spec.names.${f}`,
          `must start with a letter and contain only letters, digits and '-'; got ${describe(k)}`,
        );
    }
  }
  const name = metadata['name'];
  if (typeof name !== 'string' || name === '') {
    add(
      'metadata.name',
      `is required: set it to "${plural ?? '<spec.names.plural>'}.${typeof group === 'string' && group ? group : '<spec.group>'}"`,
    );
  } else if (
    plural !== undefined &&
    typeof group === 'string' &&
    group !== '' &&
    name !== `${plural}.${group}`
  ) {
    add(
      'metadata.name',
      `must be spec.names.plural + "." + spec.group = "${plural}.${group}"; got "${name}"`,
    );
  }
  const scope = spec['scope'];
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    add('spec.scope', `must be "Namespaced" or "Cluster"; got ${describe(scope)}`);
  }
  const versions = spec['versions'];
  if (!Array.isArray(versions) || versions.length === 0) {
    add(
      'spec.versions',
      'must list at least one version: { name, served: true, storage: true, schema: { openAPIV3Schema } }',
    );
    return causes;
  }
  const seen = new Set<string>();
  let storage = 0;
  let served = 0;
  versions.forEach((v: unknown, i) => {
    const at = `spec.versions[${String(i)}]`;
    if (!isRecord(v)) {
      add(at, `must be an object; got ${describe(v)}`);
      return;
    }
    const vname = v['name'];
    if (typeof vname !== 'string' || vname === '') add(`${at}.name`, 'is required, e.g. "v1" or "v1alpha1"');
    else if (!DNS_1035_LABEL.test(vname))
      add(
        `${at}.name`,
        `must be a DNS-1035 label (lowercase, starts with a letter), e.g. "v1"; got "${vname}"`,
      );
    else if (seen.has(vname)) add(`${at}.name`, `must be unique; "${vname}" is listed twice`);
    else seen.add(vname);
    if (typeof v['served'] !== 'boolean')
      add(`${at}.served`, `is required: true or false; got ${describe(v['served'])}`);
    else if (v['served']) served++;
    if (typeof v['storage'] !== 'boolean')
      add(`${at}.storage`, `is required: true or false; got ${describe(v['storage'])}`);
    else if (v['storage']) storage++;
    const schema = isRecord(v['schema']) ? v['schema']['openAPIV3Schema'] : undefined;
    if (!isRecord(schema))
      add(
        `${at}.schema.openAPIV3Schema`,
        'is required: every version of an apiextensions.k8s.io/v1 CRD needs a structural schema ' +
          '(use { type: object, x-kubernetes-preserve-unknown-fields: true } to accept anything)',
      );
    else if (schema['type'] !== 'object')
      add(
        `${at}.schema.openAPIV3Schema.type`,
        `must be "object" at the root; got ${describe(schema['type'])}`,
      );
  });
  if (served === 0) add('spec.versions', 'must have at least one version marked served: true');
  if (storage !== 1)
    add('spec.versions', `must have exactly one version marked storage: true; found ${String(storage)}`);
  return causes;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === undefined) return 'nothing';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  if (typeof v !== 'object') return typeof v;
  return 'an object';
}
