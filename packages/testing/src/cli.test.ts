import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, describe, expect, it } from 'vitest';

import { parseTokenFile } from './auth.js';
import { parseArgs } from './cli.js';

/** The token files' directory; removed after the file's tests. */
const TMP = mkdtempSync(join(tmpdir(), 'rxkube-cli-'));
afterAll(() => rmSync(TMP, { recursive: true, force: true }));

describe('rxkube-apiserver arguments', () => {
  it('parses the options', () => {
    expect(parseArgs(['--port', '6443', '--tls', '--kubeconfig', '/tmp/k', '--no-gc'])).toEqual({
      port: 6443,
      tls: true,
      kubeconfigPath: '/tmp/k',
      gc: false,
    });
    expect(parseArgs(['--simulate-deployments'])).toEqual({ simulateDeployments: true });
  });

  it('rejects bad input with a message naming the argument', () => {
    expect(() => parseArgs(['--port', 'x'])).toThrow('--port must be an integer 0-65535, got x');
    expect(() => parseArgs(['--port'])).toThrow('--port needs a value');
    expect(() => parseArgs(['--bogus'])).toThrow('unknown argument --bogus');
    expect(() => parseArgs(['--token-auth-file', '/nonexistent/tokens.csv'])).toThrow(
      /--token-auth-file \/nonexistent\/tokens\.csv: ENOENT/,
    );
  });

  it('--token-auth-file turns on authentication and RBAC; --enable-admission-plugins', () => {
    const file = join(TMP, 'tokens.csv');
    writeFileSync(file, '# users\nadmin-token,admin,admin-uid,"system:masters"\nbob-token,bob,bob-uid\n');
    expect(
      parseArgs([
        '--token-auth-file',
        file,
        '--enable-admission-plugins',
        'OwnerReferencesPermissionEnforcement',
      ]),
    ).toEqual({
      auth: {
        tokens: {
          'admin-token': { name: 'admin', uid: 'admin-uid', groups: ['system:masters'] },
          'bob-token': { name: 'bob', uid: 'bob-uid' },
        },
      },
      enableAdmissionPlugins: ['OwnerReferencesPermissionEnforcement'],
    });
  });
});

describe('parseTokenFile (kube-apiserver --token-auth-file)', () => {
  it('reads quoted group lists and refuses short or repeated lines, naming the line', () => {
    expect(parseTokenFile('t,u,1,"a,b"\n\nt2,"v,w",2\n')).toEqual({
      t: { name: 'u', uid: '1', groups: ['a', 'b'] },
      t2: { name: 'v,w', uid: '2' },
    });
    expect(() => parseTokenFile('t,u\n', 'f.csv')).toThrow('f.csv:1: expected token,user,uid[,"group,…"]');
    expect(() => parseTokenFile('t,u,1\nt,v,2\n', 'f.csv')).toThrow('f.csv:2: token repeated');
  });
});
