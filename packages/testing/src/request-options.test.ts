/* eslint-disable @typescript-eslint/no-unsafe-member-access -- response bodies are untyped JSON */
// Request options and body media types as kube-apiserver v1.24 checks them (every expected body was
// read from the real server): apimachinery/pkg/apis/meta/v1/validation/validation.go (Create, Update,
// Patch, Delete options), apimachinery/pkg/apis/meta/internalversion/validation/validation.go
// (ListOptions), the parameter codec's conversions (apimachinery/pkg/runtime/conversion.go), and the
// handlers' order in apiserver/pkg/endpoints/handlers/{create,update,patch,delete,get}.go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import type { ApiServer } from './server.js';
import { startApiServer } from './server.js';

let server: ApiServer;
const NS = 'opts';
const CM = `/api/v1/namespaces/${NS}/configmaps`;

beforeAll(async () => {
  // as 1.24: no WatchList (its 1.34 validation is in watch-list.test.ts)
  server = await startApiServer({ watchList: false, logger: { error: () => undefined } });
  expect(
    (await call(server.url, 'POST', '/api/v1/namespaces', { body: { metadata: { name: NS } } })).status,
  ).toBe(201);
  expect((await call(server.url, 'POST', CM, { body: { metadata: { name: 'o1' } } })).status).toBe(201);
});
afterAll(async () => {
  await server.stop();
});

const optionsStatus = (kind: string, message: string, causes: unknown[]): unknown => ({
  kind: 'Status',
  apiVersion: 'v1',
  metadata: {},
  status: 'Failure',
  message: `${kind}.meta.k8s.io "" is invalid: ${message}`,
  reason: 'Invalid',
  details: { group: 'meta.k8s.io', kind, causes },
  code: 422,
});
const DRY_RUN_BOGUS = {
  reason: 'FieldValueNotSupported',
  message: 'Unsupported value: []string{"bogus"}: supported values: "All"',
  field: 'dryRun',
};

describe('CreateOptions and UpdateOptions', () => {
  it('dryRun accepts only All, listing every value given', async () => {
    const r = await call(server.url, 'POST', `${CM}?dryRun=bogus`, { body: { metadata: { name: 'x' } } });
    expect(r.status).toBe(422);
    expect(r.body).toEqual(
      optionsStatus(
        'CreateOptions',
        'dryRun: Unsupported value: []string{"bogus"}: supported values: "All"',
        [DRY_RUN_BOGUS],
      ),
    );
    const two = await call(server.url, 'POST', `${CM}?dryRun=All&dryRun=`, {
      body: { metadata: { name: 'x' } },
    });
    expect(two.body.details.causes[0].message).toBe(
      'Unsupported value: []string{"All", ""}: supported values: "All"',
    );
    const u = await call(server.url, 'PUT', `${CM}/o1?dryRun=bogus`, { body: { metadata: { name: 'o1' } } });
    expect(u.body).toEqual(
      optionsStatus(
        'UpdateOptions',
        'dryRun: Unsupported value: []string{"bogus"}: supported values: "All"',
        [DRY_RUN_BOGUS],
      ),
    );
  });

  it('fieldManager: at most 128 bytes of printable characters, checked before dryRun', async () => {
    const r = await call(server.url, 'POST', `${CM}?dryRun=bogus&fieldManager=${'m'.repeat(129)}`, {
      body: { metadata: { name: 'x' } },
    });
    expect(r.body).toEqual(
      optionsStatus(
        'CreateOptions',
        '[fieldManager: Too long: must have at most 128 bytes, dryRun: Unsupported value: []string{"bogus"}: supported values: "All"]',
        [
          {
            reason: 'FieldValueTooLong',
            message: 'Too long: must have at most 128 bytes',
            field: 'fieldManager',
          },
          DRY_RUN_BOGUS,
        ],
      ),
    );
    const np = await call(server.url, 'POST', `${CM}?fieldManager=a%01b%7Fc`, {
      body: { metadata: { name: 'x' } },
    });
    expect(np.body.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: [fieldManager: Invalid value: "a\\x01b\\x7fc": invalid character U+0001 (at position 1), fieldManager: Invalid value: "a\\x01b\\x7fc": invalid character U+007F (at position 3)]',
    );
  });

  it('fieldValidation takes "", Ignore, Strict or Warn', async () => {
    const r = await call(server.url, 'POST', `${CM}?fieldValidation=Bogus`, {
      body: { metadata: { name: 'x' } },
    });
    expect(r.body.message).toBe(
      'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });
});

describe('PatchOptions', () => {
  it('force is forbidden outside apply, whatever its value', async () => {
    for (const v of ['true', 'false', 'bogus']) {
      const r = await call(server.url, 'PATCH', `${CM}/o1?force=${v}`, {
        body: { data: { a: 'b' } },
        contentType: 'application/merge-patch+json',
      });
      expect(r.body).toEqual(
        optionsStatus('PatchOptions', 'force: Forbidden: may not be specified for non-apply patch', [
          {
            reason: 'FieldValueForbidden',
            message: 'Forbidden: may not be specified for non-apply patch',
            field: 'force',
          },
        ]),
      );
    }
    expect((await call(server.url, 'GET', `${CM}/o1`)).body.data).toBeUndefined();
  });

  it('apply needs a fieldManager; every cause is listed', async () => {
    const r = await call(server.url, 'PATCH', `${CM}/o1?dryRun=bogus`, {
      body: 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: o1\n',
      contentType: 'application/apply-patch+yaml',
    });
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldValueRequired',
        message: 'Required value: is required for apply patch',
        field: 'fieldManager',
      },
      DRY_RUN_BOGUS,
    ]);
  });
});

