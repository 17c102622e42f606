/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-explicit-any -- discovery bodies are untyped JSON */
/**
 * The embedded server's discovery of the groups operators write (issue 18 §8) against a real
 * kube-apiserver v1.24: every resource the real server lists there is listed by the embedded one
 * with the same kind, verbs, short names, categories, namespaced flag and storage version hash,
 * unless {@link NOT_SERVED} names it with the reason. A kind added to kube-apiserver (or dropped
 * from the embedded server) fails here, so a gap is caught before `rxkube run --embedded` logs
 * 404s for it. Skipped, with the reason in its name and printed, without `KUBEBUILDER_ASSETS`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { REAL_TIER_HOW } from '../../backends/backends.js';
import { AdminClient } from '../../cluster/admin-client.js';
import { controlPlaneAssetsAvailable } from '../../control-plane/assets.js';
import type { ControlPlane } from '../../control-plane/control-plane.js';
import { startControlPlane } from '../../control-plane/control-plane.js';
import type { ApiServer } from '../../server.js';
import { startApiServer } from '../../server.js';

/** Real resources of these groups the embedded server leaves out on purpose, and why. */
const NOT_SERVED: Record<string, Record<string, string>> = {
  'api/v1': {
    bindings: 'the scheduler binds Pods; there is no scheduler',
    componentstatuses: 'probes of control-plane components; nothing stored',
    'nodes/proxy': 'no kubelet to connect to',
    'pods/attach': 'no kubelet to connect to',
    'pods/binding': 'the scheduler binds Pods; there is no scheduler',
    'pods/ephemeralcontainers': 'no kubelet runs containers',
    'pods/eviction': 'no disruption controller; delete the Pod',
    'pods/exec': 'no kubelet to connect to',
    'pods/portforward': 'no kubelet to connect to',
    'pods/proxy': 'no kubelet to connect to',
    'serviceaccounts/token': 'no token issuer',
    'services/proxy': 'no network to proxy to',
  },
  'apis/storage.k8s.io/v1': {
    csidrivers: 'cluster-scoped, installed with a CSI driver',
    csinodes: 'cluster-scoped, written by kubelets',
    volumeattachments: 'cluster-scoped, written by the attach/detach controller',
    'volumeattachments/status': 'volume attachments are not served',
  },
};

const GROUPS = [
  'api/v1',
  'apis/apps/v1',
  'apis/batch/v1',
  'apis/networking.k8s.io/v1',
  'apis/rbac.authorization.k8s.io/v1',
  'apis/policy/v1',
  'apis/autoscaling/v2',
  'apis/scheduling.k8s.io/v1',
  'apis/storage.k8s.io/v1',
  'apis/discovery.k8s.io/v1',
] as const;

const assets = controlPlaneAssetsAvailable(['etcd', 'kube-apiserver']);
const skipReason = assets.available ? '' : `skipped: no real control plane (${REAL_TIER_HOW})`;
if (skipReason) console.warn(`[served-kinds.differential] ${skipReason}`);

describe.skipIf(!assets.available)(
  `served kinds: embedded discovery vs real kube-apiserver v1.24${skipReason ? ` (${skipReason})` : ''}`,
  () => {
    let embedded: ApiServer;
    let real: ControlPlane;

    beforeAll(async () => {
      [embedded, real] = await Promise.all([
        startApiServer({ logger: { error: () => undefined } }),
        startControlPlane(),
      ]);
    }, 120_000);
    afterAll(async () => {
      await Promise.all([embedded?.stop(), real?.stop()]);
    });

    it.each(GROUPS)('%s lists what the real server lists, but for the named exceptions', async (gv) => {
      const [e, r] = await Promise.all([
        new AdminClient({ url: embedded.url, token: embedded.token }).request('GET', `/${gv}`),
        new AdminClient({ url: real.url, token: real.token, ca: real.ca }).request('GET', `/${gv}`),
      ]);
      expect(r.status, `real GET /${gv}`).toBe(200);
      expect(e.status, `embedded GET /${gv}`).toBe(200);

      const skip = NOT_SERVED[gv] ?? {};
      const byName = (b: any): Record<string, unknown> =>
        Object.fromEntries((b.resources as any[]).map((x) => [x.name, x]));
      const realServed = Object.fromEntries(Object.entries(byName(r.body)).filter(([n]) => !(n in skip)));
      const embeddedServed = byName(e.body);
      expect(embeddedServed).toEqual(realServed);
      // the exceptions are real resources, so a stale entry is noticed too
      for (const name of Object.keys(skip)) expect(byName(r.body), name).toHaveProperty([name]);
    });
  },
);
