/**
 * User impersonation (`kubectl --as`, `--as-group`, `--as-uid`): the `Impersonate-User`,
 * `Impersonate-Group`, `Impersonate-Uid` and `Impersonate-Extra-<key>` headers, each checked with the
 * `impersonate` verb on `users`, `groups`, `serviceaccounts` (a `system:serviceaccount:<ns>:<name>`
 * user), `uids` and `userextras/<key>` (authentication.k8s.io) before the request runs as that user —
 * `apiserver/pkg/endpoints/filters/impersonation.go` v1.24, including its answers: the authorizer's
 * 403 for the first refused item, and a plain-text 500 for groups, extras or a uid without a user.
 *
 * @module
 */
import type { IncomingMessage } from 'node:http';

import type { RequestUser } from '../auth.js';
import { validateObjectName } from '../validation/names.js';
import type { Attributes } from './attributes.js';
import { resourceAttributes } from './attributes.js';
import type { Authorizer } from './authorizer.js';
import { forbiddenError } from './forbidden.js';

const SA_PREFIX = 'system:serviceaccount:';
const EXTRA_PREFIX = 'impersonate-extra-';

/** One thing to impersonate (Go's ObjectReference in the filter). */
interface ImpersonationRequest {
  readonly kind: 'ServiceAccount' | 'User' | 'Group' | 'UserExtra' | 'UID';
  readonly namespace: string;
  readonly name: string;
  readonly apiVersion: string;
  readonly fieldPath: string;
}

/** The answer to a request whose impersonation headers are malformed: a plain-text 500. */
export class ImpersonationHeaderError extends Error {
  constructor(
    readonly requestUri: string,
    detail: string,
  ) {
    super(`Internal Server Error: "${requestUri}": ${detail}`);
  }
}

/** `serviceaccount.SplitUsername`: namespace and name of a service account user name. */
export function splitServiceAccountUser(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SA_PREFIX)) return undefined;
  const parts = user.slice(SA_PREFIX.length).split(':');
  if (parts.length !== 2) return undefined;
  const [namespace = '', name = ''] = parts;
  if (validateObjectName(namespace, 'label').length > 0) return undefined;
  if (validateObjectName(name, 'subdomain').length > 0) return undefined;
  return { namespace, name };
}

/** `%v` of an ObjectReference: its seven fields separated by spaces. */
function goRef(r: ImpersonationRequest): string {
  return `{${[r.kind, r.namespace, r.name, '', r.apiVersion, '', r.fieldPath].join(' ')}}`;
}

function unescapeExtraKey(key: string): string {
  try {
    return decodeURIComponent(key);
  } catch {
    return key;
  }
}

/** Whether any `Impersonate-*` header was sent (most requests: none, and nothing is allocated). */
function impersonating(req: IncomingMessage): boolean {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const h = raw[i] ?? '';
    if (h.length > 12 && (h.charCodeAt(0) | 0x20) === 0x69 && h.slice(0, 12).toLowerCase() === 'impersonate-')
      return true;
  }
  return false;
}

function requestsOf(req: IncomingMessage): ImpersonationRequest[] {
  if (!impersonating(req)) return [];
  const headers = req.headersDistinct;
  const out: ImpersonationRequest[] = [];
  const none = { namespace: '', apiVersion: '', fieldPath: '' };
  const user = headers['impersonate-user']?.[0] ?? '';
  if (user !== '') {
    const sa = splitServiceAccountUser(user);
    out.push(sa ? { ...none, kind: 'ServiceAccount', ...sa } : { ...none, kind: 'User', name: user });
  }
  for (const group of headers['impersonate-group'] ?? []) out.push({ ...none, kind: 'Group', name: group });
  // Go iterates its header map in random order; header order here
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const header = (req.rawHeaders[i] ?? '').toLowerCase();
    if (!header.startsWith(EXTRA_PREFIX)) continue;
    out.push({
      kind: 'UserExtra',
      namespace: '',
      name: req.rawHeaders[i + 1] ?? '',
      apiVersion: 'authentication.k8s.io/v1',
      fieldPath: unescapeExtraKey(header.slice(EXTRA_PREFIX.length)),
    });
  }
  const uid = headers['impersonate-uid']?.[0] ?? '';
  if (uid !== '') out.push({ ...none, kind: 'UID', name: uid, apiVersion: 'authentication.k8s.io/v1' });
  if (out.length > 0 && user === '') {
    throw new ImpersonationHeaderError(
      req.url ?? '/',
      `requested [${out.map(goRef).join(' ')}] without impersonating a user`,
    );
  }
  return out;
}

