/**
 * Issue 14, types: client-node's model types are accepted where objects are written, and
 * `FromModel<V1X>` is the wire shape rxkube's Stores and reconciles hold (timestamps as strings,
 * metadata present); resources typed by their kind type Stores and cache reads. Checked by tsc
 * (these assertions fail the typecheck, not only the run).
 */
import type { V1ConfigMap, V1Deployment } from '@kubernetes/client-node';
import { describe, expectTypeOf, it } from 'vitest';

import { applyChildren } from './children/apply-children.js';
import { setControllerReference } from './children/set-controller-reference.js';
import type { KubeClient } from './client/kube-client.js';
import type { Controller } from './controller/controller.js';
import { controller } from './controller/controller.js';
import type { StoreReader } from './reflector/store-reader.js';
import type { FromModel, KubeObject, ResourceType } from './types.js';

type Deployment = FromModel<V1Deployment>;

describe('types (issue 14)', () => {
  it('FromModel<V1Deployment> is a KubeObject with string timestamps and present metadata', () => {
    expectTypeOf<Deployment>().toMatchTypeOf<KubeObject>();
    expectTypeOf<Deployment['metadata']['creationTimestamp']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<NonNullable<Deployment['spec']>['replicas']>().toEqualTypeOf<number | undefined>();
    expectTypeOf<
      NonNullable<NonNullable<Deployment['status']>['conditions']>[number]['lastUpdateTime']
    >().toEqualTypeOf<string | undefined>();
  });

  it('controller<FromModel<V1Deployment>> types the reconcile object, Stores and cache by the kind', () => {
    const deployments: ResourceType<Deployment> = { apiVersion: 'apps/v1', kind: 'Deployment' };
    const build = (client: KubeClient): Controller<Deployment> =>
      controller<Deployment>({ for: deployments, client });
    expectTypeOf(build).returns.toEqualTypeOf<Controller<Deployment>>();
    expectTypeOf<Controller<Deployment>['stores']['primary']>().toEqualTypeOf<StoreReader<Deployment>>();
    type Of = Controller<Deployment>['stores']['of'];
    expectTypeOf<ReturnType<Of>>().toEqualTypeOf<StoreReader>();
  });

  it('model objects built with client-node types are accepted where objects are written', () => {
    const owner: KubeObject = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'o', uid: 'u', namespace: 'ns' },
    };
    const child: V1ConfigMap = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c', namespace: 'ns' },
      data: { a: 'b' },
    };
    expectTypeOf(setControllerReference(owner, child)).toEqualTypeOf<V1ConfigMap>();
    expectTypeOf(applyChildren).parameter(2).toMatchTypeOf<readonly V1ConfigMap[]>();
    const dep: V1Deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd' } };
    expectTypeOf<[V1Deployment]>().toMatchTypeOf<Parameters<typeof applyChildren>[2]>();
    void dep;
  });
});
