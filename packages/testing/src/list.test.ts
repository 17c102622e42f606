/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- response bodies are untyped JSON */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const CM = '/api/v1/namespaces/wire/configmaps';

function decodeToken(t: string): unknown {
  return JSON.parse(Buffer.from(t, 'base64url').toString('utf8'));
}

beforeAll(async () => {
  server = await startApiServer({ logger: { error: () => undefined } });
  await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: 'wire' } } });
  await call(server.url, 'POST', CM, {
    body: { metadata: { name: 'kube-root-ca.crt' }, data: { 'ca.crt': 'x' } },
  });
  for (let i = 1; i <= 5; i++) {
    await call(server.url, 'POST', CM, {
      body: {
        metadata: { name: `s04-p${String(i)}`, labels: { set: 's04', tier: i % 2 ? 'odd' : 'even' } },
        data: { i: String(i) },
      },
    });
  }
});
afterAll(async () => {
  await server.stop();
});

describe('list pagination (file 04)', () => {
  it('pages of 2 with the real continue token and remainingItemCount; every page at the first RV', async () => {
    const p1 = await call(server.url, 'GET', `${CM}?limit=2`);
    expect(p1.body.kind).toBe('ConfigMapList');
    expect(p1.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      'kube-root-ca.crt',
      's04-p1',
    ]);
    expect(p1.body.items[0].kind).toBeUndefined();
    const rv = p1.body.metadata.resourceVersion as string;
    expect(p1.body.metadata.remainingItemCount).toBe(4);
    expect(decodeToken(p1.body.metadata.continue)).toEqual({
      v: 'meta.k8s.io/v1',
      rv: Number(rv),
      start: 's04-p1\u0000',
    });
    await call(server.url, 'POST', CM, { body: { metadata: { name: 's04-late' } } });
    const p2 = await call(server.url, 'GET', `${CM}?limit=2&continue=${String(p1.body.metadata.continue)}`);
    expect(p2.body.metadata.resourceVersion).toBe(rv);
    expect(p2.body.metadata.remainingItemCount).toBe(2);
    expect(p2.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      's04-p2',
      's04-p3',
    ]);
    const p3 = await call(server.url, 'GET', `${CM}?limit=2&continue=${String(p2.body.metadata.continue)}`);
    expect(p3.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      's04-p4',
      's04-p5',
    ]);
    expect(p3.body.metadata).toEqual({ resourceVersion: rv });
    await call(server.url, 'DELETE', `${CM}/s04-late`);
  });

  it('paged selector lists return every match (the v1.24 bug is not copied) and no remainingItemCount', async () => {
    const names: string[][] = [];
    let cont = '';
    for (;;) {
      const r = await call(
        server.url,
        'GET',
        `${CM}?labelSelector=set%3Ds04&limit=2${cont ? `&continue=${cont}` : ''}`,
      );
      expect(r.body.metadata.remainingItemCount).toBeUndefined();
      names.push(r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name));
      if (!r.body.metadata.continue) break;
      cont = r.body.metadata.continue as string;
    }
    expect(names).toEqual([['s04-p1', 's04-p2'], ['s04-p3', 's04-p4'], ['s04-p5']]);
  });

  it('set-based label selectors and field selectors', async () => {
    const r = await call(server.url, 'GET', `${CM}?labelSelector=set%20in%20(s04)%2Ctier!%3Dodd`);
    expect(r.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual([
      's04-p2',
      's04-p4',
    ]);
    const f = await call(server.url, 'GET', `${CM}?fieldSelector=metadata.name%3Ds04-p3`);
    expect(f.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).toEqual(['s04-p3']);
  });

  it('resourceVersion=0 ignores limit; all-namespace tokens carry ns/name', async () => {
    const r = await call(server.url, 'GET', `${CM}?limit=2&resourceVersion=0`);
    expect(r.body.items).toHaveLength(6);
    expect(r.body.metadata.continue).toBeUndefined();
    const all = await call(server.url, 'GET', '/api/v1/configmaps?limit=3');
    expect(all.body.items).toHaveLength(3);
    const tok = decodeToken(all.body.metadata.continue) as { start: string };
    expect(tok.start).toBe('wire/s04-p2\u0000');
  });

  it('400 for bad selectors and tokens', async () => {
    const f = await call(server.url, 'GET', `${CM}?fieldSelector=data.i%3D1`);
    expect(f.status).toBe(400);
    expect(f.body.message).toBe(
      '"data.i" is not a known field selector: only "metadata.name", "metadata.namespace"',
    );
    const l = await call(server.url, 'GET', `${CM}?labelSelector=set%3D%3D(`);
    expect(l.body.message).toBe("unable to parse requirement: found '(', expected: identifier");
    const t = await call(server.url, 'GET', `${CM}?limit=2&continue=garbage`);
    expect(t.status).toBe(400);
    expect(t.body.message).toMatch(/^invalid continue token: continue key is not valid: /);
  });

  it('resourceVersion rules: Exact after compaction → 410, match without RV → 422, future → 504, abc → 500', async () => {
    const p1 = await call(server.url, 'GET', `${CM}?limit=2`);
    const rv = p1.body.metadata.resourceVersion as string;
    await call(server.url, 'POST', CM, { body: { metadata: { name: 's05-w1' } } });
    const exactBefore = await call(
      server.url,
      'GET',
      `${CM}?resourceVersion=${rv}&resourceVersionMatch=Exact`,
    );
    expect(exactBefore.status).toBe(200);
    expect(exactBefore.body.items.map((i: { metadata: { name: string } }) => i.metadata.name)).not.toContain(
      's05-w1',
    );
    server.faults.compact();
    const cont = await call(server.url, 'GET', `${CM}?limit=2&continue=${String(p1.body.metadata.continue)}`);
    expect(cont.status).toBe(410);
    expect(cont.body.reason).toBe('Expired');
    expect(cont.body.message).toMatch(/^The provided continue parameter is too old/);
    expect(decodeToken(cont.body.metadata.continue)).toEqual({
      v: 'meta.k8s.io/v1',
      rv: -1,
      start: 's04-p1\u0000',
    });
    const rest = await call(
      server.url,
      'GET',
      `${CM}?limit=2&continue=${String(cont.body.metadata.continue)}`,
    );
    expect(rest.status).toBe(200);
    expect(rest.body.metadata.resourceVersion).toBe(String(server.resourceVersion));
    const exact = await call(server.url, 'GET', `${CM}?resourceVersion=${rv}&resourceVersionMatch=Exact`);
    expect(exact.status).toBe(410);
    expect(exact.body.message).toBe('The resourceVersion for the provided list is too old.');
    const noRv = await call(server.url, 'GET', `${CM}?resourceVersionMatch=Exact`);
    expect(noRv.status).toBe(422);
    expect(noRv.body.details.kind).toBe('ListOptions');
    const future = await call(
      server.url,
      'GET',
      `${CM}?resourceVersion=${String(server.resourceVersion + 100000)}`,
    );
    expect(future.status).toBe(504);
    expect(future.body.details.causes[0].reason).toBe('ResourceVersionTooLarge');
    const abc = await call(server.url, 'GET', `${CM}?resourceVersion=abc`);
    expect(abc.status).toBe(500);
    expect(abc.body.message).toBe(
      'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    );
  });

  it('metadata-only lists and gets; 406 for unknown as= (file 16)', async () => {
    const r = await call(server.url, 'GET', `${CM}?labelSelector=set%3Ds04&limit=1`, {
      accept: 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json',
    });
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body.kind).toBe('PartialObjectMetadataList');
    expect(r.body.items[0]).toMatchObject({ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1' });
    expect(r.body.items[0].data).toBeUndefined();
    const g = await call(server.url, 'GET', `${CM}/s04-p1`, {
      accept: 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1',
    });
    expect(g.body.kind).toBe('PartialObjectMetadata');
    const bogus = await call(server.url, 'GET', CM, {
      accept: 'application/json;as=Bogus;g=meta.k8s.io;v=v1',
    });
    expect(bogus.status).toBe(406);
    expect(bogus.body.message).toBe(
      'only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf',
    );
  });

  it('large bodies are chunked, small ones carry Content-Length (file 21)', async () => {
    const big = await call(server.url, 'GET', CM);
    expect(big.headers['transfer-encoding']).toBe('chunked');
    const small = await call(server.url, 'GET', `${CM}/s04-p1`);
    expect(small.headers['content-length']).toBe(String(Buffer.byteLength(small.text)));
  });
});
