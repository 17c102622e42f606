/**
 * Optional bearer-token authentication and a simple allow-list authorizer, answering 401/403 like
 * kube-apiserver (packages/testing/fixtures/kube-wire/15-forbidden.json). Users in the group `system:masters`
 * may do anything.
 *
 * @module
 */

/** A user a token maps to. */
export interface AuthUser {
  readonly name: string;
  readonly groups?: readonly string[];
}

/** One allow rule; omitted or `'*'` entries match everything. */
export interface AuthRule {
  /** User names the rule applies to. */
  readonly users?: readonly string[];
  /** Verbs: get, list, watch, create, update, patch, delete, deletecollection. */
  readonly verbs?: readonly string[];
  /** API groups ('' = core). */
  readonly groups?: readonly string[];
  /** Resources, `widgets/status` for subresources. */
  readonly resources?: readonly string[];
  /** Namespaces (cluster-scoped requests match only rules without namespaces). */
  readonly namespaces?: readonly string[];
}

/** Authentication and authorization configuration. */
export interface AuthOptions {
  /** token → user (a string is a user name without groups). */
  readonly tokens: Readonly<Record<string, string | AuthUser>>;
  /** Allow rules; everything else is forbidden (except for `system:masters`). */
  readonly allow?: readonly AuthRule[];
}

/** The authenticated user of a request. */
export interface RequestUser {
  readonly name: string;
  readonly groups: readonly string[];
  readonly anonymous: boolean;
}

/** What is being accessed. */
export interface Access {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly subresource: string | undefined;
  readonly namespace: string | undefined;
}

/** Resolves the `Authorization` header: the user, or `undefined` for an unknown token (→ 401). */
export function authenticate(auth: AuthOptions, header: string | undefined): RequestUser | undefined {
  if (header === undefined || header.trim() === '') {
    return { name: 'system:anonymous', groups: ['system:unauthenticated'], anonymous: true };
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return undefined;
  const u = auth.tokens[m[1] ?? ''];
  if (u === undefined) return undefined;
  const user =
    typeof u === 'string'
      ? { name: u, groups: [] as readonly string[] }
      : { name: u.name, groups: u.groups ?? [] };
  return { name: user.name, groups: [...user.groups, 'system:authenticated'], anonymous: false };
}

function has(list: readonly string[] | undefined, v: string): boolean {
  return list === undefined || list.includes('*') || list.includes(v);
}

/** Whether the user may perform the access. */
export function authorize(auth: AuthOptions, user: RequestUser, a: Access): boolean {
  if (user.groups.includes('system:masters')) return true;
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  for (const r of auth.allow ?? []) {
    if (
      !has(r.users, user.name) ||
      !has(r.verbs, a.verb) ||
      !has(r.groups, a.group) ||
      !has(r.resources, res)
    )
      continue;
    if (r.namespaces !== undefined && !r.namespaces.includes('*')) {
      if (a.namespace === undefined || !r.namespaces.includes(a.namespace)) continue;
    }
    return true;
  }
  return false;
}
