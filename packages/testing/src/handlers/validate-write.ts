/**
 * Validation of a write as the generic registry runs it: `rest.BeforeCreate` (the strategy's
 * checks first, the generic metadata checks only when they passed) and `rest.BeforeUpdate`
 * (`validateCommonFields`, then the strategy's passes, all in one 422); and the namespace
 * lifecycle admission check of a create.
 *
 * @module
 */
import { celCauses } from '../cel-validation.js';
import type { ResourceType } from '../registry/types.js';
import type { StatusCause } from '../status.js';
import { ApiError, invalid, namespaceTerminating, notFound } from '../status.js';
import type { Json, KObj } from '../store/object.js';
import type { MetaValidation } from '../validation/object-meta.js';
import { metaUpdateCauses, validateObjectMeta } from '../validation/object-meta.js';
import { validateAgainstSchema } from '../validation/schema.js';
import type { EngineCore as Engine } from './engine-types.js';

const DEFAULT_BUILTIN_META: MetaValidation = { flavor: 'core', onUpdate: 'update' };
const DEFAULT_CR_META: MetaValidation = { flavor: 'generic', onUpdate: 'update' };

function metaValidationOf(type: ResourceType): MetaValidation {
  return type.metaValidation ?? (type.builtin ? DEFAULT_BUILTIN_META : DEFAULT_CR_META);
}

/**
 * Create validation as `rest.BeforeCreate` runs it: the strategy's (metadata, type rules, schema,
 * hooks), then — only when that passed — the generic metadata checks with names as path segments.
 * Throws 422.
 */
export function validateCreate(engine: Engine, type: ResourceType, obj: KObj): void {
  const v = metaValidationOf(type);
  const causes: StatusCause[] = [...validateObjectMeta(obj.metadata, type.nameRule, v.flavor)];
  causes.push(...typeCauses(engine, type, obj, undefined));
  if (causes.length === 0) causes.push(...validateObjectMeta(obj.metadata, 'path-segment', 'generic'));
  if (causes.length > 0) throw new ApiError(invalid(type.invalidKind ?? type, obj.metadata.name, causes));
}

/**
 * Update validation as `rest.BeforeUpdate` runs it: `validateCommonFields` (generic metadata
 * checks), then the strategy's metadata passes, type rules, schema and hooks, all in one 422.
 */
export function validateUpdate(
  engine: Engine,
  type: ResourceType,
  next: KObj,
  old: KObj,
  statusUpdate: boolean,
): void {
  const causes = metaUpdateCauses(
    next.metadata,
    old.metadata,
    type.nameRule,
    metaValidationOf(type),
    statusUpdate,
  );
  causes.push(...typeCauses(engine, type, next, old));
  if (causes.length > 0) throw new ApiError(invalid(type.invalidKind ?? type, next.metadata.name, causes));
}

/** The type's own rules, its schema and the validation hook, in that order. */
function typeCauses(engine: Engine, type: ResourceType, obj: KObj, old: KObj | undefined): StatusCause[] {
  const causes: StatusCause[] = [...(type.validate?.(obj, old) ?? [])];
  if (type.schema) {
    const { kind: _k, apiVersion: _a, metadata: _m, ...rest } = obj;
    causes.push(...validateAgainstSchema(rest, type.schema, ''));
    causes.push(...celCauses(type, obj, old, causes));
  }
  causes.push(...(engine.hooks.validate?.(type, obj, old) ?? []));
  return causes;
}

/** The NamespaceLifecycle admission plugin: 404 for a missing namespace, 403 for a terminating one. */
export function checkNamespaceForCreate(
  engine: Engine,
  type: ResourceType,
  namespace: string | undefined,
  name: string,
): void {
  if (!type.namespaced || !engine.config.namespaceLifecycle || namespace === undefined) return;
  const ns = engine.store.get('/namespaces', namespace);
  if (!ns) throw new ApiError(notFound({ group: '', resource: 'namespaces' }, namespace));
  const phase = (ns['status'] as Json | undefined)?.['phase'];
  if (ns.metadata.deletionTimestamp || phase === 'Terminating') {
    throw new ApiError(namespaceTerminating(type, name, namespace));
  }
}
