/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
/**
 * Test support for differential tests: the same request sent to the embedded server and to a real
 * kube-apiserver, and the two answers compared after normalising what differs by run (uids,
 * resourceVersions, timestamps, managedFields times and their order). Not exported.
 *
 * ## Example
 * ```ts
 * const twin = new Twin(await startApiServer(), await startControlPlane());
 * const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { k: 'v' } };
 * const step = await twin.send({ method: 'PATCH', path: '/api/v1/namespaces/d/configmaps/c?fieldManager=a', body, type: 'apply' });
 * expect(step.diffs).toEqual([]);
 * ```
 *
 * @module
 */
import { AdminClient } from '../cluster/admin-client.js';
import type { ControlPlane } from '../control-plane/control-plane.js';
import type { ApiServer } from '../server.js';

/** Content types by short name. */
export const CONTENT_TYPES = {
  apply: 'application/apply-patch+yaml',
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  body: 'application/json',
} as const;

/** One request of a scenario. */
export interface TwinRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  readonly body?: unknown;
  /** Content type (default `body`, i.e. `application/json`). */
  readonly type?: keyof typeof CONTENT_TYPES;
  /**
   * A read-modify-write: each server's own object is read from `path`, changed by `edit` and sent
   * back with `method` (`PUT`) — as a controller does, managedFields and all.
   */
  readonly edit?: (obj: any) => void;
  /** Paths (`status`, `spec.clusterIP`) left out of the comparison: values only one server makes. */
  readonly ignore?: readonly string[];
}

/** Both answers, normalised, and what differs. */
export interface TwinReply {
  readonly status: [number, number];
  readonly embedded: unknown;
  readonly real: unknown;
  readonly diffs: string[];
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

/** Managed fields without times, in a stable order (the order follows the times, which differ by run). */
export function normaliseManagedFields(mf: unknown): unknown {
  if (!Array.isArray(mf)) return mf;
  const key = (e: any): string => JSON.stringify([e.operation, e.manager, e.apiVersion, e.subresource ?? '']);
  return mf
    .map((e: any) => {
      const { time: _t, ...rest } = e;
      return rest;
    })
    .sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}

/** An object or Status with run-specific values replaced. */
export function normalise(body: unknown): any {
  if (typeof body !== 'object' || body === null) return body;
  const c = JSON.parse(JSON.stringify(body).replace(UUID, '<uid>'));
  const strip = (o: any): void => {
    if (!o || typeof o !== 'object' || !o.metadata) return;
    for (const k of ['resourceVersion', 'creationTimestamp', 'selfLink']) delete o.metadata[k];
    if (o.metadata.managedFields) o.metadata.managedFields = normaliseManagedFields(o.metadata.managedFields);
  };
  strip(c);
  if (Array.isArray(c.items)) for (const item of c.items) strip(item);
  // SMD lists several errors in Go's map order, which changes from run to run
  if (c.kind === 'Status' && typeof c.message === 'string' && c.message.includes(': errors:\n')) {
    const [head, ...lines] = c.message.split('\n');
    c.message = [head, ...lines.sort()].join('\n');
  }
  return c;
}

/** Deletes `a.b.c` from `o`. */
function drop(o: any, path: string): void {
  const parts = path.split('.');
  const last = parts.pop() ?? '';
  let cur = o;
  for (const p of parts) cur = cur?.[p];
  if (cur && typeof cur === 'object') delete cur[last];
}

/** The differences of two normalised values, as `path: embedded ≠ real` lines. */
export function differences(e: unknown, r: unknown, path = ''): string[] {
  if (JSON.stringify(e) === JSON.stringify(r)) return [];
  const isObj = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObj(e) && isObj(r)) {
    const keys = [...new Set([...Object.keys(e), ...Object.keys(r)])].sort();
    return keys.flatMap((k) => differences(e[k], r[k], `${path}.${k}`));
  }
  if (Array.isArray(e) && Array.isArray(r) && e.length === r.length)
    return e.flatMap((x, i) => differences(x, r[i], `${path}[${String(i)}]`));
  return [`${path || '.'}: embedded ${JSON.stringify(e)} ≠ real ${JSON.stringify(r)}`];
}

/** A normalised answer. */
export interface Answer {
  readonly status: number;
  readonly body: unknown;
}

/** Sends `req` to one server and normalises the answer (what `ignore` names is dropped). */
export async function sendTo(client: AdminClient, req: TwinRequest): Promise<Answer> {
  const type = CONTENT_TYPES[req.type ?? 'body'];
  let reply: { status: number; body: unknown };
  if (!req.edit) reply = await client.request(req.method, req.path, req.body, type);
  else {
    const current = await client.request('GET', req.path);
    if (current.status === 200) req.edit(current.body);
    reply = current.status === 200 ? await client.request(req.method, req.path, current.body, type) : current;
  }
  const body = normalise(reply.body);
  for (const path of req.ignore ?? []) drop(body, path);
  return { status: reply.status, body };
}

/** What differs between two normalised answers. */
export function answerDiffs(e: Answer, r: Answer): string[] {
  return [
    ...(e.status === r.status ? [] : [`status: embedded ${String(e.status)} ≠ real ${String(r.status)}`]),
    ...differences(e.body, r.body),
  ];
}

/** Polls `path` until every client answers 200 (a CRD's resources becoming served). */
export async function waitServed(
  clients: readonly AdminClient[],
  path: string,
  timeoutMs = 30_000,
): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const statuses = await Promise.all(clients.map(async (c) => (await c.request('GET', path)).status));
    if (statuses.every((s) => s === 200)) return;
    if (Date.now() > end) throw new Error(`${path} not served (${statuses.join(', ')})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The embedded server and a real control plane, side by side. */
export class Twin {
  readonly embedded: AdminClient;
  readonly real: AdminClient;

  constructor(embedded: ApiServer, real: ControlPlane) {
    this.embedded = new AdminClient({ url: embedded.url, token: embedded.token });
    this.real = new AdminClient({ url: real.url, token: real.token, ca: real.ca });
  }

  /** Sends `req` to both (at once) and compares status and normalised bodies. */
  async send(req: TwinRequest): Promise<TwinReply> {
    const [e, r] = await Promise.all([sendTo(this.embedded, req), sendTo(this.real, req)]);
    return { status: [e.status, r.status], embedded: e.body, real: r.body, diffs: answerDiffs(e, r) };
  }

  /** Polls `path` on both until both answer 200. */
  waitServed(path: string, timeoutMs = 30_000): Promise<void> {
    return waitServed([this.embedded, this.real], path, timeoutMs);
  }
}
