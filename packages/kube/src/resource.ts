/**
 * Typed custom resources: `Resource<Spec, Status>`, the type `crdToTypeScript` generates for a
 * CRD's kind.
 *
 * @module
 */
import type { KubeObject } from './types.js';

/**
 * A custom resource with typed `spec` and `status`: a {@link KubeObject} whose `apiVersion` and
 * `kind` are always set (as the server returns them).
 *
 * ## Example
 * ```ts
 * interface WidgetSpec { size: number; color?: 'red' | 'blue' }
 * interface WidgetStatus { phase?: string; observedGeneration?: number }
 * type Widget = Resource<WidgetSpec, WidgetStatus>;
 *
 * const w = await client.get<Widget>({ apiVersion: 'example.com/v1', kind: 'Widget', namespace: 'default', name: 'w' });
 * w.spec?.size; // number | undefined
 * ```
 * Generate the `Spec`/`Status` interfaces from the CRD's schema with `crdToTypeScript` (or
 * `node node_modules/@rxkube/kube/dist/crd/gen-types.js crd.yaml > widget.ts`) rather than by hand.
 */
export interface Resource<Spec = unknown, Status = unknown> extends KubeObject<Spec, Status> {
  apiVersion: string;
  kind: string;
}
