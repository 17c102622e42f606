import { Action } from '@rxkube/core';
import type { KubeObject, Manager, ObjectRef, ReconcileContext } from '@rxkube/kube';

/** The operator's name: the Manager's, the lease's, the field manager of its writes. */
export const name = 'greeter';

/** The part of a ConfigMap this operator reads and writes. */
export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** What the operator wants `data.greeting` to say. */
export const greetingFor = (cm: ConfigMap): string => `hello, ${cm.metadata.name ?? 'stranger'}`;

/**
 * Level-triggered: read the object as it is now and make it right. Nothing to do → no write, so
 * the echo of our own patch ends here.
 */
export async function reconcile(request: ObjectRef, ctx: ReconcileContext<ConfigMap>): Promise<Action> {
  const greeting = greetingFor(ctx.object);
  if (ctx.object.data?.greeting !== greeting) {
    await ctx.patch(request, { type: 'merge', body: { data: { greeting } } });
  }
  return Action.awaitChange();
}

/** What `rxkube run` calls: register the controllers. */
export function setup(mgr: Manager): void {
  mgr.add<ConfigMap>(
    'greeter',
    {
      for: { apiVersion: 'v1', kind: 'ConfigMap' },
      labelSelector: 'greet=true',
      permissions: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['patch'] }],
    },
    reconcile,
  );
}
