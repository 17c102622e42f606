/**
 * A {@link Client} for marble tests: the verbs given answer `cold()` observables, the others throw
 * naming the verb. The status writer, the finalizer and the Event recorder take a verb's answer
 * through `from()`, so an Observable serves; TestScheduler cannot virtualise the Promises a
 * `KubeClient` returns. (`ctx.client`/`ctx.patch` await theirs: test those over HTTP or with
 * `stubClient()`.)
 */
import type { Observable } from 'rxjs';

import type { ObjectRef } from '../types.js';
import type { Client } from './client.js';
import type { GetOptions, Patch, PatchOptions } from './verb-options.js';

/** The scripted verbs of a {@link marbleClient}. */
export interface MarbleVerbs {
  readonly patch?: (ref: ObjectRef, patch: Patch, options?: PatchOptions) => Observable<unknown>;
  readonly get?: (ref: ObjectRef, options?: GetOptions) => Observable<unknown>;
  readonly create?: (object: unknown) => Observable<unknown>;
}

export function marbleClient(verbs: MarbleVerbs): Client {
  const missing = (verb: string) => (): never => {
    throw new Error(`marbleClient: ${verb} was called but not scripted`);
  };
  return {
    get: verbs.get ?? missing('get'),
    list: missing('list'),
    create: verbs.create ?? missing('create'),
    replace: missing('replace'),
    patch: verbs.patch ?? missing('patch'),
    apply: missing('apply'),
    delete: missing('delete'),
    discovery: { resolve: missing('discovery.resolve') },
  } as unknown as Client;
}
