import { describe, expect, it } from 'vitest';

import { omitEmptyBuiltin } from './omit-empty.js';

describe('omitEmptyBuiltin (Go omitempty)', () => {
  it('drops empty maps and omitempty lists, also nested (template metadata)', () => {
    const o = {
      metadata: { name: 'a', labels: {}, annotations: {}, finalizers: [], ownerReferences: [] },
      data: {},
      binaryData: null,
      spec: { template: { metadata: { labels: {} } } },
    };
    omitEmptyBuiltin(o, 'ConfigMap');
    expect(o).toEqual({ metadata: { name: 'a' }, spec: { template: { metadata: {} } } });
  });

  it('keeps empty structs and non-empty values', () => {
    const svc = { spec: { selector: {}, ports: [] }, status: { loadBalancer: {} } };
    omitEmptyBuiltin(svc, 'Service');
    // Service spec.selector is a map (dropped); ports has no omitempty in this table (kept); structs stay
    expect(svc).toEqual({ spec: { ports: [] }, status: { loadBalancer: {} } });
    const deploy = { spec: { selector: {} }, data: { a: '' } };
    omitEmptyBuiltin(deploy, 'Deployment');
    // a Deployment's spec.selector is a *LabelSelector struct: kept; a "" map value is a value
    expect(deploy).toEqual({ spec: { selector: {} }, data: { a: '' } });
  });
});
