/**
 * An audit log like kube-apiserver's at level `Metadata` (audit.k8s.io/v1 Event): for each request,
 * who made it (and whom it impersonated), what it addressed, the answer's code, and the
 * authorizer's decision with its reason (`authorization.k8s.io/decision`, `…/reason`: `RBAC:
 * allowed by ClusterRoleBinding "x" of ClusterRole "y" to ServiceAccount "sa/ns"`). What a test
 * reads to prove an operator was never refused and used what it was granted — the server's own
 * record, no proxy in between. Bounded: the oldest events are dropped beyond `maxEvents`.
 *
 * An event is recorded when the answer starts (a watch: when its stream opens).
 *
 * @module
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import type { RequestUser } from './auth.js';
import type { Attributes } from './rbac/attributes.js';
import type { Decision } from './rbac/authorizer.js';

/**
 * `audit.k8s.io/v1` UserInfo.
 *
 * ## Example
 * ```ts
 * const users = new Set(server.auditEvents().map((e) => e.user.username));
 * expect(users).toContain('system:serviceaccount:ops:widget-operator');
 * ```
 */
export interface AuditUser {
  readonly username: string;
  readonly uid?: string;
  readonly groups: readonly string[];
}

/**
 * `audit.k8s.io/v1` ObjectReference of a resource request.
 *
 * ## Example
 * ```ts
 * const touched: AuditObjectRef[] = server.auditEvents().flatMap((e) => (e.objectRef ? [e.objectRef] : []));
 * expect(touched.filter((r) => r.resource === 'secrets')).toEqual([]); // never read a Secret
 * ```
 */
export interface AuditObjectRef {
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly apiGroup?: string;
  readonly apiVersion: string;
  readonly subresource?: string;
}

/**
 * One request, as an `audit.k8s.io/v1` Event at level Metadata records it.
 *
 * ## Example
 * ```ts
 * const server = await startApiServer({
 *   auth: { tokens: { 'operator-token': 'system:serviceaccount:ops:operator' } },
 *   objects: rbacGrant('system:serviceaccount:ops:operator', [{ apiGroups: [''], resources: ['configmaps'], verbs: ['*'] }]),
 *   audit: {},
 * });
 * // … run the operator with its token …
 * const refused: AuditEvent[] = server.auditEvents().filter((e) => e.responseStatus.code === 403);
 * expect(refused.map((e) => e.annotations['authorization.k8s.io/reason'])).toEqual([]);
 * ```
 */
export interface AuditEvent {
  readonly auditID: string;
  /** Path and query, as sent. */
  readonly requestURI: string;
  /** The authorizer's verb (`list`, `watch`, `patch`, …; the lower-case method for non-resource paths). */
  readonly verb: string;
  /** The authenticated user (absent: the token was refused). */
  readonly user: AuditUser;
  /** The user the request ran as, when it impersonated one. */
  readonly impersonatedUser?: AuditUser;
  readonly userAgent?: string;
  /** What a resource request addressed. */
  readonly objectRef?: AuditObjectRef;
  /** The answer's code (a watch: 200 when it opened). */
  readonly responseStatus: { readonly code: number };
  /** `authorization.k8s.io/decision` (`allow`/`forbid`) and `authorization.k8s.io/reason`. */
  readonly annotations: Readonly<Record<string, string>>;
}

function auditUser(u: RequestUser): AuditUser {
  return { username: u.name, ...(u.uid !== undefined ? { uid: u.uid } : {}), groups: [...u.groups] };
}

function objectRef(a: Attributes): AuditObjectRef | undefined {
  if (!a.resourceRequest) return undefined;
  return {
    resource: a.resource,
    ...(a.namespace !== '' ? { namespace: a.namespace } : {}),
    ...(a.name !== '' ? { name: a.name } : {}),
    ...(a.apiGroup !== '' ? { apiGroup: a.apiGroup } : {}),
    apiVersion: a.apiVersion,
    ...(a.subresource !== '' ? { subresource: a.subresource } : {}),
  };
}

/** What is learnt about a request while it is handled. */
export interface AuditRecorder {
  /** The authenticated user. */
  authenticated(user: RequestUser): void;
  /** The user after impersonation (when it differs). */
  impersonated(user: RequestUser): void;
  /** The authorization decision. */
  authorized(attributes: Attributes, decision: Decision): void;
}

/** The audit log of a server. */
export class AuditLog {
  private readonly buffer: AuditEvent[] = [];

  constructor(private readonly maxEvents: number) {
    if (!Number.isInteger(maxEvents) || maxEvents < 1)
      throw new RangeError(`audit.maxEvents must be a positive integer, got ${String(maxEvents)}`);
  }

  /** The events so far, oldest first (a copy). */
  events(): AuditEvent[] {
    return [...this.buffer];
  }

  private add(e: AuditEvent): void {
    this.buffer.push(e);
    if (this.buffer.length > this.maxEvents) this.buffer.splice(0, this.buffer.length - this.maxEvents);
  }

  /** Starts the record of one request; it is added when the response's head is written. */
  begin(auditID: string, req: IncomingMessage, res: ServerResponse): AuditRecorder {
    let user: RequestUser | undefined;
    let impersonatedUser: RequestUser | undefined;
    let attributes: Attributes | undefined;
    let decision: Decision | undefined;
    let recorded = false;
    const record = (): void => {
      if (recorded) return;
      recorded = true;
      const annotations: Record<string, string> = {};
      if (decision !== undefined) {
        annotations['authorization.k8s.io/decision'] = decision.allowed ? 'allow' : 'forbid';
        annotations['authorization.k8s.io/reason'] = decision.reason;
      }
      const ref = attributes === undefined ? undefined : objectRef(attributes);
      this.add({
        auditID,
        requestURI: req.url ?? '/',
        verb: attributes?.verb ?? (req.method ?? 'GET').toLowerCase(),
        user: user === undefined ? { username: '', groups: [] } : auditUser(user),
        ...(impersonatedUser !== undefined ? { impersonatedUser: auditUser(impersonatedUser) } : {}),
        ...(req.headers['user-agent'] !== undefined ? { userAgent: req.headers['user-agent'] } : {}),
        ...(ref !== undefined ? { objectRef: ref } : {}),
        responseStatus: { code: res.statusCode },
        annotations,
      });
    };
    // the head of every answer goes through writeHead (Node calls it for implicit headers too)
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    res.writeHead = (...args: unknown[]) => {
      if (typeof args[0] === 'number') res.statusCode = args[0];
      record();
      return writeHead(...args);
    };
    res.once('close', record);
    return {
      authenticated: (u) => {
        user = u;
      },
      impersonated: (u) => {
        impersonatedUser = u;
      },
      authorized: (a, d) => {
        attributes = a;
        decision = d;
      },
    };
  }
}
