import { describe, expect, it } from 'vitest';

import { parseArgs } from './cli.js';

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
  });
});
