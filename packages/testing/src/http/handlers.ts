/**
 * HTTP handlers of resource requests (already authorized, see `server.ts`): verb resolution, scope
 * and subresource checks, content negotiation, the create-only review kinds, and the get/list/watch/create/update/patch/delete/deletecollection answers
 * with the real response shapes (list envelopes, metadata-only bodies, delete results).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { AdmissionAttributes, AdmissionEnv, ServiceResolver } from '../admission/webhooks.js';
import { admit, currentObject } from '../admission/webhooks.js';
import type { ConversionPlan } from '../admission/conversion.js';
import {
  asStorageVersion,
  conversionFor,
  conversionUnsupported,
  convertForAdmission,
  convertThroughWebhook,
  managedFieldsInRequestVersion,
  patchConverted,
  withServedVersions,
} from '../admission/conversion.js';
import type { RequestUser } from '../auth.js';
import { sanitize } from '../handlers/decode.js';
import { checkDeletable } from '../handlers/delete.js';
import type { Engine, ListOptions, ListResult } from '../handlers/engine.js';
import type { DeleteResult, WriteResult } from '../handlers/engine-types.js';
import { parseResourceVersion } from '../handlers/engine.js';
import { checkPatchContentType, commitApply, mergeApply } from '../handlers/patch.js';
import type { WatchParams, WatchView } from '../handlers/watch.js';
import { WatchSession } from '../handlers/watch.js';
import { decodeProtobufBody, speaksProtobuf } from '../protobuf/codec.js';
import type { Authorizer } from '../rbac/authorizer.js';
import type { Registry } from '../registry/registry.js';
import type { ResourceType } from '../registry/types.js';
import {
  ApiError,
  conflict,
  crdTerminating,
  deleteSuccess,
  genericNotFound,
  methodNotAllowed,
  resourceVersionTooLarge,
  unsupportedBodyMediaType,
} from '../status.js';
import type { Json, KObj } from '../store/object.js';
import { isObject, typedObjectMeta } from '../store/object.js';
import type { Negotiated } from './negotiate.js';
import { checkShape, negotiateOutput } from './negotiate.js';
import type { DeleteQuery, ListQuery, WriteQuery } from './options.js';
import { createOptions, deleteOptions, goBool, listOptions, patchOptions, updateOptions } from './options.js';
import type { InputMediaType, Representation, ResourceRoute } from './request.js';
import { handleSubresource } from './subresources.js';
import type { IncludeObject } from '../table/table.js';
import { parseIncludeObject, tableOf } from '../table/table.js';
import { inputMediaType, readBody } from './request.js';
import type { ResponseContext } from './respond.js';
import { sendBody, sendPageNotFound } from './respond.js';

/** Everything a resource handler needs from the server. */
export interface HandlerEnv {
  readonly engine: Engine;
  readonly registry: Registry;
  /** Answers the authorization reviews (the requests themselves are authorized before routing). */
  readonly authorizer: Authorizer;
  readonly gc: boolean;
  readonly maxBodyBytes: number;
  readonly bookmarkIntervalMs: number;
  readonly maxQueuedWatchEvents: number;
  /** Serve streaming lists (WatchList) as Kubernetes 1.34 does; off: as 1.24. */
  readonly watchList: boolean;
  readonly watches: Set<WatchSession>;
  /** Consumes a pending "expire the next watch" fault. */
  takeWatchExpiry(): boolean;
  /** Called when a watch was cut mid-line. */
  onStreamCut(): void;
  /** Resolves webhooks' `clientConfig.service` (admission/webhooks.ts). */
  readonly resolveService?: ServiceResolver;
}

/** One resource request. */
export interface ResourceRequest {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly route: ResourceRoute;
  readonly query: URLSearchParams;
  readonly user: RequestUser;
  readonly ctx: ResponseContext;
}

const CRD_STORAGE_KEY = 'apiextensions.k8s.io/customresourcedefinitions';

type Verb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';

