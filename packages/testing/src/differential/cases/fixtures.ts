/**
 * Objects the differential cases share: CRDs (with and without a status subresource) and small
 * builders. Test support only.
 *
 * @module
 */

/** A namespaced CRD `<plural>.<group>` with a free-form schema, `v1`, optionally with `/status`. */
export function crd(group: string, plural: string, kind: string, status: boolean): unknown {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: plural.slice(0, -1), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          ...(status ? { subresources: { status: {} } } : {}),
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        },
      ],
    },
  };
}

/** Widgets: with a status subresource. */
export const WIDGETS = crd('diff.example.com', 'widgets', 'Widget', true);
/** Gadgets: without one. */
export const GADGETS = crd('diff.example.com', 'gadgets', 'Gadget', false);

export const cmPath = (ns: string): string => `/api/v1/namespaces/${ns}/configmaps`;
export const widgetPath = (ns: string): string => `/apis/diff.example.com/v1/namespaces/${ns}/widgets`;
export const gadgetPath = (ns: string): string => `/apis/diff.example.com/v1/namespaces/${ns}/gadgets`;
export const deploymentPath = (ns: string): string => `/apis/apps/v1/namespaces/${ns}/deployments`;

export const widget = (name: string, extra: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'diff.example.com/v1',
  kind: 'Widget',
  metadata: { name },
  spec: { a: 1 },
  ...extra,
});

export const deployment = (name: string, meta: Record<string, unknown> = {}): unknown => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, ...meta },
  spec: {
    selector: { matchLabels: { a: 'b' } },
    template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  },
});

export const MERGE = 'application/merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';
export const STRATEGIC = 'application/strategic-merge-patch+json';
export const APPLY = 'application/apply-patch+yaml';
/** Known difference: the Pod admission plugins' fields are not emulated. */
export const POD_ADMISSION =
  'admission plugins (Priority: priority/preemptionPolicy, DefaultTolerationSeconds: tolerations) are not emulated';
