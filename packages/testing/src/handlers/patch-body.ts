/**
 * What kube-apiserver v1.24 says about a patch body and about the object a patch produces, before
 * the update rules run (`apiserver/pkg/endpoints/handlers/patch.go`, `rest.go` checkName, the custom
 * resource validator's TypeMeta check, the apply patcher's version and kind checks): the decoder
 * errors of each patch type, a patched object that no longer decodes (422 on the `patch` field,
 * showing the patched JSON), kind and apiVersion changes, a name the patch removed.
 *
 * @module
 */
import { parse as parseYaml } from 'yaml';

import type { ResourceType } from '../registry/types.js';
import { ApiError, badRequest, failure, invalid } from '../status.js';
import type { KObj } from '../store/object.js';
import { isObject, sortKeys } from '../store/object.js';
import { goQuote } from '../validation/names.js';
import { parseJsonLikeGo } from './go-json.js';

const TYPE_STRUCT =
  'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** Go's name of a JSON value's type in `cannot unmarshal <type>` messages. */
function goJsonType(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (v === null) return 'null';
  return typeof v === 'object' ? 'object' : typeof v;
}

/**
 * The patched object as Go marshals it: top-level keys sorted (the patch re-marshals the map), nested
 * values in stored order for built-ins, sorted throughout for custom resources (unstructured), and
 * `<`, `>`, `&` escaped like `encoding/json`.
 */
export function goPatchedJson(v: unknown, builtin: boolean): string {
  let shown = v;
  if (!builtin) shown = sortKeys(v);
  else if (isObject(v)) {
    const top: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) top[k] = v[k];
    shown = top;
  }
  return JSON.stringify(shown).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/** 422 on the `patch` field: the patched object does not decode (`" \"\" is invalid: patch: …"`). */
export function patchInvalid(patchedJson: string, detail: string): ApiError {
  const message = `Invalid value: ${goQuote(patchedJson)}: ${detail}`;
  return new ApiError(
    failure(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
      causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
    }),
  );
}

/** 400 for a body the URL's name cannot be found in (`checkName` of `handlers/rest.go`). */
export function nameUndeterminable(name: string): ApiError {
  return new ApiError(
    badRequest(`the name of the object (${name} based on URL) was undeterminable: name must be provided`),
  );
}

/**
 * Parses a JSON patch, merge patch or strategic merge patch body: Go's syntax messages, except a
 * merge patch, whose library answers `Invalid JSON Patch`.
 */
export function parsePatchBody(body: Buffer, contentType: string): unknown {
  const parsed = parseJsonLikeGo(body);
  if (parsed.ok) return parsed.value;
  throw new ApiError(
    badRequest(contentType === 'application/merge-patch+json' ? 'Invalid JSON Patch' : parsed.error),
  );
}

/**
 * Checks what a JSON/merge/strategic patch made of TypeMeta and the name, and fills TypeMeta in.
 * Strategic merge patches are applied to the typed object, so a kind or apiVersion in them is
 * ignored; the other patches are decoded again: a changed TypeMeta no longer decodes (built-ins) or
 * fails the custom resource validator's TypeMeta check.
 */
