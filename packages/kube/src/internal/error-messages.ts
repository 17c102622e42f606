/**
 * The messages of the API client's errors: what failed, on which URL, and what to check next — a
 * 403 names the RBAC rule to grant or says which admission refused it; a transport failure says
 * what to check in the kubeconfig. Never credentials: URLs arrive here without user info.
 *
 * @module
 */
import type { ForbiddenCause, RequestTarget, Status, TransportFailure } from '../status.js';
import { classifyForbidden, clip, OWNER_DELETE_REFUSAL } from '../status.js';

/** `widgets.example.com`, `configmaps`, `deployments.apps/status`. */
function resourceName(target: RequestTarget): string {
  const resource = target.resource ?? 'the resource';
  const slash = resource.indexOf('/');
  const plural = slash < 0 ? resource : resource.slice(0, slash);
  const sub = slash < 0 ? '' : resource.slice(slash);
  return `${target.group ? `${plural}.${target.group}` : plural}${sub}`;
}

function where(target: RequestTarget): string {
  return target.namespace ? `in namespace "${target.namespace}"` : 'cluster-wide';
}

export function apiErrorMessage(
  init: { readonly target: RequestTarget; readonly method: string; readonly text?: string | undefined },
  status: Status,
  code: number,
  reason: string,
  url: string,
  retryAfter: number | undefined,
): string {
  const t = init.target;
  const server = clip(status.message ?? '') || '(no message)';
  const request = `${init.method} ${url}`;
  const object = `${resourceName(t)}${t.name ? ` "${t.name}"` : ''} ${where(t)}`;
  switch (reason) {
    case 'Forbidden':
      return forbiddenMessage(classifyForbidden(status), t, server, object, `[${code} ${request}]`, status);
    case 'Unauthorized':
      return (
        `unauthorized: the API server rejected the credentials while trying to "${t.verb}" ${object} ` +
        `(server: ${server}). Check the kubeconfig user: an expired token, a wrong client ` +
        `certificate or a failing exec/OIDC plugin. [${code} ${request}]`
      );
    case 'TooManyRequests':
      return (
        `too many requests: the API server throttled "${t.verb}" ${object} (server: ${server}); ` +
        `retry after ${retryAfter ?? 1} s. [${code} ${request}]`
      );
    default:
      break;
  }
  const hint =
    code === 404 && (init.text !== undefined || !t.name)
      ? ' The resource is not served at this path: is the CRD installed and the apiVersion right?'
      : code === 410 || reason === 'Expired'
        ? ' The resourceVersion or continue token is too old: list again.'
        : reason === 'Invalid' && status.details?.causes?.length
          ? ` Causes: ${status.details.causes.map((c) => `${c.field ?? '?'}: ${c.message ?? c.reason ?? ''}`).join('; ')}.`
          : '';
  return `${t.verb} ${object} failed: ${code} ${reason}: ${server}.${hint} [${request}]`;
}

function forbiddenMessage(
  cause: ForbiddenCause,
  t: RequestTarget,
  server: string,
  object: string,
  request: string,
  status: Status,
): string {
  switch (cause) {
    case 'rbac':
      return (
        `forbidden: rxkube needs RBAC permission to "${t.verb}" "${resourceName(t)}" ${where(t)} ` +
        `(server: ${server}). Grant it with a ${t.namespace ? 'Role' : 'ClusterRole'} rule ` +
        `{ apiGroups: ["${t.group ?? ''}"], resources: ["${t.resource ?? ''}"], verbs: ["${t.verb}"] } ` +
        `bound to the identity in the kubeconfig. ${request}`
      );
    case 'owner-references':
      return ownerReferencesMessage(t, server, object, request, status);
    case 'escalation':
      return escalationMessage(t, server, object, request);
    case 'namespace-terminating':
      return (
        `forbidden: namespace "${t.namespace ?? '?'}" is being deleted, so "${t.verb}" of ${object} is refused ` +
        `(server: ${server}). This is not an RBAC problem: nothing new can be created in a terminating ` +
        `namespace; write elsewhere, or treat the work there as done (a finalizer cleanup does). ${request}`
      );
    case 'webhook':
      return (
        `forbidden: an admission webhook denied "${t.verb}" of ${object} (server: ${server}). ` +
        `This is not an RBAC problem: change the object to satisfy the webhook's policy, or ask the ` +
        `webhook's owners (kubectl get validatingwebhookconfigurations,mutatingwebhookconfigurations). ${request}`
      );
    case 'quota':
      return (
        `forbidden: a ResourceQuota ${where(t)} refused "${t.verb}" of ${object} (server: ${server}). ` +
        `This is not an RBAC problem: raise the quota (kubectl describe resourcequota) or request less. ${request}`
      );
    case 'admission':
      return (
        `forbidden: admission refused "${t.verb}" of ${object} (server: ${server}). This is not an RBAC ` +
        `problem: change the object to satisfy the policy the server names (PodSecurity, LimitRange, …). ${request}`
      );
  }
}