/** Handles a request addressed to a resource path. */
export async function handleResource(env: HandlerEnv, r: ResourceRequest): Promise<void> {
  const { route, req, res, query, ctx } = r;
  const { registry } = env;
  if (!registry.servesGroupVersion(route.group, route.version)) {
    sendPageNotFound(res, ctx);
    return;
  }
  const type = registry.lookup(route.group, route.version, route.resource);
  if (!type) throw new ApiError(genericNotFound());
  if (!type.namespaced && route.namespace !== undefined) throw new ApiError(genericNotFound());
  if (type.namespaced && route.namespace === undefined && route.name !== undefined)
    throw new ApiError(genericNotFound());
  const extraSubresource =
    route.subresource !== undefined &&
    route.subresource !== 'status' &&
    (type.subresources ?? []).some((sub) => sub.name === route.subresource);
  if (
    route.subresource !== undefined &&
    !extraSubresource &&
    (route.subresource !== 'status' || !type.hasStatus || route.name === undefined)
  ) {
    throw new ApiError(genericNotFound());
  }
  if (extraSubresource && route.name === undefined) throw new ApiError(genericNotFound());
  const method = (req.method ?? 'GET').toUpperCase();
  let verb: Verb;
  if (route.name === undefined) {
    if (method === 'GET') verb = route.legacyWatch || goBool(query.get('watch')) ? 'watch' : 'list';
    else if (method === 'POST') verb = 'create';
    else if (method === 'DELETE') verb = 'deletecollection';
    else throw new ApiError(methodNotAllowed());
  } else {
    if (method === 'GET') verb = route.legacyWatch || goBool(query.get('watch')) ? 'watch' : 'get';
    else if (method === 'PUT') verb = 'update';
    else if (method === 'PATCH') verb = 'patch';
    else if (method === 'DELETE') verb = 'delete';
    else throw new ApiError(methodNotAllowed());
  }
  if (route.subresource && verb !== 'get' && verb !== 'update' && verb !== 'patch')
    throw new ApiError(methodNotAllowed());
  if (!route.subresource && !type.verbs.includes(verb)) throw new ApiError(methodNotAllowed());
  if (type.namespaced && route.namespace === undefined && verb !== 'list' && verb !== 'watch') {
    throw new ApiError(methodNotAllowed());
  }
  // a PATCH's content type is checked before anything else (handlers/patch.go, go-restful)
  if (verb === 'patch' && !extraSubresource) checkPatchContentType(type, req.headers['content-type'] ?? '');
  const negotiated = negotiateOutput(req.headers.accept, {
    // the message table is built on first use: JSON-only clients never pay for it
    protobuf: /protobuf/i.test(req.headers.accept ?? '') && speaksProtobuf(type),
    watch: verb === 'watch',
  });
  if (verb === 'get' || verb === 'list' || verb === 'deletecollection')
    checkShape(negotiated, type, verb !== 'get');
  const media = negotiated.media;
  const rep: Presentation =
    negotiated.as === 'Table'
      ? {
          as: 'Table',
          include: parseIncludeObject(query.get('includeObject')),
          now: tableNow(env),
          metaVersion: negotiated.metaVersion,
        }
      : { as: negotiated.as, metaVersion: negotiated.metaVersion };
  const user = r.user;
  const sub = route.subresource === 'status' ? ('status' as const) : undefined;
  const { engine } = env;
  const ns = route.namespace;
  const name = route.name ?? '';
  const manager = (opts: WriteQuery): string => opts.fieldManager ?? userAgentManager(req);

  if (extraSubresource && route.subresource !== undefined) {
    const opts =
      method === 'PATCH'
        ? patchOptions(query, false)
        : method === 'PUT'
          ? updateOptions(query)
          : { fieldManager: undefined, dryRun: false };
    await handleSubresource({
      engine,
      type,
      subresource: route.subresource,
      method,
      namespace: ns,
      name,
      query,
      contentType: req.headers['content-type'] ?? '',
      body: () => readBody(req, env.maxBodyBytes),
      manager: manager(opts),
      dryRun: opts.dryRun,
      res,
      ctx,
    });
    return;
  }

  const plan = conversionFor(admissionEnv(env), type);
  if (plan !== undefined) {
    await handleConverted(env, r, plan, verb, rep, negotiated, manager);
    return;
  }

  switch (verb) {
    case 'get': {
      const rv = query.get('resourceVersion');
      if (rv !== null && rv !== '') {
        const n = parseResourceVersion(rv, `resourceVersion: Invalid value: ${JSON.stringify(rv)}: `);
        const current = engine.store.resourceVersion;
        // a get at a resourceVersion not reached yet waits for it, then times out like a list
        if (n > current) throw new ApiError(resourceVersionTooLarge(n, current), { 'Retry-After': '1' });
      }
      const o = engine.getStored(type, ns, name);
      sendBody(res, 200, presentOne(engine, type, o, rep), ctx, media);
      return;
    }
    case 'list': {
      const result = engine.list(type, ns, engineListOptions(listOptions(query, false, env.watchList)));
      sendBody(res, 200, listBody(engine, type, result, rep), ctx, media);
      return;
    }
    case 'watch': {
      startWatch(env, r, type, negotiated, rep, listOptions(query, true, env.watchList));
      return;
    }
    case 'create': {
      const bodyMedia = requireInputMediaType(req);
      const buf = await readBody(req, env.maxBodyBytes);
      const opts = createOptions(query);
      if (type.virtualCreate) {
        const body = decodeWriteBody(engine, type, buf, bodyMedia);
        engine.checkTypeMeta(type, body);
        engine.checkNamespace(type, body, ns);
        const answer = type.virtualCreate(sanitize(type, body), {
          namespace: ns,
          user,
          authorizer: env.authorizer,
          manager: manager(opts),
          now: engine.nowIso(),
        });
        sendBody(res, 201, answer, ctx, media);
        return;
      }
      // apiextensions' crdHandler: no new custom resources while their CRD is terminating
      if (type.crd !== undefined && engine.store.get(CRD_STORAGE_KEY, type.crd)?.metadata.deletionTimestamp)
        throw new ApiError(crdTerminating(type));
      const body = decodeWriteBody(engine, type, buf, bodyMedia);
      engine.checkTypeMeta(type, body);
      const write = (dryRun: boolean, object?: KObj): WriteResult =>
        engine.create(type, ns, object ?? body, { manager: manager(opts), dryRun, user });
      await admitAndWrite(env, r, {
        attributes: writeAttributes(
          'CREATE',
          type,
          ns,
          body.metadata.name ?? '',
          undefined,
          user,
          opts.dryRun,
          'CreateOptions',
          opts.fieldManager,
        ),
        old: undefined,
        write,
        present: (result) => presentOne(engine, type, result.object, rep, true),
        media,
      });
      return;
    }
    case 'update': {
      const buf = await readBody(req, env.maxBodyBytes);
      const opts = updateOptions(query);
      const body = decodeWriteBody(engine, type, buf, requireInputMediaType(req));
      engine.checkTypeMeta(type, body);
      const write = (dryRun: boolean, object?: KObj): WriteResult =>
        engine.update(type, ns, name, object ?? body, {
          manager: manager(opts),
          dryRun,
          subresource: sub,
          user,
        });
      const old = currentObject(engine, type, ns, name);
      await admitAndWrite(env, r, {
        // PUT that creates (create-on-update kinds) is a CREATE to admission
        attributes: upsertAttributes(old, type, ns, name, sub, user, opts.dryRun, opts.fieldManager),
        old,
        write,
        present: (result) => presentOne(engine, type, result.object, rep, true),
        media,
      });
      return;
    }
    case 'patch': {
      const contentType = req.headers['content-type'] ?? '';
      const buf = await readBody(req, env.maxBodyBytes);
      const opts = patchOptions(query, contentType.startsWith('application/apply-patch+yaml'));
      const patchOpts = {
        manager: manager(opts),
        subresource: sub,
        user,
        force: opts.force,
        fieldManagerGiven: opts.fieldManager !== undefined,
      };
      const old = currentObject(engine, type, ns, name);
      // a mutated patch is written as the whole object (an update): see admission/webhooks.ts
      const write = (dryRun: boolean, object?: KObj): WriteResult =>
        object !== undefined
          ? engine.update(type, ns, name, object, {
              manager: patchOpts.manager,
              dryRun,
              subresource: sub,
              user,
            })
          : engine.patch(type, ns, name, contentType, buf, { ...patchOpts, dryRun });
      await admitAndWrite(env, r, {
        // a patch that creates (server-side apply) is a CREATE to admission
        attributes: upsertAttributes(old, type, ns, name, sub, user, opts.dryRun, opts.fieldManager),
        old,
        write,
        present: (result) => presentOne(engine, type, result.object, rep, true),
        media,
      });
      return;
    }
    case 'delete': {
      const opts = await readDeleteOptions(env, req, query, type);
      const warnings: string[] = [];
      const result = await deleteAdmitted(env, r, type, undefined, name, name, opts, warnings);
      sendWarnings(res, warnings);
      if (result.gone) {
        sendBody(res, 200, deleteSuccess(type, name, result.last.metadata.uid ?? ''), ctx, media);
      } else {
        // 202 when cascading deletion was asked for the legacy way and the object stays (handlers/delete.go)
        const code = opts.orphanDependents === false ? 202 : 200;
        sendBody(res, code, presentOne(engine, type, result.object, rep, true), ctx, media);
      }
      return;
    }
    case 'deletecollection': {
      const list = listOptions(query, false, env.watchList);
      const opts = await readDeleteOptions(env, req, query, type);
      const listed = engine.list(type, ns, engineListOptions(list));
      const warnings = await deleteItems(env, r, type, undefined, listed.items, opts);
      sendWarnings(res, warnings);
      // store.DeleteCollection answers the list as it was listed, before the deletions
      sendBody(res, 200, listBody(engine, type, listed, rep), ctx, media);
      return;
    }
  }
}