describe('DeleteOptions', () => {
  it('an unknown propagationPolicy is 422 DeleteOptions (query or body)', async () => {
    const expected = optionsStatus(
      'DeleteOptions',
      'propagationPolicy: Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
      [
        {
          reason: 'FieldValueNotSupported',
          message:
            'Unsupported value: "Bogus": supported values: "Foreground", "Background", "Orphan", "nil"',
          field: 'propagationPolicy',
        },
      ],
    );
    expect((await call(server.url, 'DELETE', `${CM}/o1?propagationPolicy=Bogus`)).body).toEqual(expected);
    const body = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Bogus' };
    expect((await call(server.url, 'DELETE', `${CM}/o1`, { body })).body).toEqual(expected);
    // deletecollection validates its DeleteOptions the same way
    expect((await call(server.url, 'DELETE', `${CM}?propagationPolicy=Bogus`)).body).toEqual(expected);
  });

  it('orphanDependents and propagationPolicy together are refused', async () => {
    const r = await call(server.url, 'DELETE', `${CM}/o1?orphanDependents=true&propagationPolicy=Background`);
    expect(r.body.details.causes).toEqual([
      {
        reason: 'FieldValueInvalid',
        message: 'Invalid value: "Background": orphanDependents and deletionPropagation cannot be both set',
        field: 'propagationPolicy',
      },
    ]);
  });

  it('gracePeriodSeconds must be an integer (400 from the parameter codec)', async () => {
    const r = await call(server.url, 'DELETE', `${CM}/o1?gracePeriodSeconds=abc`);
    expect(r.status).toBe(400);
    expect(r.body.message).toBe('strconv.ParseInt: parsing "abc": invalid syntax');
  });

  it('a body that is not DeleteOptions is a 500 with the decoder message', async () => {
    const bad = await call(server.url, 'DELETE', `${CM}/o1`, { body: '{bad' });
    expect(bad.status).toBe(500);
    expect(bad.body.message).toBe(
      "couldn't get version/kind; json parse error: invalid character 'b' looking for beginning of object key string",
    );
    const kind = await call(server.url, 'DELETE', `${CM}/o1`, {
      body: { kind: 'ConfigMap', apiVersion: 'v1' },
    });
    expect(kind.status).toBe(500);
    expect(kind.body.message).toBe(
      'no kind "ConfigMap" is registered for version "v1" in scheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27"',
    );
    expect((await call(server.url, 'GET', `${CM}/o1`)).status).toBe(200);
  });

  it('with a body, the query options are ignored (handlers/delete.go): dryRun in the URL does not apply', async () => {
    await call(server.url, 'POST', CM, { body: { metadata: { name: 'd-body' } } });
    const r = await call(server.url, 'DELETE', `${CM}/d-body?dryRun=All`, {
      body: 'kind: DeleteOptions\napiVersion: v1\n',
      contentType: 'application/yaml',
    });
    expect(r.status).toBe(200);
    expect((await call(server.url, 'GET', `${CM}/d-body`)).status).toBe(404);
  });

  it('orphanDependents=false on an object that stays answers 202 Accepted', async () => {
    await call(server.url, 'POST', CM, {
      body: { metadata: { name: 'd-202', finalizers: ['example.com/keep'] } },
    });
    const r = await call(server.url, 'DELETE', `${CM}/d-202?orphanDependents=false`);
    expect(r.status).toBe(202);
    expect(r.body.metadata.deletionTimestamp).toBeDefined();
  });
});

