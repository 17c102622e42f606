/**
 * The 403 an authorizer's denial is answered with, word for word as kube-apiserver v1.24 writes it
 * (`apiserver/pkg/endpoints/handlers/responsewriters/errors.go` Forbidden and `apierrors.NewForbidden`):
 * `configmaps "x" is forbidden: User "u" cannot get resource "configmaps" in API group "" in the
 * namespace "default"`, the authorizer's reason appended after `: `, and `X-Content-Type-Options:
 * nosniff` on the response.
 *
 * @module
 */
import type { StatusBody, StatusDetails } from '../status.js';
import { ApiError, failure } from '../status.js';
import { goQuote } from '../validation/names.js';
import type { Attributes } from './attributes.js';

/**
 * Headers of the authorizer's 403 (`fixtures/kube-wire/15-forbidden.json`; admission 403s lack nosniff:
 * `20-namespace-deletion.json`).
 */
export const FORBIDDEN_HEADERS: Readonly<Record<string, string>> = { 'X-Content-Type-Options': 'nosniff' };

const sanitize = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

function forbiddenMessage(a: Attributes): string {
  const user = a.user.name;
  if (!a.resourceRequest) return `User ${goQuote(user)} cannot ${a.verb} path ${goQuote(a.path)}`;
  const resource = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
  const scope = a.namespace === '' ? 'at the cluster scope' : `in the namespace ${goQuote(a.namespace)}`;
  return `User ${goQuote(user)} cannot ${a.verb} resource ${goQuote(resource)} in API group ${goQuote(a.apiGroup)} ${scope}`;
}

/**
 * `apierrors.NewForbidden(groupResource, name, err)`: the Status every Forbidden carries (the
 * authorizer's, the escalation check's, admission's).
 */
export function forbiddenStatus(group: string, resource: string, name: string, err: string): StatusBody {
  const qualified = group === '' ? resource : `${resource}.${group}`;
  let message: string;
  if (group === '' && resource === '') message = `forbidden: ${err}`;
  else if (name === '') message = `${qualified} is forbidden: ${err}`;
  else message = `${qualified} ${goQuote(name)} is forbidden: ${err}`;
  const details: StatusDetails = {
    ...(name !== '' ? { name } : {}),
    ...(group !== '' ? { group } : {}),
    ...(resource !== '' ? { kind: resource } : {}),
  };
  return failure(403, 'Forbidden', message, details);
}

/** The authorizer's 403 for a denied request, with the denial's reason. */
export function forbiddenError(a: Attributes, reason: string): ApiError {
  const msg = sanitize(forbiddenMessage(a));
  const err = reason === '' ? msg : `${msg}: ${reason}`;
  return new ApiError(forbiddenStatus(a.apiGroup, a.resource, a.name, err), FORBIDDEN_HEADERS);
}