/**
 * Server-side apply in a non-storage version (handlers/patch.go `applyPatcher`): the stored
 * object converted to the request's version, the apply merged there (the applier's
 * managedFields entry at the request's apiVersion, other managers' changes compared in the
 * version each wrote), the result converted back to the storage version, admitted and written.
 */
async function applyConverted(
  env: HandlerEnv,
  r: ResourceRequest,
  plan: ConversionPlan,
  rep: Presentation,
  media: Negotiated['media'],
  manager: (opts: WriteQuery) => string,
): Promise<void> {
  const { req, route, query, user } = r;
  const { engine } = env;
  const aenv = admissionEnv(env);
  const { storageType, requestType: type } = plan;
  const ns = route.namespace;
  const name = route.name ?? '';
  const sub = route.subresource === 'status' ? ('status' as const) : undefined;
  const buf = await readBody(req, env.maxBodyBytes);
  const opts = patchOptions(query, true);
  const applyOpts = {
    manager: manager(opts),
    subresource: sub,
    user,
    force: opts.force,
    fieldManagerGiven: opts.fieldManager !== undefined,
  };
  const old = currentObject(engine, storageType, ns, name);
  const live =
    old === undefined
      ? undefined
      : (
          await convertThroughWebhook(
            aenv,
            plan,
            [asStorageVersion(plan, engine.getStored(storageType, ns, name))],
            type,
          )
        )[0];
  const merged = await withServedVersions(aenv, plan, (versions) =>
    mergeApply(engine, type, ns, name, buf, applyOpts, () => live, versions),
  );
  const [candidate] = await convertThroughWebhook(aenv, plan, [merged.candidate], storageType);
  const write = (dryRun: boolean, object?: KObj): WriteResult => {
    // the apply was merged into `old`: a write in between is a conflict (the real server retries)
    const now = currentObject(engine, storageType, ns, name);
    if (now?.metadata.resourceVersion !== old?.metadata.resourceVersion)
      throw new ApiError(conflict(storageType, name));
    return object !== undefined
      ? engine.update(storageType, ns, name, object, {
          manager: applyOpts.manager,
          dryRun,
          subresource: sub,
          user,
        })
      : commitApply(
          engine,
          storageType,
          ns,
          name,
          { candidate: structuredClone(candidate as KObj), applied: merged.applied },
          { ...applyOpts, dryRun },
        );
  };
  await admitAndWrite(env, r, {
    attributes: upsertAttributes(old, type, ns, name, sub, user, opts.dryRun, opts.fieldManager),
    old: live,
    write,
    present: async (result) => presentOne(engine, type, await back(result.object), rep, true),
    media,
    versions: { toRequest: back, toStorage: async (o) => forward(aenv, plan, o) },
  });

  async function back(o: KObj): Promise<KObj> {
    return (await convertThroughWebhook(aenv, plan, [asStorageVersion(plan, o)], type))[0] as KObj;
  }
}

