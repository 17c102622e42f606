// faults.stall: a matching request gets no answer while its client stays; the server lists it as
// held until its connection closes (the client aborted, or the server stopped), counts it once, and
// answers requests after the rule is used up.
import { request } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';

import { afterEach, beforeEach, describe, expect, it } from 'vitest';

import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';
import { waitFor } from './wait-for.js';

let server: ApiServer;
const CM = '/api/v1/namespaces/default/configmaps';

beforeEach(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
});
afterEach(async () => {
  await server.stop();
});

/** A GET of `path` without keep-alive: its outcome, and the request to destroy. */
function get(path: string): { req: ClientRequest; outcome: Promise<number | Error> } {
  const req = request(`${server.url}${path}`, {
    headers: { Authorization: `Bearer ${server.token}`, Connection: 'close' },
  });
  const outcome = new Promise<number | Error>((resolve) => {
    req.on('response', (res: IncomingMessage) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', resolve);
  });
  req.end();
  return { req, outcome };
}

describe('faults.stall', () => {
  it('holds a matching request unanswered until the client closes it, then lists it no more', async () => {
    server.faults.stall({ method: 'GET', path: /\/configmaps\/held$/, count: 1 });
    expect(server.faults.pending()).toMatchObject([{ kind: 'stall', remaining: 1 }]);
    const held = get(`${CM}/held`);
    await waitFor('the request to be held', () => server.faults.stalledRequests().length === 1);
    expect(server.faults.stalledRequests()).toEqual([{ method: 'GET', path: `${CM}/held` }]);
    expect(server.faults.counts.requestsStalled).toBe(1);
    expect(server.faults.pending()).toEqual([]);
    // another request is answered meanwhile, and the same one once the rule is used up
    expect(await get(`${CM}/other`).outcome).toBe(404);
    held.req.destroy(new Error('the client gave up'));
    expect(await held.outcome).toBeInstanceOf(Error);
    await waitFor('the held request to be released', () => server.faults.stalledRequests().length === 0);
    expect(await get(`${CM}/held`).outcome).toBe(404);
    expect(server.faults.counts.requestsStalled).toBe(1);
  });

  it('releases held requests when the server stops; reset drops rules not used up', async () => {
    server.faults.stall({ path: /\/configmaps\/a$/ });
    const held = get(`${CM}/a`);
    await waitFor('the request to be held', () => server.faults.stalledRequests().length === 1);
    server.faults.reset();
    expect(server.faults.pending()).toEqual([]);
    expect(await get(`${CM}/a`).outcome).toBe(404);
    await server.stop();
    expect(await held.outcome).toBeInstanceOf(Error);
    expect(server.faults.stalledRequests()).toEqual([]);
    server = await startApiServer({ logger: { error: () => undefined } });
  });

  it('refuses a count that is not a positive integer', () => {
    expect(() => server.faults.stall({ count: 0 })).toThrow(RangeError);
    expect(() => server.faults.stall({ count: 1.5 })).toThrow(RangeError);
  });
});