/** `{ apiGroups: ["g"], resources: ["r"], verbs: ["v"] }` as a rule is written. */
function rule(group: string, resource: string, verb: string, names?: readonly string[]): string {
  const resourceNames =
    names !== undefined ? ` resourceNames: [${names.map((n) => `"${n}"`).join(', ')}],` : '';
  return `{ apiGroups: ["${group}"], resources: ["${resource}"],${resourceNames} verbs: ["${verb}"] }`;
}

/**
 * OwnerReferencesPermissionEnforcement (`plugin/pkg/admission/gc/gc_admission.go`): references
 * changed by an update need `delete` on the object; a blocking reference needs `update` on the
 * owner's finalizers — in the child's namespace for a namespaced owner, cluster-wide otherwise.
 */
function ownerReferencesMessage(
  t: RequestTarget,
  server: string,
  object: string,
  request: string,
  status: Status,
): string {
  if ((status.message ?? '').includes(OWNER_DELETE_REFUSAL)) {
    return (
      `forbidden: "${t.verb}" of ${object} changes its ownerReferences, which the ` +
      `OwnerReferencesPermissionEnforcement admission plugin allows only with "delete" on the object ` +
      `(server: ${server}). Grant it with a ${t.namespace ? 'Role' : 'ClusterRole'} rule ` +
      `${rule(t.group ?? '', t.resource ?? '', 'delete')} bound to the identity in the kubeconfig ` +
      `(applyChildren prunes with it too). ${request}`
    );
  }
  const owners = t.blockedOwners ?? [];
  const grants =
    owners.length === 0
      ? `a rule { apiGroups: [<the owner's API group>], resources: ["<the owner's plural>/finalizers"], verbs: ["update"] }`
      : owners
          .map((o) => {
            const scope = o.namespaced === false || !t.namespace ? 'ClusterRole' : 'Role';
            const resource = `${o.resource ?? `<plural of ${o.kind}>`}/finalizers`;
            return `a ${scope} rule ${rule(o.group, resource, 'update')} (owner ${o.kind} "${o.name}")`;
          })
          .join(' and ');
  return (
    `forbidden: "${t.verb}" of ${object} sets blockOwnerDeletion on an ownerReference, which the ` +
    `OwnerReferencesPermissionEnforcement admission plugin allows only with "update" on the owner's ` +
    `finalizers subresource (server: ${server}). Grant it with ${grants} bound to the identity in the ` +
    `kubeconfig — \`rxkube rbac\` derives it for a controller that owns or writes and watches its ` +
    `children — or leave blockOwnerDeletion unset. ${request}`
  );
}

/** RBAC's escalation check (`pkg/registry/rbac/validation/rule.go` `ConfirmNoEscalation`). */
function escalationMessage(t: RequestTarget, server: string, object: string, request: string): string {
  const resource = t.resource ?? '';
  const binding = resource === 'rolebindings' || resource === 'clusterrolebindings';
  const how = binding
    ? `Grant "bind" on the role it references — ${rule('rbac.authorization.k8s.io', resource === 'rolebindings' ? 'roles' : 'clusterroles', 'bind', ['<the roleRef name>'])} (use "clusterroles" for a ClusterRole roleRef)`
    : `Grant "escalate" on it — ${rule('rbac.authorization.k8s.io', resource, 'escalate')}`;
  return (
    `forbidden: "${t.verb}" of ${object} grants permissions the identity in the kubeconfig does not ` +
    `hold, which RBAC's escalation check refuses (server: ${server}). ${how}, or grant the identity ` +
    `the permissions the server lists. ${request}`
  );
}

export function errorCodeOf(cause: unknown): string | undefined {
  if (cause !== null && typeof cause === 'object') {
    const c = (cause as { code?: unknown }).code;
    if (typeof c === 'string') return c;
  }
  return undefined;
}

export function transportHint(failure: TransportFailure, url: string, errorCode: string | undefined): string {
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // keep the text as is
  }
  switch (failure) {
    case 'tls':
      return (
        `TLS verification of ${origin} failed: check the cluster's certificate-authority(-data) and ` +
        'tls-server-name in the kubeconfig (insecure-skip-tls-verify disables the check; do not use it in production).'
      );
    case 'timeout':
      return `No answer from ${origin} in time: is the API server reachable and healthy (try /readyz)?`;
    case 'body-too-large':
      return 'Lower the list page size (limit) or raise maxResponseBytes.';
    case 'aborted':
      return 'It was cancelled on purpose (e.g. ctx.signal at the reconcile deadline): see the cause.';
    case 'protocol':
      return `${origin} did not answer like a Kubernetes API server: check the server URL of the kubeconfig's cluster.`;
    case 'network':
      return errorCode === 'ENOTFOUND' || errorCode === 'EAI_AGAIN'
        ? `The host of ${origin} does not resolve: check the server URL of the kubeconfig's current context.`
        : `Is the API server reachable at ${origin}? Check the kubeconfig's current context and cluster server, ` +
            'and any proxy or firewall in between.';
  }
}