/**
 * A request in a non-storage version of a CRD with a conversion webhook (admission/conversion.ts):
 * read and written as the storage version, converted through the webhook both ways.
 */
async function handleConverted(
  env: HandlerEnv,
  r: ResourceRequest,
  plan: ConversionPlan,
  verb: Verb,
  rep: Presentation,
  negotiated: Negotiated,
  manager: (opts: WriteQuery) => string,
): Promise<void> {
  const { req, res, route, query, user, ctx } = r;
  const media = negotiated.media;
  const { engine } = env;
  const aenv = admissionEnv(env);
  const { storageType, requestType: type } = plan;
  const ns = route.namespace;
  const name = route.name ?? '';
  const sub = route.subresource === 'status' ? ('status' as const) : undefined;
  const back = async (o: KObj): Promise<KObj> =>
    (await convertThroughWebhook(aenv, plan, [asStorageVersion(plan, o)], type))[0] as KObj;
  switch (verb) {
    case 'get': {
      const o = engine.getStored(storageType, ns, name);
      sendBody(res, 200, presentOne(engine, type, await back(o), rep), ctx, media);
      return;
    }
    case 'list': {
      const result = engine.list(storageType, ns, engineListOptions(listOptions(query, false)));
      const items = await convertThroughWebhook(
        aenv,
        plan,
        result.items.map((o) => asStorageVersion(plan, o)),
        type,
      );
      sendBody(res, 200, listBody(engine, type, { ...result, items }, rep), ctx, media);
      return;
    }
    case 'watch': {
      // the storage version's watch, each event's object converted by its own review
      startWatch(env, r, storageType, negotiated, rep, listOptions(query, true, env.watchList), {
        responseType: type,
        toResponse: back,
      });
      return;
    }
    case 'patch': {
      // handlers/patch.go: the stored object is converted to the request's version, patched
      // there, converted back to the storage version, admitted and written as an update
      const contentType = req.headers['content-type'] ?? '';
      if (contentType.startsWith('application/apply-patch')) {
        await applyConverted(env, r, plan, rep, media, manager);
        return;
      }
      const buf = await readBody(req, env.maxBodyBytes);
      const opts = patchOptions(query, false);
      const current = await back(engine.getStored(storageType, ns, name));
      const patched = patchConverted(contentType, current, buf);
      const [stored] = await convertThroughWebhook(aenv, plan, [patched], storageType);
      // the field manager runs in the request's version: the entry names it, with its fields
      const managedFields = await managedFieldsInRequestVersion(
        aenv,
        plan,
        current,
        patched,
        manager(opts),
        sub,
      );
      const write = (dryRun: boolean, object?: KObj): WriteResult =>
        engine.update(storageType, ns, name, object ?? (stored as KObj), {
          manager: manager(opts),
          dryRun,
          subresource: sub,
          user,
          managedFields,
        });
      await admitAndWrite(env, r, {
        attributes: writeAttributes(
          'UPDATE',
          type,
          ns,
          name,
          sub,
          user,
          opts.dryRun,
          'UpdateOptions',
          opts.fieldManager,
        ),
        old: current,
        write,
        present: async (result) => presentOne(engine, type, await back(result.object), rep, true),
        media,
        versions: { toRequest: back, toStorage: async (o) => forward(aenv, plan, o) },
      });
      return;
    }
    case 'create':
    case 'update': {
      const bodyMedia = requireInputMediaType(req);
      const buf = await readBody(req, env.maxBodyBytes);
      const opts = verb === 'create' ? createOptions(query) : updateOptions(query);
      const body = decodeWriteBody(engine, type, buf, bodyMedia);
      engine.checkTypeMeta(type, body);
      const [stored] = await convertThroughWebhook(aenv, plan, [body], storageType);
      const old = verb === 'update' ? currentObject(engine, storageType, ns, name) : undefined;
      // the field manager runs in the request's version: the entry names it, with its fields
      const live = old === undefined ? undefined : await back(engine.getStored(storageType, ns, name));
      const managedFields = await managedFieldsInRequestVersion(aenv, plan, live, body, manager(opts), sub);
      const write = (dryRun: boolean, object?: KObj): WriteResult =>
        verb === 'create'
          ? engine.create(storageType, ns, object ?? (stored as KObj), {
              manager: manager(opts),
              dryRun,
              user,
              managedFields,
            })
          : engine.update(storageType, ns, name, object ?? (stored as KObj), {
              manager: manager(opts),
              dryRun,
              subresource: sub,
              user,
              managedFields,
            });
      const operation = old === undefined ? 'CREATE' : 'UPDATE';
      await admitAndWrite(env, r, {
        attributes: writeAttributes(
          operation,
          type,
          ns,
          body.metadata.name ?? name,
          sub,
          user,
          opts.dryRun,
          operation === 'CREATE' ? 'CreateOptions' : 'UpdateOptions',
          opts.fieldManager,
        ),
        old: live,
        write,
        present: async (result) => presentOne(engine, type, await back(result.object), rep, true),
        media,
        versions: { toRequest: back, toStorage: async (o) => forward(aenv, plan, o) },
      });
      return;
    }
    case 'delete': {
      const opts = await readDeleteOptions(env, req, query, type);
      const warnings: string[] = [];
      const result = await deleteAdmitted(env, r, type, plan, name, name, opts, warnings);
      sendWarnings(res, warnings);
      if (result.gone) {
        sendBody(res, 200, deleteSuccess(type, name, result.last.metadata.uid ?? ''), ctx, media);
      } else {
        const code = opts.orphanDependents === false ? 202 : 200;
        sendBody(res, code, presentOne(engine, type, await back(result.object), rep, true), ctx, media);
      }
      return;
    }
    case 'deletecollection': {
      // the storage version's deletecollection; the list as it was listed, encoded (converted)
      // to the request's version like a list
      const list = listOptions(query, false, env.watchList);
      const opts = await readDeleteOptions(env, req, query, type);
      const listed = engine.list(storageType, ns, engineListOptions(list));
      const warnings = await deleteItems(env, r, type, plan, listed.items, opts);
      sendWarnings(res, warnings);
      const items = await convertThroughWebhook(
        aenv,
        plan,
        listed.items.map((o) => asStorageVersion(plan, o)),
        type,
      );
      sendBody(res, 200, listBody(engine, type, { ...listed, items }, rep), ctx, media);
      return;
    }
    default:
      throw conversionUnsupported(plan, verb);
  }
}

