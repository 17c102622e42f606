/**
 * A Gadget: a small CRD with two versions for the conversion webhook example — `v1` counts
 * `spec.size`, `v2` (stored, the hub) counts `spec.replicas` and adds `spec.paint` (v1 keeps it
 * in the annotation `example.com/paint` so a round trip loses nothing).
 *
 * @module
 */
import type { KubeObject, Resource } from '@rxkube/kube';
import type { Conversion } from '@rxkube/kube/webhook';

/** A Gadget in v1. */
export type GadgetV1 = Resource<{ size: number }>;
/** A Gadget in v2 (the hub, stored). */
export type GadgetV2 = Resource<{ replicas: number; paint?: string }>;

const PAINT = 'example.com/paint';

/** The Gadget conversions, hub v2. */
export const gadgetConversion: Conversion = {
  hub: 'v2',
  spokes: {
    v1: {
      toHub: (o: KubeObject): KubeObject => {
        const v1 = o as GadgetV1;
        const { [PAINT]: paint, ...annotations } = v1.metadata.annotations ?? {};
        return {
          ...v1,
          metadata: { ...v1.metadata, annotations },
          spec: { replicas: v1.spec?.size ?? 0, ...(paint !== undefined ? { paint } : {}) },
        };
      },
      fromHub: (o: KubeObject): KubeObject => {
        const v2 = o as GadgetV2;
        const paint = v2.spec?.paint;
        return {
          ...v2,
          metadata: {
            ...v2.metadata,
            annotations: { ...v2.metadata.annotations, ...(paint !== undefined ? { [PAINT]: paint } : {}) },
          },
          spec: { size: v2.spec?.replicas ?? 0 },
        };
      },
    },
  },
};

/** The Gadget CRD with its conversion webhook at `clientConfig`. */
export function gadgetCrd(clientConfig: {
  readonly url: string;
  readonly caBundle: string;
}): Record<string, unknown> {
  const version = (
    name: string,
    storage: boolean,
    spec: Record<string, unknown>,
  ): Record<string, unknown> => ({
    name,
    served: true,
    storage,
    schema: {
      openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: spec } },
      },
    },
  });
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
      versions: [
        version('v1', false, { size: { type: 'integer' } }),
        version('v2', true, { replicas: { type: 'integer' }, paint: { type: 'string' } }),
      ],
      conversion: {
        strategy: 'Webhook',
        webhook: { conversionReviewVersions: ['v1'], clientConfig },
      },
    },
  };
}