describe('ListOptions', () => {
  const rvmCause = (message: string): unknown => ({
    reason: 'FieldValueForbidden',
    message: `Forbidden: ${message}`,
    field: 'resourceVersionMatch',
  });

  it('resourceVersionMatch combinations', async () => {
    expect(
      (await call(server.url, 'GET', `${CM}?resourceVersionMatch=Exact&resourceVersion=0`)).body.details
        .causes,
    ).toEqual([rvmCause('resourceVersionMatch "exact" is forbidden for resourceVersion "0"')]);
    expect(
      (
        await call(
          server.url,
          'GET',
          `${CM}?resourceVersionMatch=NotOlderThan&resourceVersion=1&continue=abc`,
        )
      ).body.details.causes,
    ).toEqual([rvmCause('resourceVersionMatch is forbidden when continue is provided')]);
    expect(
      (await call(server.url, 'GET', `${CM}?watch=true&resourceVersionMatch=NotOlderThan&resourceVersion=1`))
        .body,
    ).toEqual(
      optionsStatus(
        'ListOptions',
        'resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden for watch',
        [rvmCause('resourceVersionMatch is forbidden for watch')],
      ),
    );
    expect(
      (await call(server.url, 'GET', `${CM}?resourceVersionMatch=Bogus&resourceVersion=1`)).body.details
        .causes,
    ).toEqual([
      {
        reason: 'FieldValueNotSupported',
        message: 'Unsupported value: "Bogus": supported values: "Exact", "NotOlderThan", ""',
        field: 'resourceVersionMatch',
      },
    ]);
    // deletecollection lists with ListOptions first
    const dc = await call(server.url, 'DELETE', `${CM}?resourceVersionMatch=Exact`);
    expect(dc.body.details).toMatchObject({ kind: 'ListOptions' });
  });

  it('limit and timeoutSeconds must be integers; a negative limit means no limit', async () => {
    for (const q of ['limit=abc', 'timeoutSeconds=abc']) {
      const r = await call(server.url, 'GET', `${CM}?${q}`);
      expect(r.status).toBe(400);
      expect(r.body.message).toBe('strconv.ParseInt: parsing "abc": invalid syntax');
    }
    expect((await call(server.url, 'GET', `${CM}?limit=99999999999999999999`)).body.message).toBe(
      'strconv.ParseInt: parsing "99999999999999999999": value out of range',
    );
    const all = await call(server.url, 'GET', `${CM}?limit=-1`);
    expect(all.status).toBe(200);
    expect(all.body.metadata.continue).toBeUndefined();
  });

  it('booleans follow Go: only absent, 0 and false are false (watch=yes watches)', async () => {
    const r = await call(server.url, 'GET', `${CM}?watch=yes&timeoutSeconds=1`);
    expect(r.headers['transfer-encoding']).toBe('chunked');
    expect(
      r.text
        .split('\n')
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { type: string }).type),
    ).toContain('ADDED');
  });

  it('a get at a non-numeric resourceVersion is a 500 like the storage answers', async () => {
    const r = await call(server.url, 'GET', `${CM}/o1?resourceVersion=abc`);
    expect(r.status).toBe(500);
    expect(r.body.message).toBe(
      'resourceVersion: Invalid value: "abc": strconv.ParseUint: parsing "abc": invalid syntax',
    );
  });

  it('a get at a resourceVersion not reached yet is a 504 like a list', async () => {
    const r = await call(server.url, 'GET', `${CM}/o1?resourceVersion=99999999`);
    expect(r.status).toBe(504);
    expect(r.headers['retry-after']).toBe('1');
    expect(r.body.message).toBe(
      `Timeout: Too large resource version: 99999999, current: ${String(server.resourceVersion)}`,
    );
  });

  it('a bad includeObject is reported by the Table conversion', async () => {
    const r = await call(server.url, 'GET', `${CM}?includeObject=Bogus`, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io',
    });
    expect(r.body.message).toBe(
      "Unable to convert to Table as requested: includeObject: Invalid value: \"Bogus\": must be 'Metadata', 'Object', 'None', or empty",
    );
    expect((await call(server.url, 'GET', `${CM}?includeObject=Bogus`)).status).toBe(200);
  });
});