/** An object in the request's version converted to the storage version through the webhook. */
async function forward(aenv: AdmissionEnv, plan: ConversionPlan, o: KObj): Promise<KObj> {
  return (await convertThroughWebhook(aenv, plan, [o], plan.storageType))[0] as KObj;
}

/** What {@link admitAndWrite} needs of one write. */
interface AdmittedWrite {
  /** The admission attributes (operation, type, name, user, dry run, options). */
  readonly attributes: AdmissionAttributes;
  /** The stored object (UPDATE), undefined for a CREATE. */
  readonly old: KObj | undefined;
  /**
   * Writes the request's object (`object` undefined) or the mutated one; `dryRun` true for the
   * admission chain's trial writes (the object as it would be stored, validated).
   */
  readonly write: (dryRun: boolean, object?: KObj) => WriteResult;
  /** The answer's body from the write's result. */
  readonly present: (result: WriteResult) => unknown;
  readonly media: Negotiated['media'];
  /**
   * A write in a non-storage version: admitted in the request's version, as kube-apiserver does
   * (`old` and the attributes' type in it). Converts what the trial writes store to the request's
   * version, and a mutated object back to the storage version before it is written.
   */
  readonly versions?: {
    readonly toRequest: (stored: KObj) => Promise<KObj>;
    readonly toStorage: (object: KObj) => Promise<KObj>;
  };
}

