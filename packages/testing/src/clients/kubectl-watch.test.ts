import { expect } from 'vitest';

import { kubectlSuite } from './suite.js';

const NS = 'watched';

// kubectl get -w asks for Table watches (Accept: …;as=Table;v=v1;g=meta.k8s.io,…,application/json)
kubectlSuite('kubectl get -w', {}, (it) => {
  it('prints a row per event until stopped', async ({ kubectl }) => {
    expect((await kubectl.run(['create', 'namespace', NS])).code).toBe(0);
    expect((await kubectl.run(['create', 'configmap', 'before', '-n', NS, '--from-literal=a=b'])).code).toBe(
      0,
    );
    const w = kubectl.watch(['get', 'configmaps', '-n', NS, '-w']);
    await w.until((l) => l.some((x) => /^before\s+1\s+\S+$/.test(x)), 'the existing ConfigMap');
    expect(w.lines[0]).toMatch(/^NAME\s+DATA\s+AGE$/);
    expect((await kubectl.run(['create', 'configmap', 'w1', '-n', NS, '--from-literal=x=y'])).code).toBe(0);
    await w.until((l) => l.some((x) => /^w1\s+1\s+\S+$/.test(x)), 'the new ConfigMap');
    expect((await kubectl.run(['label', 'configmap', 'w1', '-n', NS, 'k=v'])).code).toBe(0);
    expect((await kubectl.run(['delete', 'configmap', 'w1', '-n', NS])).code).toBe(0);
    await w.until((l) => l.filter((x) => x.startsWith('w1 ')).length >= 3, 'the label and delete rows');
    const result = await w.stop();
    // one header only: column definitions come with the first event
    expect(result.stdout.match(/NAME\s+DATA\s+AGE/g)).toHaveLength(1);
    expect(result.stderr).toBe('');
  });

  it('--output-watch-events names each event', async ({ kubectl }) => {
    const w = kubectl.watch(['get', 'configmaps', '-n', NS, '-w', '--output-watch-events']);
    await w.until((l) => l.some((x) => /^ADDED\s+before\s/.test(x)), 'the initial ADDED');
    expect(w.lines[0]).toMatch(/^EVENT\s+NAME\s+DATA\s+AGE$/);
    await kubectl.run(['create', 'configmap', 'w2', '-n', NS]);
    await kubectl.run(['annotate', 'configmap', 'w2', '-n', NS, 'a=b']);
    await kubectl.run(['delete', 'configmap', 'w2', '-n', NS]);
    await w.until((l) => l.some((x) => /^DELETED\s+w2\s/.test(x)), 'the DELETED row');
    expect(w.lines.filter((x) => /\sw2\s/.test(x)).map((x) => x.split(/\s+/)[0])).toEqual([
      'ADDED',
      'MODIFIED',
      'DELETED',
    ]);
    await w.stop();
  });

  it('-w -o name and -o json stream objects (plain JSON watch)', async ({ kubectl }) => {
    const w = kubectl.watch(['get', 'configmaps', '-n', NS, '-w', '-o', 'name']);
    await w.until((l) => l.includes('configmap/before'), 'the existing ConfigMap by name');
    await kubectl.run(['create', 'configmap', 'w3', '-n', NS]);
    await w.until((l) => l.includes('configmap/w3'), 'the new ConfigMap by name');
    await w.stop();
    const j = kubectl.watch(['get', 'namespace', NS, '-w', '-o', 'json']);
    await j.until((l) => l.some((x) => x.includes(`"name": "${NS}"`)), 'the namespace as JSON');
    await j.stop();
  });
});
