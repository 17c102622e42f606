/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-explicit-any -- response bodies are untyped JSON */
/**
 * CRD `x-kubernetes-validations` on writes, the same on both backends: 60 objects (valid and
 * invalid; creates, updates and merge patches with transition rules, status updates) through one CRD's rules, with
 * the verdicts, Status messages and causes kube-apiserver v1.24 (feature gate
 * CustomResourceValidationExpressions on) answered — recorded in
 * packages/cel/fixtures/crd-cases.json (README beside it). Record again with
 * `RXKUBE_CEL_RECORD=1 RXKUBE_TEST_BACKEND=real`.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { beforeAll, expect, it } from 'vitest';

import { call } from './internal/test-client.js';
import { describeEachBackend } from './vitest/describe-each-backend.js';
import { waitFor } from './wait-for.js';

const FIXTURE = join(import.meta.dirname, '../../cel/fixtures/crd-cases.json');
const fixture: { crd: unknown; cases: any[] } = JSON.parse(readFileSync(FIXTURE, 'utf8'));
const PATH = '/apis/cel.example.com/v1/gadgets';

interface Outcome {
  code: number;
  message?: string;
  causes?: { reason: string; field: string; message: string }[];
}

/**
 * The outcome without what the server does not order: kube-apiserver walks an object's
 * properties in Go map order, so several errors come in any order — sorted here, after checking
 * the message lists exactly the causes.
 */
function outcome(r: { status: number; body: any }): Outcome {
  if (r.status < 300) return { code: r.status };
  const causes = ((r.body.details?.causes ?? []) as any[]).map((c) => ({
    reason: c.reason,
    field: c.field,
    message: c.message,
  }));
  const items = causes.map((c) => `${c.field}: ${c.message}`);
  const message: string = r.body.message;
  const at = message.indexOf(' is invalid: ');
  const prefix = message.slice(0, at + ' is invalid: '.length);
  const listed =
    items.length === 1
      ? items[0]
      : `[${[...items].sort((a, b) => message.indexOf(a) - message.indexOf(b)).join(', ')}]`;
  expect(message, 'the message lists the causes').toBe(`${prefix}${listed}`);
  const sorted = [...items].sort();
  return {
    code: r.status,
    message: `${prefix}${sorted.length === 1 ? sorted[0] : `[${sorted.join(', ')}]`}`,
    causes: causes.sort((a, b) => `${a.field}: ${a.message}`.localeCompare(`${b.field}: ${b.message}`)),
  };
}

describeEachBackend('CRD x-kubernetes-validations (CEL) on writes, as kube-apiserver v1.24', (b) => {
  const opts = (body?: unknown) => ({
    headers: { Authorization: `Bearer ${b.cluster.token}` },
    ...(b.cluster.controlPlane !== undefined ? { ca: b.cluster.controlPlane.ca } : {}),
    ...(body === undefined ? {} : { body }),
  });
  const recording = process.env['RXKUBE_CEL_RECORD'] === '1' && b.name === 'real';
  const recorded: Record<string, Outcome> = {};

  beforeAll(async () => {
    const crd = await call(
      b.cluster.url,
      'POST',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
      opts(fixture.crd),
    );
    expect(crd.status, crd.text).toBe(201);
    await waitFor(
      'gadgets.cel.example.com served',
      async () => (await call(b.cluster.url, 'GET', PATH, opts())).status === 200,
    );
  });

  it.each(fixture.cases.map((c: any) => [c.name, c]))('%s', async (_name, c: any) => {
    let r;
    const name = c.object.metadata.name;
    if (c.op === 'create') r = await call(b.cluster.url, 'POST', PATH, opts(c.object));
    else {
      const created = await call(b.cluster.url, 'POST', PATH, opts(c.old));
      expect(created.status, created.text).toBe(201);
      let rv = created.body.metadata.resourceVersion;
      if (c.op === 'status' && c.old.status !== undefined) {
        // status is dropped on create: write the old status first
        const s = await call(
          b.cluster.url,
          'PUT',
          `${PATH}/${name}/status`,
          opts({ ...created.body, status: c.old.status }),
        );
        expect(s.status, s.text).toBe(200);
        rv = s.body.metadata.resourceVersion;
      }
      const next = { ...c.object, metadata: { ...c.object.metadata, resourceVersion: rv } };
      r = await call(
        b.cluster.url,
        'PUT',
        c.op === 'status' ? `${PATH}/${name}/status` : `${PATH}/${name}`,
        opts(next),
      );
    }
    const got = outcome(r);
    if (recording) recorded[c.name] = got;
    else expect(got).toEqual(c.expect);
  });

  b.itOn('embedded', 'kube-apiserver refuses such a CRD when it is written (RE2 compiles the rule)')(
    'a rule @rxkube/cel cannot evaluate refuses the write (fails closed), naming why',
    async () => {
      const crd = {
        metadata: { name: 'lookaheads.cel.example.com' },
        spec: {
          group: 'cel.example.com',
          scope: 'Cluster',
          names: {
            plural: 'lookaheads',
            singular: 'lookahead',
            kind: 'Lookahead',
            listKind: 'LookaheadList',
          },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: {
                    spec: {
                      type: 'object',
                      'x-kubernetes-validations': [{ rule: "self.s.matches('a(?=b)')" }],
                      properties: { s: { type: 'string' } },
                    },
                  },
                },
              },
            },
          ],
        },
      };
      const made = await call(
        b.cluster.url,
        'POST',
        '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
        opts(crd),
      );
      expect(made.status, made.text).toBe(201);
      const path = '/apis/cel.example.com/v1/lookaheads';
      await waitFor(
        'lookaheads served',
        async () => (await call(b.cluster.url, 'GET', path, opts())).status === 200,
      );
      const r = await call(
        b.cluster.url,
        'POST',
        path,
        opts({
          apiVersion: 'cel.example.com/v1',
          kind: 'Lookahead',
          metadata: { name: 'x' },
          spec: { s: 'ab' },
        }),
      );
      expect(r.status).toBe(422);
      expect(r.body.details.causes).toEqual([
        {
          reason: 'InternalError',
          field: '<nil>',
          message: expect.stringMatching(/^Internal error: @rxkube\/cel cannot evaluate regex lookaround/),
        },
      ]);
    },
  );

  it.skipIf(!recording)('records the outcomes into the fixture', () => {
    for (const c of fixture.cases) c.expect = recorded[c.name];
    writeFileSync(FIXTURE, `${JSON.stringify(fixture, null, 2)}\n`);
  });
});