describe('body media types (negotiation.NegotiateInputSerializer)', () => {
  const unknownFormat =
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml, application/vnd.kubernetes.protobuf';

  it('POST, PUT and a DELETE body in another media type are 415', async () => {
    for (const [method, path] of [
      ['POST', CM],
      ['PUT', `${CM}/o1`],
      ['DELETE', `${CM}/o1`],
    ] as const) {
      for (const contentType of ['text/plain', 'application/merge-patch+json', '*/*', 'bogus']) {
        const r = await call(server.url, method, path, { body: { metadata: { name: 'o1' } }, contentType });
        expect(r.status).toBe(415);
        expect(r.body).toEqual({
          kind: 'Status',
          apiVersion: 'v1',
          metadata: {},
          status: 'Failure',
          message: unknownFormat,
          reason: 'UnsupportedMediaType',
          code: 415,
        });
      }
    }
  });

  it('subresource PUTs too (scale, finalize)', async () => {
    await call(server.url, 'POST', `/apis/apps/v1/namespaces/${NS}/deployments`, {
      body: {
        metadata: { name: 'd' },
        spec: {
          selector: { matchLabels: { a: 'b' } },
          template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
        },
      },
    });
    for (const path of [
      `/apis/apps/v1/namespaces/${NS}/deployments/d/scale`,
      `/api/v1/namespaces/${NS}/finalize`,
    ]) {
      const r = await call(server.url, 'PUT', path, { body: { spec: {} }, contentType: 'text/plain' });
      expect([r.status, r.body.message]).toEqual([415, unknownFormat]);
    }
  });

  it('JSON with parameters and YAML are decoded; a JSON body labelled protobuf is refused like the real decoder', async () => {
    const json = await call(server.url, 'POST', `${CM}?dryRun=All`, {
      body: { metadata: { name: 'j1' } },
      contentType: 'application/json;charset=utf-8',
    });
    expect(json.status).toBe(201);
    const yaml = await call(server.url, 'POST', `${CM}?dryRun=All`, {
      body: 'metadata:\n  name: y1\n',
      contentType: 'application/yaml',
    });
    expect(yaml.status).toBe(201);
    const pb = await call(server.url, 'POST', CM, {
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p1' } },
      contentType: 'application/vnd.kubernetes.protobuf',
    });
    expect(pb.status).toBe(400);
    expect(pb.body.message).toBe(
      'the object provided is unrecognized (must be of type ConfigMap): provided data does not appear to be a protobuf message, expected prefix [107 56 115 0] ({"apiVersion":"v1","kind":"Con ...)',
    );
  });

  it('malformed JSON gets Go decoder messages, non-objects shown in hex', async () => {
    const r = await call(server.url, 'POST', CM, { body: '[1 2]' });
    expect(r.body.message).toBe(
      "the object provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse error: invalid character '2' after array element (5b3120325d)",
    );
  });
});
