import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { KubeConfigError } from '../errors.js';
import { defaultKubeconfig, inClusterKubeconfig, Kubeconfig, readKubeconfigFile } from './kubeconfig.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const fixture = (name: string): string => join(fixtures, name);

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxkube-kubeconfig-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('readKubeconfigFile (fixtures/full.yaml)', () => {
  const kc = (): Kubeconfig => readKubeconfigFile(fixture('full.yaml'));

  it('reads the current context, its cluster, user and namespace', () => {
    expect(kc().getCurrentContext()).toBe('dev');
    expect(kc().getContextObject('dev')).toEqual({
      name: 'dev',
      cluster: 'kind',
      user: 'admin',
      namespace: 'team-a',
    });
    expect(kc().getCurrentCluster()).toEqual({
      name: 'kind',
      server: 'https://127.0.0.1:40001',
      caData: '-----BEGIN CERTIFICATE-----\nfixture\n-----END CERTIFICATE-----\n',
      skipTLSVerify: false,
    });
    expect(kc().getCurrentUser()?.name).toBe('admin');
  });

  it('resolves relative paths against the file, keeps absolute ones (clientcmd ResolveLocalPaths)', () => {
    const byName = Object.fromEntries(kc().users.map((u) => [u.name, u]));
    expect(kc().clusters.find((c) => c.name === 'prod')).toEqual({
      name: 'prod',
      server: 'https://10.0.0.1:6443',
      caFile: join(fixtures, 'certs/ca.crt'),
      skipTLSVerify: false,
      tlsServerName: 'kubernetes.default.svc',
      proxyUrl: 'http://proxy.corp:3128',
    });
    expect(byName['ci']).toEqual({ name: 'ci', tokenFile: join(fixtures, 'tokens/ci') });
    expect(byName['cert']).toEqual({
      name: 'cert',
      certFile: '/etc/k8s/client.crt',
      keyFile: join(fixtures, 'keys/client.key'),
    });
    // a command with a path separator is resolved; a bare name would stay for PATH lookup
    expect(byName['eks']?.exec).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      command: join(fixtures, 'bin/cred'),
      args: ['get-token'],
      env: [{ name: 'CLUSTER', value: 'prod' }],
      interactiveMode: 'Never',
      installHint: 'install cred from example.com',
    });
    expect(byName['gke']?.authProvider?.name).toBe('oidc');
  });

  it('reads impersonation and insecure-skip-tls-verify', () => {
    expect(kc().users.find((u) => u.name === 'admin')).toEqual({
      name: 'admin',
      token: 'fixture-token',
      impersonateUser: 'jane',
      impersonateUid: '1234',
      impersonateGroups: ['devs', 'ops'],
      impersonateUserExtra: { scopes: ['view', 'edit'] },
    });
    expect(kc().clusters.find((c) => c.name === 'lab')?.skipTLSVerify).toBe(true);
  });
});

