/**
 * What the write paths hand the field manager (`apply/field-manager.ts`) and check after it ran:
 * the kind's schema and its strategy's reset fields, and `ValidateManagedFields` of the entries a
 * client wrote.
 *
 * @module
 */
import { type ManagedFieldsEntry, validateManagedFields } from '../apply/managed-fields.js';
import { resetFieldsFor } from '../apply/reset-fields.js';
import type { ResourceType } from '../registry/types.js';
import { ApiError, invalid } from '../status.js';
import type { Json, KObj } from '../store/object.js';

/** The type information the field manager needs: the kind's schema and its strategy's reset fields. */
export function fieldManagerType(
  type: ResourceType,
  subresource: string | undefined,
): { schema?: Json; resetFields: readonly (readonly string[])[] } {
  const custom = !type.builtin || type.schema !== undefined;
  return {
    ...(type.schema ? { schema: type.schema } : {}),
    resetFields: resetFieldsFor({ ...type, custom }, subresource),
  };
}

/**
 * `ValidateManagedFields` of the object about to be stored (a client may have written entries
 * that decode but do not validate, e.g. a manager name over 128 bytes): 422, each cause listed
 * `times` times as the real server's repeated ObjectMeta validation lists it (once on create,
 * three times on update, four for core kinds: probed on v1.24).
 */
export function checkManagedFields(type: ResourceType, obj: KObj, times: number): void {
  const entries = obj.metadata.managedFields;
  if (!Array.isArray(entries)) return;
  const causes = validateManagedFields(entries as ManagedFieldsEntry[]);
  if (causes.length === 0) return;
  const repeated = causes.flatMap((c) => Array.from({ length: times }, () => ({ ...c })));
  throw new ApiError(invalid(type.invalidKind ?? type, obj.metadata.name, repeated));
}
