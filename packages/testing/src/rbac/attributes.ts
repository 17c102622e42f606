/**
 * The authorization attributes of a request, as kube-apiserver's RequestInfoFactory derives them
 * from the method and URL alone, before any routing (`apiserver/pkg/endpoints/request/requestinfo.go`
 * v1.24): so an unknown resource is refused (403) before it is found missing (404), the namespace of
 * `/api/v1/namespaces/x` is `x`, a `watch=true` GET is `watch`, a DELETE without a name is
 * `deletecollection`, and a list or watch with `fieldSelector=metadata.name=x` is a request for
 * the name `x` (so `resourceNames` rules can allow it).
 *
 * @module
 */
import type { RequestUser } from '../auth.js';
import { validateObjectName } from '../validation/names.js';

/** What the authorizer decides on (`authorizer.Attributes`). */
export interface Attributes {
  readonly user: RequestUser;
  /** get, list, watch, create, update, patch, delete, deletecollection, impersonate, bind, … */
  readonly verb: string;
  /** False for non-resource paths (`/healthz`, `/apis`, `/version`, `/openapi/v2`). */
  readonly resourceRequest: boolean;
  /** The URL path (non-resource requests). */
  readonly path: string;
  readonly apiGroup: string;
  readonly apiVersion: string;
  /** '' when cluster-wide. */
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  /** '' when none (lists, creates). */
  readonly name: string;
}

/** A resource request's attributes with defaults for what is not given. */
export function resourceAttributes(
  user: RequestUser,
  verb: string,
  r: Partial<Pick<Attributes, 'apiGroup' | 'apiVersion' | 'namespace' | 'resource' | 'subresource' | 'name'>>,
): Attributes {
  return {
    user,
    verb,
    resourceRequest: true,
    path: '',
    apiGroup: r.apiGroup ?? '',
    apiVersion: r.apiVersion ?? '',
    namespace: r.namespace ?? '',
    resource: r.resource ?? '',
    subresource: r.subresource ?? '',
    name: r.name ?? '',
  };
}

const SPECIAL_VERBS = new Set(['proxy', 'watch']);
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);
const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/**
 * The exact `metadata.name` a field selector requires, if any (`fields.Selector.RequiresExactMatch`:
 * a term `metadata.name=x` or `metadata.name==x`; `\\` escapes `,`, `=`, `!` and itself).
 */
function requiredName(fieldSelector: string | null): string | undefined {
  if (fieldSelector === null || fieldSelector === '') return undefined;
  const terms: string[] = [];
  let cur = '';
  for (let i = 0; i < fieldSelector.length; i++) {
    const ch = fieldSelector[i] ?? '';
    if (ch === '\\' && i + 1 < fieldSelector.length) {
      cur += ch + (fieldSelector[i + 1] ?? '');
      i++;
    } else if (ch === ',') {
      terms.push(cur);
      cur = '';
    } else cur += ch;
  }
  terms.push(cur);
  for (const term of terms) {
    const m = /^(.*?)(!=|==|=)(.*)$/.exec(term);
    if (m === null || m[1] !== 'metadata.name' || m[2] === '!=') continue;
    return (m[3] ?? '').replace(/\\(.)/g, '$1');
  }
  return undefined;
}

/**
 * The attributes of a request (`NewRequestInfo`).
 *
 * ## Example
 * ```ts
 * import type { RequestUser } from '../auth.js';
 * const user: RequestUser = { name: 'alice', groups: ['system:authenticated'], anonymous: false };
 * requestAttributes(user, 'GET', '/api/v1/namespaces/default/configmaps', new URLSearchParams('watch=1'));
 * // { verb: 'watch', resourceRequest: true, apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'configmaps', … }
 * ```
 */
export function requestAttributes(
  user: RequestUser,
  method: string,
  pathname: string,
  query: URLSearchParams,
): Attributes {
  const path = pathname.split('/').map(decodeSegment).join('/');
  const nonResource: Attributes = {
    user,
    verb: method.toLowerCase(),
    resourceRequest: false,
    path,
    apiGroup: '',
    apiVersion: '',
    namespace: '',
    resource: '',
    subresource: '',
    name: '',
  };
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  let parts = trimmed === '' ? [] : trimmed.split('/');
  if (parts.length < 3) return nonResource;
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource;
  parts = parts.slice(1);
  let apiGroup = '';
  if (prefix === 'apis') {
    if (parts.length < 3) return nonResource;
    apiGroup = parts[0] ?? '';
    parts = parts.slice(1);
  }
  const apiVersion = parts[0] ?? '';
  parts = parts.slice(1);
  let verb: string;
  if (SPECIAL_VERBS.has(parts[0] ?? '')) {
    // `/watch/…` and `/proxy/…` with nothing after them: kube-apiserver fails to build the request
    // info and answers 500; read as the verb on the root here
    verb = parts[0] ?? '';
    if (parts.length >= 2) parts = parts.slice(1);
  } else {
    const byMethod: Record<string, string> = {
      POST: 'create',
      GET: 'get',
      HEAD: 'get',
      PUT: 'update',
      PATCH: 'patch',
      DELETE: 'delete',
    };
    verb = byMethod[method.toUpperCase()] ?? '';
  }
  let namespace = '';
  if (parts[0] === 'namespaces' && parts.length > 1) {
    namespace = parts[1] ?? '';
    if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] ?? '')) parts = parts.slice(2);
  }
  let resource = '';
  let name = '';
  let subresource = '';
  if (parts.length >= 3 && verb !== 'proxy') subresource = parts[2] ?? '';
  if (parts.length >= 2) name = parts[1] ?? '';
  if (parts.length >= 1) resource = parts[0] ?? '';
  if (name === '' && verb === 'get') {
    const watchValues = query.getAll('watch');
    const first = watchValues[0];
    let watch = false;
    let parsed = true;
    if (first !== undefined) {
      if (GO_TRUE.has(first)) watch = true;
      else if (!GO_FALSE.has(first)) {
        // unparseable options: list (or watch unless `false`/`0`), and no name from the selector
        parsed = false;
        watch = !['false', '0'].includes(first.toLowerCase());
      }
    }
    verb = watch ? 'watch' : 'list';
    if (parsed) {
      const required = requiredName(query.get('fieldSelector'));
      if (required !== undefined && validateObjectName(required, 'path-segment').length === 0)
        name = required;
    }
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return {
    ...nonResource,
    verb,
    resourceRequest: true,
    path,
    apiGroup,
    apiVersion,
    namespace,
    resource,
    subresource,
    name,
  };
}