export function checkPatchedObject(
  type: ResourceType,
  patched: unknown,
  strategic: boolean,
  name: string,
): KObj {
  if (!isObject(patched)) {
    throw patchInvalid(
      goPatchedJson(patched, type.builtin),
      `couldn't get version/kind; json parse error: json: cannot unmarshal ${goJsonType(patched)} into Go value of type ${TYPE_STRUCT}`,
    );
  }
  const candidate = patched as KObj;
  const kind = candidate['kind'];
  const apiVersion = candidate['apiVersion'];
  if (!strategic) {
    if (type.builtin) {
      const k = typeof kind === 'string' && kind !== '' ? kind : type.kind;
      const v = typeof apiVersion === 'string' && apiVersion !== '' ? apiVersion : type.apiVersion;
      if (k !== type.kind || v !== type.apiVersion) {
        throw patchInvalid(
          goPatchedJson(patched, true),
          `no kind ${goQuote(k)} is registered for version ${goQuote(v)} in scheme "pkg/api/legacyscheme/scheme.go:30"`,
        );
      }
    } else if (kind === undefined || kind === null || kind === '') {
      const json = goPatchedJson(patched, false);
      throw patchInvalid(json, `Object 'Kind' is missing in '${json}'`);
    }
  }
  const meta = candidate['metadata'];
  const objName = isObject(meta) && typeof meta['name'] === 'string' ? meta['name'] : '';
  if (objName === '') throw nameUndeterminable(name);
  if (objName !== name) {
    throw new ApiError(
      badRequest(`the name of the object (${objName}) does not match the name on the URL (${name})`),
    );
  }
  if (!strategic && !type.builtin) {
    if (kind !== type.kind) {
      throw new ApiError(
        invalid({ group: type.group, kind: String(kind) }, name, [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${goQuote(String(kind))}: must be ${type.kind}`,
            field: 'kind',
          },
        ]),
      );
    }
    if (typeof apiVersion === 'string' && apiVersion !== '' && apiVersion !== type.apiVersion) {
      throw new ApiError(
        invalid(type, name, [
          {
            reason: 'FieldValueInvalid',
            message: `Invalid value: ${goQuote(apiVersion)}: must be ${type.apiVersion}`,
            field: 'apiVersion',
          },
        ]),
      );
    }
  }
  candidate['kind'] = type.kind;
  candidate['apiVersion'] = type.apiVersion;
  return candidate;
}

/**
 * Decodes an apply configuration (YAML or JSON) and checks its TypeMeta the way the apply patcher
 * does: a wrong or missing apiVersion is a 400, a wrong or missing kind a 500 from the field manager.
 */
export function decodeApplyConfig(type: ResourceType, body: Buffer, name: string): KObj {
  let value: unknown;
  try {
    value = parseYaml(body.toString('utf8'));
  } catch (e) {
    const why = e instanceof Error ? (e.message.split('\n')[0] ?? '') : String(e);
    throw new ApiError(badRequest(`error decoding YAML: error converting YAML to JSON: yaml: ${why}`));
  }
  if (!isObject(value)) {
    throw new ApiError(
      badRequest(
        `error decoding YAML: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${goJsonType(value)} into Go value of type map[string]interface {}`,
      ),
    );
  }
  const apiVersion = typeof value['apiVersion'] === 'string' ? value['apiVersion'] : '';
  if (apiVersion !== type.apiVersion) {
    throw new ApiError(
      badRequest(
        `Incorrect version specified in apply patch. Specified patch version: ${apiVersion}, expected: ${type.apiVersion}`,
      ),
    );
  }
  const kind = typeof value['kind'] === 'string' ? value['kind'] : '';
  if (kind !== type.kind) {
    if (type.builtin && kind !== '') {
      throw new ApiError(
        failure(
          500,
          undefined,
          'failed to merge config: expected objects of the same type, but got {0xc000a1e170 {<nil> <nil> <nil>}} and {0xc000a1e110 {<nil> <nil> <nil>}}',
        ),
      );
    }
    const meta = isObject(value['metadata']) ? value['metadata'] : {};
    const ns = typeof meta['namespace'] === 'string' ? meta['namespace'] : '';
    const gvk = `${type.group}/${type.version}, Kind=${kind}`;
    throw new ApiError(
      failure(
        500,
        undefined,
        `failed to create typed patch object (${ns}/${typeof meta['name'] === 'string' ? meta['name'] : name}; ${gvk}): no corresponding type for ${gvk}`,
      ),
    );
  }
  const meta = value['metadata'];
  if (meta !== undefined && meta !== null && !isObject(meta)) {
    throw new ApiError(
      badRequest(
        `${type.kind} in version "${type.version}" cannot be handled as a ${type.kind}: json: cannot unmarshal ${goJsonType(meta)} into Go struct field ${type.kind}.metadata of type v1.ObjectMeta`,
      ),
    );
  }
  const obj = value as KObj;
  obj.metadata = isObject(meta) ? meta : {};
  return obj;
}
