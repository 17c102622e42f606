/**
 * The pure parts of authorization: request attributes from a URL (`requestinfo.go`), rule
 * matching (`rbac.go` RuleAllows), coverage and its compact description (`policy_comparator.go`,
 * `policy_compact.go`, `CompactString`) — the cases their Go tests pin.
 */
import { describe, expect, it } from 'vitest';

import type { RequestUser } from '../auth.js';
import { requestAttributes, resourceAttributes } from './attributes.js';
import { compactRules, compactString, covers, ruleAllows } from './policy.js';

const user: RequestUser = { name: 'u', groups: [], anonymous: false };
const attrs = (method: string, path: string, query = ''): ReturnType<typeof requestAttributes> =>
  requestAttributes(user, method, path, new URLSearchParams(query));

describe('requestAttributes (RequestInfoFactory)', () => {
  it.each([
    ['GET', '/api/v1/namespaces/ns/pods', '', { verb: 'list', namespace: 'ns', resource: 'pods', name: '' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=true', { verb: 'watch', resource: 'pods' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=t', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=nonsense', { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/ns/pods', 'watch=0', { verb: 'list' }],
    ['GET', '/api/v1/watch/namespaces/ns/pods', '', { verb: 'watch', namespace: 'ns', resource: 'pods' }],
    ['HEAD', '/api/v1/namespaces/ns/pods/p', '', { verb: 'get', name: 'p' }],
    ['DELETE', '/api/v1/namespaces/ns/pods', '', { verb: 'deletecollection' }],
    ['DELETE', '/api/v1/namespaces/ns/pods/p', '', { verb: 'delete', name: 'p' }],
    ['PUT', '/api/v1/namespaces/ns/pods/p/status', '', { verb: 'update', subresource: 'status' }],
    [
      'GET',
      '/api/v1/namespaces/ns',
      '',
      { verb: 'get', namespace: 'ns', resource: 'namespaces', name: 'ns' },
    ],
    [
      'PUT',
      '/api/v1/namespaces/ns/finalize',
      '',
      { resource: 'namespaces', name: 'ns', subresource: 'finalize' },
    ],
    ['GET', '/api/v1/namespaces', '', { verb: 'list', namespace: '', resource: 'namespaces' }],
    ['GET', '/apis/apps/v1/deployments', '', { apiGroup: 'apps', apiVersion: 'v1', resource: 'deployments' }],
    ['GET', '/api/v1/proxy/namespaces/ns/pods/p/x/y', '', { verb: 'proxy', name: 'p', subresource: '' }],
    [
      'GET',
      '/api/v1/namespaces/ns/secrets',
      'fieldSelector=metadata.name%3Ds1',
      { verb: 'list', name: 's1' },
    ],
    ['GET', '/api/v1/namespaces/ns/secrets', 'fieldSelector=metadata.name%3D%3Ds1,type%3Dx', { name: 's1' }],
    ['GET', '/api/v1/namespaces/ns/secrets', 'fieldSelector=metadata.name!%3Ds1', { name: '' }],
    ['GET', '/api/v1/namespaces/ns/secrets', 'fieldSelector=metadata.name%3Da%2Fb', { name: '' }],
    ['GET', '/api/v1/namespaces/ns/secrets', 'watch=nonsense&fieldSelector=metadata.name%3Ds1', { name: '' }],
    ['GET', '/api/v1/namespaces/ns/config%3Amaps', '', { resource: 'config:maps' }],
  ])('%s %s?%s', (method, path, query, expected) => {
    const a = attrs(method, path, query);
    expect(a.resourceRequest).toBe(true);
    expect(a).toMatchObject(expected);
  });

  it.each([
    ['GET', '/api'],
    ['GET', '/api/v1'],
    ['GET', '/apis/apps'],
    ['GET', '/apis/apps/v1'],
    ['GET', '/healthz'],
    ['POST', '/openapi/v2'],
  ])('%s %s is a non-resource request (verb: the method)', (method, path) => {
    const a = attrs(method, path);
    expect(a.resourceRequest).toBe(false);
    expect(a.verb).toBe(method.toLowerCase());
    expect(a.path).toBe(path);
  });
});

describe('ruleAllows', () => {
  const get = (
    resource: string,
    subresource = '',
    name = '',
    apiGroup = '',
  ): ReturnType<typeof resourceAttributes> =>
    resourceAttributes(user, 'get', { resource, subresource, name, apiGroup });
  it('matches verbs, groups, resources, subresources and names, with wildcards', () => {
    expect(ruleAllows(get('pods'), { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).toBe(true);
    expect(ruleAllows(get('pods'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] })).toBe(true);
    expect(ruleAllows(get('pods', 'log'), { verbs: ['get'], apiGroups: [''], resources: ['pods'] })).toBe(
      false,
    );
    expect(ruleAllows(get('pods', 'log'), { verbs: ['get'], apiGroups: [''], resources: ['pods/log'] })).toBe(
      true,
    );
    expect(ruleAllows(get('pods', 'log'), { verbs: ['get'], apiGroups: [''], resources: ['*/log'] })).toBe(
      true,
    );
    expect(ruleAllows(get('pods', 'status'), { verbs: ['get'], apiGroups: [''], resources: ['*/log'] })).toBe(
      false,
    );
    expect(ruleAllows(get('pods'), { verbs: ['get'], apiGroups: [''], resources: ['*/log'] })).toBe(false);
    const named = { verbs: ['get'], apiGroups: [''], resources: ['pods'], resourceNames: ['a'] };
    expect(ruleAllows(get('pods', '', 'a'), named)).toBe(true);
    expect(ruleAllows(get('pods', '', 'b'), named)).toBe(false);
    expect(ruleAllows(get('pods'), named)).toBe(false);
    expect(
      ruleAllows(get('deployments', '', '', 'apps'), { verbs: ['get'], apiGroups: [''], resources: ['*'] }),
    ).toBe(false);
  });

  it('non-resource URLs: exact, `*`, and a prefix ending in `*`', () => {
    const path = (p: string) => ({ ...resourceAttributes(user, 'get', {}), resourceRequest: false, path: p });
    const rule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/logs/*'] };
    expect(ruleAllows(path('/healthz'), rule)).toBe(true);
    expect(ruleAllows(path('/healthz/ping'), rule)).toBe(false);
    expect(ruleAllows(path('/logs/'), rule)).toBe(true);
    expect(ruleAllows(path('/logs/a/b'), rule)).toBe(true);
    expect(ruleAllows(path('/logs'), rule)).toBe(false);
    expect(ruleAllows(path('/anything'), { verbs: ['get'], nonResourceURLs: ['*'] })).toBe(true);
    // a resource rule never allows a path
    expect(ruleAllows(path('/healthz'), { verbs: ['*'], apiGroups: ['*'], resources: ['*'] })).toBe(false);
  });
});

describe('covers and its description (escalation messages)', () => {
  it('breaks the servant rules down and lists what the owner does not cover', () => {
    const owner = [
      { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', '*/status'] },
      { verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] },
      { verbs: ['get'], nonResourceURLs: ['/logs/*'] },
    ];
    expect(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods', 'pods/status'] }])).toEqual({
      covered: true,
      missing: [],
    });
    expect(covers(owner, [{ verbs: ['get'], nonResourceURLs: ['/logs/x'] }]).covered).toBe(true);
    const result = covers(owner, [
      { verbs: ['get', 'watch'], apiGroups: [''], resources: ['pods', 'secrets'], resourceNames: ['a', 'b'] },
    ]);
    expect(result.missing).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['watch'], resourceNames: ['a'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['watch'], resourceNames: ['b'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['b'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['watch'], resourceNames: ['a'] },
      { apiGroups: [''], resources: ['secrets'], verbs: ['watch'], resourceNames: ['b'] },
    ]);
  });

  it('compacts simple rules by resource and prints them as CompactString does', () => {
    const missing = covers(
      [],
      [{ verbs: ['list', 'get'], apiGroups: [''], resources: ['secrets', 'pods'] }],
    ).missing;
    expect(compactRules(missing).map(compactString)).toEqual([
      '{APIGroups:[""], Resources:["secrets"], Verbs:["list" "get"]}',
      '{APIGroups:[""], Resources:["pods"], Verbs:["list" "get"]}',
    ]);
    expect(compactString({ verbs: ['get'], nonResourceURLs: ['/x'] })).toBe(
      '{NonResourceURLs:["/x"], Verbs:["get"]}',
    );
    expect(
      compactString({ verbs: ['get'], apiGroups: ['a'], resources: ['b'], resourceNames: ['c"d'] }),
    ).toBe('{APIGroups:["a"], Resources:["b"], ResourceNames:["c\\"d"], Verbs:["get"]}');
  });
});