/**
 * The write path of create, update and patch: the admission chain (mutating webhooks on trial
 * writes of the object, then validating ones), the write of the admitted object, and the answer
 * with the webhooks' warnings. One place, so a check every write needs is added once.
 */
async function admitAndWrite(env: HandlerEnv, r: ResourceRequest, w: AdmittedWrite): Promise<void> {
  const v = w.versions;
  const { mutated, warnings } = await admit(admissionEnv(env), w.attributes, w.old, async (object) => {
    if (v === undefined) return w.write(true, object).object;
    const stored = w.write(true, object === undefined ? undefined : await v.toStorage(object)).object;
    return v.toRequest(stored);
  });
  const admitted = mutated === undefined || v === undefined ? mutated : await v.toStorage(mutated);
  const result = w.write(w.attributes.dryRun, admitted);
  sendWarnings(r.res, warnings);
  sendBody(r.res, result.code, await w.present(result), r.ctx, w.media);
}

function admissionEnv(env: HandlerEnv): AdmissionEnv {
  const aenv: AdmissionEnv = {
    engine: env.engine,
    registry: env.registry,
    ...(env.resolveService !== undefined ? { resolveService: env.resolveService } : {}),
    convert: (object, to) => convertForAdmission(aenv, object, to),
  };
  return aenv;
}

/**
 * One DELETE as kube-apiserver's registry runs it (`registry/store.go` `Delete`): the object's
 * existence and the preconditions first, then the admission webhooks on the stored object in the
 * request's version (converted through the CRD's webhook for a non-storage version: the CRD
 * handler's storage decodes to the request's version), then the deletion. `admissionName` is
 * the AdmissionRequest's `name`: empty for a deletecollection's items (its static attributes
 * carry none, `rest.AdmissionToValidateObjectDeleteFunc`). Webhook warnings join `warnings`.
 */
async function deleteAdmitted(
  env: HandlerEnv,
  r: ResourceRequest,
  type: ResourceType,
  plan: ConversionPlan | undefined,
  name: string,
  admissionName: string,
  opts: DeleteQuery,
  warnings: string[],
): Promise<DeleteResult> {
  const { engine } = env;
  const aenv = admissionEnv(env);
  const storageType = plan?.storageType ?? type;
  const ns = r.route.namespace;
  const stored = checkDeletable(engine, storageType, ns, name, opts);
  const old =
    plan === undefined
      ? engine.present(type, stored)
      : ((await convertThroughWebhook(aenv, plan, [asStorageVersion(plan, stored)], type))[0] as KObj);
  const admitted = await admit(
    aenv,
    writeAttributes(
      'DELETE',
      type,
      ns,
      admissionName,
      undefined,
      r.user,
      opts.dryRun === true,
      'DeleteOptions',
      undefined,
    ),
    old,
    undefined,
  );
  warnings.push(...admitted.warnings);
  return engine.delete(storageType, ns, name, opts, env.gc);
}

/**
 * The deletions of a deletecollection (`registry/store.go` `DeleteCollection` with
 * kube-apiserver's one worker, `--delete-collection-workers=1`): each listed item in the list's
 * order, admitted on its own ({@link deleteAdmitted}); an item deleted meanwhile is skipped; the
 * first failure — a webhook's denial — ends it, the items before it deleted and the rest kept.
 * Returns the webhooks' warnings.
 */
async function deleteItems(
  env: HandlerEnv,
  r: ResourceRequest,
  type: ResourceType,
  plan: ConversionPlan | undefined,
  items: readonly KObj[],
  opts: DeleteQuery,
): Promise<string[]> {
  const warnings: string[] = [];
  for (const o of items) {
    try {
      await deleteAdmitted(env, r, type, plan, o.metadata.name ?? '', '', opts, warnings);
    } catch (e) {
      // store.DeleteCollection: an item deleted meanwhile is not an error
      if (!(e instanceof ApiError && e.code === 404)) throw e;
    }
  }
  return warnings;
}

/**
 * The attributes of a write that updates `old`, or creates the object when nothing is stored (a
 * PUT of a create-on-update kind, an apply that creates): CREATE with CreateOptions, else UPDATE.
 */
