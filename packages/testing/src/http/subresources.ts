/**
 * Subresources besides `status`: `deployments/scale` (autoscaling/v1 Scale: GET, PUT, merge /
 * JSON / strategic merge PATCH), `pods/log` (GET) and `namespaces/finalize` (PUT), as kube-apiserver
 * v1.24 serves them.
 *
 * Does not: server-side apply to `/scale` (415), stream logs (there is no kubelet: a pod without
 * `spec.nodeName` answers an empty log like the real server; one with a node answers
 * `nodes "<node>" not found` because nodes are not emulated).
 *
 * @module
 */
import type { ServerResponse } from 'node:http';

import type { Engine } from '../handlers/engine.js';
import { applyJsonPatch, PatchError } from '../patch/json-patch.js';
import { applyMergePatch } from '../patch/merge-patch.js';
import { applyStrategicMergePatch } from '../patch/strategic-merge.js';
import type { ResourceType } from '../registry/types.js';
import {
  ApiError,
  badRequest,
  invalid,
  invalidGeneric,
  methodNotAllowed,
  notFound,
  unsupportedBodyMediaType,
  unsupportedMediaType,
} from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { isObject } from '../store/object.js';
import { selectorString } from '../table/printers/format.js';
import { validateFinalizers, validateKubeFinalizerNames } from '../validation/object-meta.js';
import { inputMediaType } from './request.js';
import type { ResponseContext } from './respond.js';
import { sendJson } from './respond.js';

/** What a subresource request carries. */
export interface SubresourceRequest {
  readonly engine: Engine;
  readonly type: ResourceType;
  readonly subresource: string;
  readonly method: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly query: URLSearchParams;
  readonly contentType: string;
  readonly body: () => Promise<Buffer>;
  readonly manager: string;
  readonly dryRun: boolean;
  readonly res: ServerResponse;
  readonly ctx: ResponseContext;
}

const SCALE_GROUP = { group: 'autoscaling', kind: 'Scale' };

/** A label map as `labels.SelectorFromSet(m).String()` writes it: `k=v` sorted, comma-joined. */
function mapSelectorString(selector: unknown): string {
  if (!isObject(selector)) return '';
  return Object.entries(selector)
    .map(([k, v]) => `${k}=${String(v)}`)
    .sort()
    .join(',');
}

/** The autoscaling/v1 Scale of a Deployment (wire form). */
export function scaleOf(o: KObj): Json {
  const spec = isObject(o['spec']) ? o['spec'] : {};
  const status = isObject(o['status']) ? o['status'] : {};
  const m = o.metadata;
  const metadata: Json = {};
  for (const k of ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const)
    if (m[k] !== undefined) metadata[k] = m[k];
  // a ReplicationController's selector is a plain label map (labels.SelectorFromSet)
  const selector =
    o['kind'] === 'ReplicationController'
      ? mapSelectorString(spec['selector'])
      : selectorString(spec['selector']);
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata,
    spec: { replicas: typeof spec['replicas'] === 'number' ? spec['replicas'] : 0 },
    status: {
      replicas: typeof status['replicas'] === 'number' ? status['replicas'] : 0,
      ...(selector !== '' ? { selector } : {}),
    },
  };
}

function parseJson(buf: Buffer): unknown {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch (e) {
    throw new ApiError(badRequest(e instanceof Error ? e.message : String(e)));
  }
}

/** Reads `spec.replicas` of a Scale body (422 like ValidateScale). */
function replicasOf(name: string, scale: unknown): { replicas: number; resourceVersion: string | undefined } {
  if (!isObject(scale))
    throw new ApiError(badRequest('the object provided is unrecognized (must be of type Scale)'));
  const meta = isObject(scale['metadata']) ? scale['metadata'] : {};
  if (meta['name'] !== undefined && meta['name'] !== name) {
    throw new ApiError(
      badRequest(
        `the name of the object (${typeof meta['name'] === 'string' ? meta['name'] : JSON.stringify(meta['name'])}) does not match the name on the URL (${name})`,
      ),
    );
  }
  const spec = isObject(scale['spec']) ? scale['spec'] : {};
  const replicas = spec['replicas'] ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
    throw new ApiError(
      badRequest(
        `Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`,
      ),
    );
  }
  if (replicas < 0) {
    throw new ApiError(
      invalid(SCALE_GROUP, name, [
        {
          reason: 'FieldValueInvalid',
          message: `Invalid value: ${String(replicas)}: must be greater than or equal to 0`,
          field: 'spec.replicas',
        },
      ]),
    );
  }
  const rv = meta['resourceVersion'];
  return { replicas, resourceVersion: typeof rv === 'string' ? rv : undefined };
}

