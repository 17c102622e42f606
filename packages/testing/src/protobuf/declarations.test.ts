import { describe, expect, it } from 'vitest';

import { DeclarationError, parseDeclarations, parseMessage, protoMessageName } from './declarations.js';
import { messages } from './messages.js';

describe('message declarations', () => {
  it('reads fields: shapes, specials, inline embedded structs, omitempty', () => {
    const m = parseMessage(
      'core.v1.Probe',
      `
      ...probeHandler 1 core.v1.ProbeHandler
      initialDelaySeconds 2 int32 omitempty
      selector 3 *meta.v1.LabelSelector
      items 4 []string omitempty
      data 5 map[string]bytes omitempty
      time 6 *Time omitempty`,
    );
    expect(m.fields.map((f) => [f.json, f.number, f.shape, f.type.kind, f.omitempty, f.inline])).toEqual([
      ['probeHandler', 1, 'value', 'message', false, true],
      ['initialDelaySeconds', 2, 'value', 'scalar', true, false],
      ['selector', 3, 'pointer', 'message', false, false],
      ['items', 4, 'repeated', 'scalar', true, false],
      ['data', 5, 'map', 'scalar', true, false],
      ['time', 6, 'pointer', 'special', true, false],
    ]);
  });

  it('refuses what it cannot read, naming the message and line', () => {
    expect(() => parseMessage('x.v1.A', 'name one string')).toThrow(
      new DeclarationError(
        'x.v1.A: cannot read "name one string": expected "jsonName number type [omitempty]"',
      ),
    );
    expect(() => parseMessage('x.v1.A', 'a 1 string\nb 1 string')).toThrow(
      'field number 1 is declared twice',
    );
    expect(() => parseMessage('x.v1.A', 'a 1 float32')).toThrow('cannot read the type of "a 1 float32"');
    expect(() => parseMessage('x.v1.A', '...a 1 *x.v1.B')).toThrow('must be a message held by value');
    expect(() => parseDeclarations({ 'x.v1.A': 'b 1 x.v1.B' })).toThrow(
      'x.v1.A.b refers to x.v1.B, which is not declared',
    );
  });

  it('names messages by group, version and kind', () => {
    expect(protoMessageName('', 'v1', 'ConfigMap')).toBe('core.v1.ConfigMap');
    expect(protoMessageName('rbac.authorization.k8s.io', 'v1', 'Role')).toBe('rbac.v1.Role');
    expect(messages().forKind('', 'v1', 'Status')?.decl.name).toBe('meta.v1.Status');
    expect(messages().forKind('example.com', 'v1', 'Widget')).toBeUndefined();
  });

  it('every shipped declaration reads, and every kind has its List', () => {
    const table = messages();
    for (const kind of ['ConfigMap', 'Secret', 'Namespace', 'ServiceAccount', 'Service', 'Pod', 'Endpoints'])
      expect(table.forKind('', 'v1', `${kind}List`), kind).toBeDefined();
    for (const [group, kind] of [
      ['apps', 'Deployment'],
      ['apps', 'StatefulSet'],
      ['batch', 'CronJob'],
      ['rbac.authorization.k8s.io', 'ClusterRoleBinding'],
      ['networking.k8s.io', 'Ingress'],
      ['policy', 'PodDisruptionBudget'],
      ['coordination.k8s.io', 'Lease'],
      ['events.k8s.io', 'Event'],
    ] as const) {
      expect(table.forKind(group, 'v1', `${kind}List`), kind).toBeDefined();
    }
    expect(table.forKind('autoscaling', 'v2', 'HorizontalPodAutoscalerList')).toBeDefined();
  });
});