function upsertAttributes(
  old: KObj | undefined,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  subresource: string | undefined,
  user: RequestUser,
  dryRun: boolean,
  fieldManager: string | undefined,
): AdmissionAttributes {
  const creates = old === undefined;
  return writeAttributes(
    creates ? 'CREATE' : 'UPDATE',
    type,
    namespace,
    name,
    subresource,
    user,
    dryRun,
    creates ? 'CreateOptions' : 'UpdateOptions',
    fieldManager,
  );
}

function writeAttributes(
  operation: AdmissionAttributes['operation'],
  type: ResourceType,
  namespace: string | undefined,
  name: string,
  subresource: string | undefined,
  user: RequestUser,
  dryRun: boolean,
  optionsKind: 'CreateOptions' | 'UpdateOptions' | 'DeleteOptions',
  fieldManager: string | undefined,
): AdmissionAttributes {
  return {
    operation,
    type,
    namespace: type.namespaced ? namespace : undefined,
    name,
    subresource,
    user,
    dryRun,
    options: {
      kind: optionsKind,
      apiVersion: 'meta.k8s.io/v1',
      ...(dryRun ? { dryRun: ['All'] } : {}),
      ...(fieldManager !== undefined ? { fieldManager } : {}),
    },
  };
}

/** Webhook warnings as kube-apiserver sends them (`Warning: 299 - "text"`). */
function sendWarnings(res: ServerResponse, warnings: readonly string[]): void {
  if (warnings.length === 0 || res.headersSent) return;
  res.setHeader(
    'Warning',
    warnings.map((w) => `299 - ${JSON.stringify(w)}`),
  );
}

/** The engine's list options from parsed ListOptions. */
function engineListOptions(q: ListQuery): ListOptions {
  return {
    labelSelector: q.labelSelector,
    fieldSelector: q.fieldSelector,
    shardSelector: q.shardSelector ?? null,
    limit: q.limit > 0 ? String(q.limit) : null,
    continue: q.continue,
    resourceVersion: q.resourceVersion,
    resourceVersionMatch: q.resourceVersionMatch,
  };
}

/** The body's negotiated media type, or 415. */
function requireInputMediaType(req: IncomingMessage): InputMediaType {
  const media = inputMediaType(req.headers['content-type']);
  if (media === undefined) throw new ApiError(unsupportedBodyMediaType());
  return media;
}

/** A create/update body in its negotiated media type: protobuf, JSON or YAML. */
function decodeWriteBody(engine: Engine, type: ResourceType, buf: Buffer, media: InputMediaType): KObj {
  if (media === 'protobuf') return decodeProtobufBody(type, buf);
  return engine.decode(type, buf, media === 'yaml');
}

/** The manager of a write without `fieldManager`: the User-Agent's first word (`wire-record/1.0` → `wire-record`). */
function userAgentManager(req: IncomingMessage): string {
  const ua = req.headers['user-agent'] ?? '';
  const first = ua.split('/')[0]?.trim() ?? '';
  return first === '' ? 'unknown' : first.slice(0, 128);
}

async function readDeleteOptions(
  env: HandlerEnv,
  req: IncomingMessage,
  query: URLSearchParams,
  type: ResourceType,
): Promise<DeleteQuery> {
  const buf = await readBody(req, env.maxBodyBytes);
  const media = buf.length > 0 ? requireInputMediaType(req) : undefined;
  return deleteOptions(query, buf, media, type.apiVersion);
}

/** How to present bodies: the negotiated representation, plus Table options. */
type Presentation =
  | { readonly as: Exclude<Representation, 'Table'>; readonly metaVersion: Negotiated['metaVersion'] }
  | {
      readonly as: 'Table';
      readonly include: IncludeObject;
      readonly now: number;
      readonly metaVersion: Negotiated['metaVersion'];
    };

/** Table and PartialObjectMetadata answers in `meta.k8s.io/v1beta1` (same shape, other apiVersion). */
function inMetaVersion(body: Json, version: Negotiated['metaVersion']): Json {
  if (version === 'v1') return body;
  const apiVersion = `meta.k8s.io/${version}`;
  const retag = (o: unknown): void => {
    if (isObject(o) && o['apiVersion'] === 'meta.k8s.io/v1') o['apiVersion'] = apiVersion;
  };
  retag(body);
  for (const item of Array.isArray(body['items']) ? body['items'] : []) retag(item);
  for (const row of Array.isArray(body['rows']) ? body['rows'] : []) if (isObject(row)) retag(row['object']);
  return body;
}

function tableNow(env: HandlerEnv): number {
  return env.engine.config.now();
}

/** The view of each watch event's object, from the negotiated representation. */
function watchView(env: HandlerEnv, n: Negotiated, rep: Presentation): WatchView {
  const apiVersion = `meta.k8s.io/${n.metaVersion}`;
  if (rep.as === 'Table') return { as: 'Table', include: rep.include, apiVersion, now: () => tableNow(env) };
  if (rep.as === 'object') return { as: 'object' };
  return { as: 'PartialObjectMetadata', apiVersion };
}