async function scale(r: SubresourceRequest): Promise<void> {
  const { engine, type, namespace, name } = r;
  if (r.method === 'GET') {
    sendJson(r.res, 200, scaleOf(engine.present(type, engine.getStored(type, namespace, name))), r.ctx);
    return;
  }
  let desired: unknown;
  if (r.method === 'PUT') desired = parseJson(await r.body());
  else {
    const ct = r.contentType.split(';')[0]?.trim().toLowerCase() ?? '';
    const current = scaleOf(engine.present(type, engine.getStored(type, namespace, name)));
    const buf = await r.body();
    const patch = (): unknown => parseJson(buf);
    try {
      if (ct === 'application/merge-patch+json') desired = applyMergePatch(current, patch());
      else if (ct === 'application/json-patch+json') desired = applyJsonPatch(current, patch());
      else if (ct === 'application/strategic-merge-patch+json')
        desired = applyStrategicMergePatch(current, patch(), { group: 'autoscaling', kind: 'Scale' });
      else throw new ApiError(unsupportedMediaType());
    } catch (e) {
      if (e instanceof PatchError)
        throw new ApiError(e.kind === 'invalid' ? invalidGeneric() : badRequest(e.message));
      throw e;
    }
  }
  const { replicas, resourceVersion } = replicasOf(name, desired);
  const result = engine.updateScale(type, namespace, name, replicas, resourceVersion, {
    manager: r.manager,
    dryRun: r.dryRun,
  });
  sendJson(r.res, 200, scaleOf(result.object), r.ctx);
}

function podLog(r: SubresourceRequest): void {
  const pod = r.engine.present(r.type, r.engine.getStored(r.type, r.namespace, r.name));
  const spec = isObject(pod['spec']) ? pod['spec'] : {};
  const names = (list: unknown): string[] =>
    Array.isArray(list) ? list.filter(isObject).map((c) => String(c['name'])) : [];
  const containers = names(spec['containers']);
  const inits = names(spec['initContainers']);
  const container = r.query.get('container') ?? '';
  if (container === '') {
    if (containers.length === 0)
      throw new ApiError(badRequest(`a container name must be specified for pod ${r.name}`));
    if (containers.length > 1) {
      let msg = `a container name must be specified for pod ${r.name}, choose one of: [${containers.join(' ')}]`;
      if (inits.length > 0) msg += ` or one of the init containers: [${inits.join(' ')}]`;
      throw new ApiError(badRequest(msg));
    }
  } else if (![...containers, ...inits].includes(container)) {
    throw new ApiError(badRequest(`container ${container} is not valid for pod ${r.name}`));
  }
  const node = typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
  if (node !== '') throw new ApiError(notFound({ group: '', resource: 'nodes' }, node));
  // no host assigned: the real LocationStreamer answers an empty text/plain stream
  const res = r.res;
  res.statusCode = 200;
  res.setHeader('Cache-Control', 'no-cache, private');
  res.setHeader('Content-Type', 'text/plain');
  for (const [k, v] of Object.entries(r.ctx.headers)) res.setHeader(k, v);
  res.setHeader('Content-Length', '0');
  res.end();
}

async function finalize(r: SubresourceRequest): Promise<void> {
  const body = r.engine.decode(r.type, await r.body());
  r.engine.checkTypeMeta(r.type, body);
  if (body.metadata.name !== undefined && body.metadata.name !== r.name) {
    throw new ApiError(
      badRequest(
        `the name of the object (${body.metadata.name}) does not match the name on the URL (${r.name})`,
      ),
    );
  }
  const spec = isObject(body['spec']) ? body['spec'] : {};
  const finalizers = Array.isArray(spec['finalizers'])
    ? spec['finalizers'].filter((f): f is string => typeof f === 'string')
    : [];
  // ValidateNamespaceFinalizeUpdate: each name qualified, and standard when it has no domain
  const causes = finalizers.flatMap((f, i) => {
    const field = `spec.finalizers[${String(i)}]`;
    return [
      ...validateFinalizers([f], field),
      ...validateKubeFinalizerNames([f]).map((c) => ({ ...c, field })),
    ];
  });
  if (causes.length > 0) throw new ApiError(invalid(r.type, r.name, causes));
  if (r.dryRun) {
    sendJson(r.res, 200, r.engine.present(r.type, r.engine.getStored(r.type, undefined, r.name)), r.ctx);
    return;
  }
  sendJson(r.res, 200, r.engine.finalizeNamespace(r.type, r.name, finalizers, r.manager), r.ctx);
}

/** Serves one request to a subresource listed in `type.subresources`. */
export async function handleSubresource(r: SubresourceRequest): Promise<void> {
  const verbs = r.type.subresources?.find((s) => s.name === r.subresource)?.verbs ?? [];
  const verb =
    r.method === 'GET' ? 'get' : r.method === 'PUT' ? 'update' : r.method === 'PATCH' ? 'patch' : '';
  if (!verbs.includes(verb)) throw new ApiError(methodNotAllowed());
  // a PUT body is negotiated like any other (NegotiateInputSerializer)
  if (verb === 'update' && inputMediaType(r.contentType) === undefined)
    throw new ApiError(unsupportedBodyMediaType());
  if (r.subresource === 'scale') return scale(r);
  if (r.subresource === 'log') return podLog(r);
  if (r.subresource === 'finalize') return finalize(r);
  throw new ApiError(notFound(r.type, r.name));
}
