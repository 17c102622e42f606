import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

import { main } from './main.js';

const hello = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'fixtures', 'hello-operator.js');

async function cli(args: string[], env: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, { out: (l) => out.push(l), err: (l) => err.push(l), env });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('rxkube --shard-ring', () => {
  it('rbac grants the ring its Lease verbs in the operator namespace, and nothing more on Leases', async () => {
    for (const r of [
      await cli(['rbac', hello, '--operator-namespace', 'ops', '--shard-ring', 'widgets']),
      await cli(['rbac', hello, '--operator-namespace', 'ops'], { RXKUBE_SHARD_RING: 'widgets' }),
    ]) {
      expect(r.code).toBe(0);
      expect(r.out).toMatch(
        /kind: Role\s+metadata:\s+name: hello-shard-ring\s+namespace: ops\s+rules:\s+- apiGroups:\s+- coordination.k8s.io\s+resources:\s+- leases\s+verbs:\s+- get\s+- list\s+- create\s+- update\n/,
      );
    }
    expect((await cli(['rbac', hello, '--operator-namespace', 'ops'])).out).not.toContain('shard-ring');
  });

  it('a ring that is not a DNS label is refused, naming the flag', async () => {
    const r = await cli(['rbac', hello, '--shard-ring', 'Not.A.Label']);
    expect(r.code).not.toBe(0);
    expect(r.err).toMatch(/--shard-ring="Not.A.Label".*DNS label/);
  });
});
