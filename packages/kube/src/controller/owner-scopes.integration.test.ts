/**
 * Issue 18 §1 for a bare `controller()` (no Manager): an `owns` combination that cannot work — a
 * cluster-scoped child kind under a namespaced `for` kind — is refused with the Manager's
 * `InvalidArgumentError`: when `controller()` is called for built-in kinds, and through discovery
 * when the run starts for custom resources.
 */
import { Action } from '@rxkube/core';
import { describeEachBackend } from '@rxkube/testing/vitest';
import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, expect, it } from 'vitest';

import { KubeClient } from '../client/kube-client.js';
import { ensureCrd } from '../crd/ensure-crd.js';
import { InvalidArgumentError } from '../internal/invalid-argument.js';
import { controller } from './controller.js';

const CM = { apiVersion: 'v1', kind: 'ConfigMap' } as const;
const NS = { apiVersion: 'v1', kind: 'Namespace' } as const;
const CLUSTER_ROLE = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole' } as const;
const GADGET = { apiVersion: 'scopes.example.com/v1', kind: 'Gadget' } as const;

/** A cluster-scoped custom kind: only discovery knows its scope. */
const gadgetCrd = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'gadgets.scopes.example.com' },
  spec: {
    group: 'scopes.example.com',
    scope: 'Cluster',
    names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      },
    ],
  },
};

const REFUSED = /options\.owns\[1\].*must not be cluster-scoped under the namespaced ConfigMap/;

describeEachBackend(
  'controller(): owns of an impossible scope (over HTTP)',
  (b) => {
    let client: KubeClient;
    beforeAll(async () => {
      client = KubeClient.fromKubeConfig(b.cluster.kubeConfig);
      await ensureCrd(client, gadgetCrd);
    });
    afterAll(() => {
      client.close();
    });

    it('a built-in cluster-scoped child under a namespaced owner is refused when controller() is called', () => {
      const build = () =>
        controller({
          name: 'cms',
          for: CM,
          owns: [{ apiVersion: 'v1', kind: 'Secret' }, CLUSTER_ROLE],
          client,
        });
      expect(build).toThrow(InvalidArgumentError);
      expect(build).toThrow(/^controller\("cms"\): options\.owns\[1\]/);
      expect(build).toThrow(REFUSED);
      // the same entry as { resource }, and without a name
      expect(() => controller({ for: CM, owns: [CM, { resource: CLUSTER_ROLE }], client })).toThrow(
        /^controller: options\.owns\[1\].*must not be cluster-scoped under the namespaced ConfigMap/,
      );
    });

    it('a custom cluster-scoped child under a namespaced owner ends the run with the same error (discovery)', async () => {
      const ctl = controller({
        name: 'cms',
        for: CM,
        owns: [CM, GADGET],
        namespace: 'default',
        client,
        log: {},
      });
      const ran = firstValueFrom(ctl.run(() => [Action.awaitChange()]));
      await expect(ran).rejects.toBeInstanceOf(InvalidArgumentError);
      await expect(ran).rejects.toThrow(REFUSED);
    });

    it('the combinations that work are not refused: a cluster-scoped owner of either scope', () => {
      expect(() => controller({ for: NS, owns: [CM, CLUSTER_ROLE], client })).not.toThrow();
      expect(() => controller({ for: GADGET, owns: [CM, CLUSTER_ROLE], client })).not.toThrow();
    });
  },
  { controllerManager: false },
);