describe('kubeconfig errors', () => {
  it('names the file and the entry of a malformed kubeconfig', () => {
    expect(() => readKubeconfigFile(fixture('malformed.yaml'))).toThrow(KubeConfigError);
    expect(() => readKubeconfigFile(fixture('malformed.yaml'))).toThrow(
      /malformed\.yaml: clusters\[0\] needs a name/,
    );
    expect(() => readKubeconfigFile(join(dir, 'missing'))).toThrow(
      /could not read kubeconfig file .*missing/,
    );
    expect(() => Kubeconfig.fromYaml('clusters: [', 'x.yaml')).toThrow(/x\.yaml is not valid YAML/);
  });

  it('refuses insecure-skip-tls-verify that is not a plain boolean: verification is never turned off by a typo', () => {
    const text =
      'clusters: [{ name: c, cluster: { server: "https://k", insecure-skip-tls-verify: "true" } }]';
    expect(() => Kubeconfig.fromYaml(text, 'k.yaml')).toThrow(
      'k.yaml: cluster "c" field insecure-skip-tls-verify must be true or false (unquoted)',
    );
  });

  it('reads an empty file as an empty kubeconfig', () => {
    const kc = Kubeconfig.fromYaml('', 'empty.yaml');
    expect(kc.getCurrentCluster()).toBeNull();
    expect(kc.getCurrentContext()).toBe('');
  });

  it('reads a file of comments or empty documents as an empty kubeconfig', () => {
    for (const text of ['# nothing yet\n', '---\n', '---\n---\n']) {
      const kc = Kubeconfig.fromYaml(text, 'empty.yaml');
      expect(kc.getCurrentCluster()).toBeNull();
      expect(kc.getCurrentContext()).toBe('');
    }
  });

  it('reads YAML 1.2 core values as client-go does: strings stay strings, no merge keys', () => {
    const text = [
      '---',
      'clusters: [{ name: c, cluster: { server: "https://k", tls-server-name: yes } }]',
      'users: [{ name: u, user: { token: 2020-01-01T00:00:00Z } }]',
      'contexts: [{ name: x, context: { cluster: c, user: u, namespace: "0777" } }]',
      'current-context: x',
    ].join('\n');
    const kc = Kubeconfig.fromYaml(text, 'k.yaml');
    expect(kc.getCurrentCluster()?.tlsServerName).toBe('yes');
    expect(kc.getCurrentUser()?.token).toBe('2020-01-01T00:00:00Z');
    expect(kc.getContextObject('x')?.namespace).toBe('0777');
  });

  it('says where a kubeconfig is not valid YAML without quoting its lines (they hold tokens)', () => {
    const text = 'users:\n- name: u\n  user: {token: s3cr3t-token\n';
    let error: unknown;
    try {
      Kubeconfig.fromYaml(text, 'bad.yaml');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(KubeConfigError);
    const { message, cause } = error as KubeConfigError;
    expect(message).toMatch(/^bad\.yaml is not valid YAML: .+ \(line \d+, column \d+\)$/);
    expect(message).not.toContain('s3cr3t');
    expect(String(cause)).not.toContain('s3cr3t');
  });

  it('refuses two kubeconfigs in one file, and duplicate keys, naming the file', () => {
    expect(() => Kubeconfig.fromYaml('current-context: a\n---\ncurrent-context: b\n', 'two.yaml')).toThrow(
      'two.yaml is not valid YAML: it holds 2 documents, a kubeconfig is one',
    );
    expect(() => Kubeconfig.fromYaml('current-context: a\ncurrent-context: b\n', 'dup.yaml')).toThrow(
      /dup\.yaml is not valid YAML: duplicated mapping key/,
    );
  });
});

describe('defaultKubeconfig', () => {
  it('merges a KUBECONFIG list: the first file naming an entry, and the first current-context, win', () => {
    const kc = defaultKubeconfig(
      {
        KUBECONFIG: [fixture('merge-first.yaml'), join(dir, 'absent'), fixture('merge-second.yaml')].join(
          delimiter,
        ),
      },
      dir,
    );
    expect(kc?.getCurrentContext()).toBe('first');
    expect(kc?.getCurrentCluster()?.server).toBe('https://first:6443');
    expect(kc?.users).toEqual([{ name: 'shared', token: 'first-token' }]);
    expect(kc?.clusters.map((c) => c.name)).toEqual(['shared', 'only-second']);
    expect(kc?.getContextObject('second')).toEqual({
      name: 'second',
      cluster: 'only-second',
      user: 'shared',
      namespace: 'two',
    });
  });

  it('reads ~/.kube/config when KUBECONFIG is unset', () => {
    const home = mkdtempSync(join(dir, 'home-'));
    expect(defaultKubeconfig({}, home, join(dir, 'no-sa'))).toBeUndefined();
    const kube = join(home, '.kube');
    mkdirSync(kube);
    writeFileSync(join(kube, 'config'), readFileSync(fixture('merge-second.yaml')));
    expect(defaultKubeconfig({}, home, join(dir, 'no-sa'))?.getCurrentContext()).toBe('second');
  });

  it('falls back to the in-cluster service account (client-go rest.InClusterConfig)', () => {
    const env = { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' };
    const kc = defaultKubeconfig(env, join(dir, 'nohome'), fixture('in-cluster'));
    expect(kc?.getCurrentCluster()).toEqual({
      name: 'in-cluster',
      server: 'https://[fd00::1]:443',
      caFile: fixture('in-cluster/ca.crt'),
      skipTLSVerify: false,
    });
    expect(kc?.getCurrentUser()).toEqual({ name: 'in-cluster', tokenFile: fixture('in-cluster/token') });
    expect(kc?.getContextObject('in-cluster')?.namespace).toBe('kube-system');
    expect(
      inClusterKubeconfig({ KUBERNETES_SERVICE_HOST: '10.0.0.1' }, fixture('in-cluster')),
    ).toBeUndefined();
  });
});