/**
 * The user a request runs as: the authenticated `requestor`, or the one its impersonation headers
 * name when `authorizer` allows each of them.
 *
 * ## Example
 * ```ts
 * // Impersonate-User: alice, Impersonate-Group: devs
 * import type { IncomingMessage } from 'node:http';
 * import { ADMIN_USER } from '../auth.js';
 * import { ALWAYS_ALLOW } from './authorizer.js';
 * declare const req: IncomingMessage; // the request, with the headers above
 * impersonate(req, ADMIN_USER, ALWAYS_ALLOW); // { name: 'alice', groups: ['devs', 'system:authenticated'], … }
 * ```
 * @throws ApiError 403 naming the first item the requestor may not impersonate.
 * @throws {ImpersonationHeaderError} groups, extras or a uid without `Impersonate-User`.
 */
export function impersonate(
  req: IncomingMessage,
  requestor: RequestUser,
  authorizer: Authorizer,
): RequestUser {
  const requests = requestsOf(req);
  if (requests.length === 0) return requestor;
  const groupsSpecified = (req.headersDistinct['impersonate-group'] ?? []).length > 0;
  let username = '';
  let groups: string[] = [];
  const extra: Record<string, string[]> = {};
  let uid = '';
  for (const r of requests) {
    let acting: Attributes;
    switch (r.kind) {
      case 'ServiceAccount':
        acting = resourceAttributes(requestor, 'impersonate', {
          apiVersion: 'v1',
          resource: 'serviceaccounts',
          namespace: r.namespace,
          name: r.name,
        });
        username = `${SA_PREFIX}${r.namespace}:${r.name}`;
        if (!groupsSpecified) groups = ['system:serviceaccounts', `system:serviceaccounts:${r.namespace}`];
        break;
      case 'User':
        acting = resourceAttributes(requestor, 'impersonate', {
          apiVersion: 'v1',
          resource: 'users',
          name: r.name,
        });
        username = r.name;
        break;
      case 'Group':
        acting = resourceAttributes(requestor, 'impersonate', {
          apiVersion: 'v1',
          resource: 'groups',
          name: r.name,
        });
        groups.push(r.name);
        break;
      case 'UserExtra':
        acting = resourceAttributes(requestor, 'impersonate', {
          apiGroup: 'authentication.k8s.io',
          apiVersion: 'v1',
          resource: 'userextras',
          subresource: r.fieldPath,
          name: r.name,
        });
        (extra[r.fieldPath] ??= []).push(r.name);
        break;
      case 'UID':
        acting = resourceAttributes(requestor, 'impersonate', {
          apiGroup: 'authentication.k8s.io',
          apiVersion: 'v1',
          resource: 'uids',
          name: r.name,
        });
        uid = r.name;
        break;
    }
    const decision = authorizer.authorize(acting);
    if (!decision.allowed) throw forbiddenError(acting, decision.reason);
  }
  const anonymous = username === 'system:anonymous';
  if (!anonymous) {
    if (!groups.includes('system:authenticated') && !groups.includes('system:unauthenticated'))
      groups.push('system:authenticated');
  } else if (!groups.includes('system:unauthenticated')) groups.push('system:unauthenticated');
  return {
    name: username,
    groups,
    anonymous,
    ...(uid !== '' ? { uid } : {}),
    ...(Object.keys(extra).length > 0 ? { extra } : {}),
  };
}
