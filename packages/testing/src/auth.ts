/**
 * Bearer-token authentication, answering 401 like kube-apiserver
 * (packages/testing/fixtures/kube-wire/15-forbidden.json): a token maps
 * to a user and its groups, as kube-apiserver's `--token-auth-file` does; every authenticated user
 * also gets `system:authenticated`, a request without a token is `system:anonymous` in
 * `system:unauthenticated`. What a user may do is decided by RBAC (`src/rbac/`).
 *
 * @module
 */

/**
 * A user a token maps to.
 *
 * ## Example
 * ```ts
 * const operator: AuthUser = {
 *   name: 'system:serviceaccount:ops:widget-operator',
 *   groups: ['system:serviceaccounts', 'system:serviceaccounts:ops'],
 * };
 * const server = await startApiServer({ auth: { tokens: { 'operator-token': operator } } });
 * ```
 */
export interface AuthUser {
  readonly name: string;
  readonly groups?: readonly string[];
  /** The user's uid (the third column of a token file). */
  readonly uid?: string;
}

/**
 * Authentication and authorization configuration: with it the server authenticates bearer tokens
 * and authorizes every request with RBAC from the Roles and bindings it stores (kube-apiserver's
 * `--token-auth-file` and `--authorization-mode=RBAC`). Grant permissions by creating RBAC
 * objects: at start with the server's `objects` option (see `rbacGrant`), or through the API.
 *
 * ## Example
 * ```ts
 * const auth: AuthOptions = { tokens: { 'reader-token': 'reader' } };
 * const read = [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }];
 * const server = await startApiServer({ auth, objects: rbacGrant('reader', read, { namespace: 'default' }) });
 * // reader-token may list ConfigMaps in default; a write gets 403 Forbidden
 * ```
 */
export interface AuthOptions {
  /** token → user (a string is a user name without groups). */
  readonly tokens: Readonly<Record<string, string | AuthUser>>;
}

/** The user of a request: authenticated, anonymous, or impersonated. */
export interface RequestUser {
  readonly name: string;
  readonly groups: readonly string[];
  readonly anonymous: boolean;
  readonly uid?: string;
  /** `user.Info` extras (from `Impersonate-Extra-*`). */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** The user of every request when authentication is off (a member of `system:masters`). */
export const ADMIN_USER: RequestUser = {
  name: 'admin',
  groups: ['system:masters', 'system:authenticated'],
  anonymous: false,
};

/** Resolves the `Authorization` header: the user, or `undefined` for an unknown token (→ 401). */
export function authenticate(auth: AuthOptions, header: string | undefined): RequestUser | undefined {
  if (header === undefined || header.trim() === '') {
    return { name: 'system:anonymous', groups: ['system:unauthenticated'], anonymous: true };
  }
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!m) return undefined;
  const u = auth.tokens[m[1] ?? ''];
  if (u === undefined) return undefined;
  if (typeof u === 'string') return { name: u, groups: ['system:authenticated'], anonymous: false };
  // the AuthenticatedGroupAdder: system:authenticated unless the user already has it
  const groups = u.groups ?? [];
  return {
    name: u.name,
    groups: groups.includes('system:authenticated') ? [...groups] : [...groups, 'system:authenticated'],
    anonymous: false,
    ...(u.uid !== undefined ? { uid: u.uid } : {}),
  };
}

/** One CSV record: fields split on commas outside double quotes (`""` is a quote inside). */
function csvFields(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] ?? '';
    if (quoted) {
      if (ch === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((f) => f.trim());
}

/**
 * Parses kube-apiserver's `--token-auth-file` format: one `token,user,uid[,"group1,group2"]` per
 * line (blank lines and `#` comments skipped).
 *
 * ## Example
 * ```ts
 * parseTokenFile('admin-token,admin,admin-uid,"system:masters"\nbob-token,bob,bob-uid\n');
 * // { 'admin-token': { name: 'admin', uid: 'admin-uid', groups: ['system:masters'] }, 'bob-token': { name: 'bob', uid: 'bob-uid' } }
 * ```
 * @throws {RangeError} naming the line that has fewer than three fields or a repeated token.
 */
export function parseTokenFile(text: string, file = 'token file'): Record<string, AuthUser> {
  const tokens: Record<string, AuthUser> = {};
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const [token = '', name = '', uid = '', groups = ''] = csvFields(line);
    if (token === '' || name === '' || uid === '') {
      throw new RangeError(`${file}:${String(i + 1)}: expected token,user,uid[,"group,…"]`);
    }
    if (tokens[token] !== undefined) throw new RangeError(`${file}:${String(i + 1)}: token repeated`);
    const list =
      groups === ''
        ? []
        : groups
            .split(',')
            .map((g) => g.trim())
            .filter((g) => g !== '');
    tokens[token] = { name, uid, ...(list.length > 0 ? { groups: list } : {}) };
  });
  return tokens;
}