function partial(o: KObj): KObj {
  return {
    kind: 'PartialObjectMetadata',
    apiVersion: 'meta.k8s.io/v1',
    metadata: typedObjectMeta(o.metadata),
  };
}

/** One object for a response; `wire` = already in wire form. */
function presentOne(engine: Engine, type: ResourceType, o: KObj, rep: Presentation, wire = false): Json {
  const full = wire ? o : engine.present(type, o);
  if (rep.as === 'Table') {
    const meta = { resourceVersion: full.metadata.resourceVersion ?? '' };
    return inMetaVersion(tableOf(type, [full], meta, rep.include, rep.now), rep.metaVersion);
  }
  if (rep.as !== 'object') return inMetaVersion(partial(o), rep.metaVersion);
  return full;
}

/** The list envelope: built-ins without item TypeMeta, CRs with sorted keys and `continue: ""`. */
function listBody(engine: Engine, type: ResourceType, r: ListResult, rep: Presentation): Json {
  const meta: Json = { resourceVersion: String(r.resourceVersion) };
  if (r.shardInfo !== undefined) meta['shardInfo'] = { ...r.shardInfo };
  if (rep.as === 'Table') {
    if (r.continue !== undefined) meta['continue'] = r.continue;
    if (r.remainingItemCount !== undefined) meta['remainingItemCount'] = r.remainingItemCount;
    const objects = r.items.map((o) => engine.present(type, o));
    return inMetaVersion(tableOf(type, objects, meta, rep.include, rep.now), rep.metaVersion);
  }
  if (rep.as !== 'object') {
    if (r.continue !== undefined) meta['continue'] = r.continue;
    if (r.remainingItemCount !== undefined) meta['remainingItemCount'] = r.remainingItemCount;
    const list = {
      kind: 'PartialObjectMetadataList',
      apiVersion: 'meta.k8s.io/v1',
      metadata: meta,
      // kube-apiserver sends a nil Go slice as null (metav1.PartialObjectMetadataList.Items has no
      // omitempty): an empty metadata-only list is `"items": null`, as clients must expect
      items: r.items.length === 0 ? null : r.items.map(partial),
    };
    return inMetaVersion(list, rep.metaVersion);
  }
  if (type.builtin) {
    if (r.continue !== undefined) meta['continue'] = r.continue;
    if (r.remainingItemCount !== undefined) meta['remainingItemCount'] = r.remainingItemCount;
    const items = r.items.map((o) => {
      const { kind: _k, apiVersion: _a, ...rest } = type.fromStorage(o);
      return rest;
    });
    return { kind: type.listKind, apiVersion: type.apiVersion, metadata: meta, items };
  }
  const crMeta: Json = { continue: r.continue ?? '' };
  if (r.remainingItemCount !== undefined) crMeta['remainingItemCount'] = r.remainingItemCount;
  crMeta['resourceVersion'] = String(r.resourceVersion);
  if (r.shardInfo !== undefined) crMeta['shardInfo'] = { ...r.shardInfo };
  return {
    apiVersion: type.apiVersion,
    items: r.items.map((o) => engine.present(type, o)),
    kind: type.listKind,
    metadata: crMeta,
  };
}

function startWatch(
  env: HandlerEnv,
  r: ResourceRequest,
  type: ResourceType,
  negotiated: Negotiated,
  rep: Presentation,
  opts: ListQuery,
  convert?: WatchParams['convert'],
): void {
  const { route } = r;
  const { engine } = env;
  const selectors = engine.selectors(type, opts.labelSelector, opts.fieldSelector, opts.shardSelector);
  const rvText = opts.resourceVersion;
  let fromRv: number | undefined;
  if (rvText !== null && rvText !== '' && rvText !== '0') {
    fromRv = parseResourceVersion(rvText, `resourceVersion: Invalid value: ${JSON.stringify(rvText)}: `);
  }
  const ts = opts.timeoutSeconds ?? 0;
  const timeoutMs = ts > 0 ? ts * 1000 : 1800_000;
  const session = new WatchSession(
    r.res,
    engine,
    engine.store,
    {
      type,
      namespace: route.namespace,
      selectors,
      fromRv,
      initialEvents: opts.sendInitialEvents,
      bookmarks: opts.allowWatchBookmarks,
      timeoutMs,
      bookmarkIntervalMs: env.bookmarkIntervalMs,
      view: watchView(env, negotiated, rep),
      protobuf: negotiated.media === 'protobuf',
      maxQueuedEvents: env.maxQueuedWatchEvents,
      ...(convert !== undefined ? { convert } : {}),
    },
    (s) => env.watches.delete(s),
  );
  session.onCut = () => env.onStreamCut();
  env.watches.add(session);
  session.start(r.ctx.headers, env.takeWatchExpiry());
}
