import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { Action, InvalidArgumentError, TerminalError } from '@rxkube/core';

import { KubeApiError } from '../errors.js';
import {
  controllerLogger,
  createLogger,
  logReconcile,
  MAX_LOGGED_ARRAY_ITEMS,
  redactSecrets,
  REDACTED,
} from './logging.js';

/** A pino destination collecting every line (pino writes synchronously to a plain `{ write }`). */
function capture(): { lines: string[]; records: () => Record<string, unknown>[]; write(s: string): void } {
  const lines: string[] = [];
  return {
    lines,
    write: (s: string) => void lines.push(s),
    records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

const SECRET_VALUES = [
  'c3VwZXItc2VjcmV0LXBhc3N3b3Jk', // base64 data
  'hunter2-plain', // stringData
  'sk-live-0123456789abcdef', // bearer token
  'eyJhbGciOiJSUzI1NiIsImtpZCI6IjEifQ.eyJzdWIiOiJzeXN0ZW06c2EifQ.c2lnbmF0dXJlLXZhbHVl', // JWT
  'kubeconfig-static-token-42',
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7',
  'oidc-refresh-abcdef',
  'oidc-client-secret-xyz',
  'basic-pass-77',
];

describe('createLogger redaction', () => {
  it('never writes Secret data, bearer tokens or kubeconfig credentials', () => {
    const out = capture();
    const log = createLogger({ name: 'test', level: 'trace', destination: out });
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'db',
        namespace: 'default',
        annotations: {
          'kubectl.kubernetes.io/last-applied-configuration': `{"data":{"password":"${SECRET_VALUES[0]}"}}`,
          team: 'storage',
        },
      },
      type: 'Opaque',
      data: { password: SECRET_VALUES[0] },
      stringData: { plain: SECRET_VALUES[1] },
    };
    // an API error whose server message echoes the credential, with the raw header kept on a field
    const error = Object.assign(
      new KubeApiError({
        httpStatus: 401,
        method: 'GET',
        url: 'https://cluster.example:6443/api/v1/secrets',
        target: { verb: 'list', group: '', resource: 'secrets' },
        text: `request with Authorization: Bearer ${SECRET_VALUES[2]} was refused`,
      }),
      { requestHeaders: { Authorization: `Bearer ${SECRET_VALUES[2]}` } },
    );
    const kubeconfig = {
      apiVersion: 'v1',
      kind: 'Config',
      users: [
        { name: 'static', user: { token: SECRET_VALUES[4] } },
        {
          name: 'cert',
          user: {
            'client-certificate-data': 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t',
            'client-key-data': 'LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t',
          },
        },
        {
          name: 'oidc',
          user: {
            'auth-provider': {
              name: 'oidc',
              config: {
                'id-token': SECRET_VALUES[3],
                'refresh-token': SECRET_VALUES[6],
                'client-secret': SECRET_VALUES[7],
                'client-id': 'operator',
              },
            },
          },
        },
        { name: 'basic', user: { username: 'admin', password: SECRET_VALUES[8] } },
      ],
    };

    log.info({ object: secret }, 'reconciling');
    log.info({ list: { kind: 'SecretList', items: [secret] } }, 'listed');
    log.error({ err: error }, 'watch failed');
    log.error(error);
    log.warn(`refused: Authorization: Bearer ${SECRET_VALUES[2]}`);
    log.debug({ kubeconfig, headers: { authorization: `Bearer ${SECRET_VALUES[2]}` } }, 'loaded kubeconfig');
    log.info({ token: SECRET_VALUES[4], nested: { deeper: { idToken: SECRET_VALUES[3] } } }, 'misc');
    log.info(
      { pem: `-----BEGIN RSA PRIVATE KEY-----\n${SECRET_VALUES[5]}\n-----END RSA PRIVATE KEY-----` },
      'key',
    );

    expect(out.lines).toHaveLength(8);
    const all = out.lines.join('');
    for (const value of SECRET_VALUES) expect(all).not.toContain(value);
    // the key itself (private key body) is gone too
    expect(all).not.toContain('LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0t');

    const [first, , third, fourth, fifth, sixth] = out.records();
    // useful context survives: which keys a Secret has, names, non-secret fields, public certs
    expect(first).toMatchObject({
      name: 'test',
      msg: 'reconciling',
      object: {
        kind: 'Secret',
        metadata: {
          name: 'db',
          annotations: { 'kubectl.kubernetes.io/last-applied-configuration': REDACTED, team: 'storage' },
        },
        data: { password: REDACTED },
        stringData: { plain: REDACTED },
      },
    });
    expect(third).toMatchObject({ msg: 'watch failed', err: { type: 'KubeApiError' } });
    expect(String((third!['err'] as Record<string, unknown>)['message'])).toContain(`Bearer ${REDACTED}`);
    expect(String(fourth!['msg'])).toContain(`Bearer ${REDACTED}`);
    expect(fifth!['msg']).toBe(`refused: Authorization: Bearer ${REDACTED}`);
    expect(sixth).toMatchObject({
      kubeconfig: {
        users: [
          { user: { token: REDACTED } },
          {
            user: {
              'client-certificate-data': 'LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0t',
              'client-key-data': REDACTED,
            },
          },
          { user: { 'auth-provider': { config: { 'client-id': 'operator', 'client-secret': REDACTED } } } },
          { user: { username: 'admin', password: REDACTED } },
        ],
      },
      headers: { authorization: REDACTED },
    });
  });

  it('keeps non-Secret data (a ConfigMap) and survives cycles', () => {
    const cyclic: Record<string, unknown> = { kind: 'ConfigMap', data: { color: 'blue' } };
    cyclic['self'] = cyclic;
    expect(redactSecrets(cyclic)).toEqual({ kind: 'ConfigMap', data: { color: 'blue' }, self: '[Circular]' });
  });
});

describe('createLogger line size (issue 19 §5)', () => {
  it('shows the first items of a long list and says how many were left out', () => {
    const out = capture();
    const log = createLogger({ level: 'info', destination: out });
    const copies = Array.from({ length: 10_000 }, (_, i) => `namespace-${i}/copy-of-some-configmap-${i}`);
    log.info({ copies }, 'synced');
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]!.length).toBeLessThan(16 * 1024); // log collectors split or drop longer lines
    const shown = out.records()[0]?.['copies'] as string[];
    expect(shown).toHaveLength(MAX_LOGGED_ARRAY_ITEMS + 1);
    expect(shown.slice(0, 2)).toEqual([copies[0], copies[1]]);
    expect(shown.at(-1)).toBe(`[… ${10_000 - MAX_LOGGED_ARRAY_ITEMS} more, 10000 in all]`);
  });
});

describe('createLogger level', () => {
  it('takes the level from the option, then RXKUBE_LOG_LEVEL, then LOG_LEVEL, default info', () => {
    expect(createLogger({ level: 'warn', env: { RXKUBE_LOG_LEVEL: 'debug' } }).level).toBe('warn');
    expect(createLogger({ env: { RXKUBE_LOG_LEVEL: 'DEBUG', LOG_LEVEL: 'error' } }).level).toBe('debug');
    expect(createLogger({ env: { LOG_LEVEL: 'error' } }).level).toBe('error');
    expect(createLogger({ env: {} }).level).toBe('info');
  });

  it('refuses an unknown level naming where it came from', () => {
    expect(() => createLogger({ env: { LOG_LEVEL: 'verbose' } })).toThrow(InvalidArgumentError);
    expect(() => createLogger({ env: { LOG_LEVEL: 'verbose' } })).toThrow(
      /LOG_LEVEL.*must be one of fatal, error/,
    );
  });

  it('drops lines under the level', () => {
    const out = capture();
    const log = createLogger({ level: 'warn', destination: out, env: {} });
    log.info('hidden');
    log.warn('shown');
    expect(out.records().map((r) => r['msg'])).toEqual(['shown']);
  });
});

describe('logReconcile', () => {
  it('logs one line per outcome with controller, key, result, duration and error message', () => {
    const out = capture();
    const log = createLogger({ level: 'info', destination: out, env: {} });
    const values = {
      a: { key: 'default/a', outcome: 'success', durationMs: 12, action: Action.awaitChange() },
      b: {
        key: 'default/b',
        outcome: 'requeue',
        durationMs: 3,
        action: Action.requeue(30_000),
        retryInMs: 30_000,
      },
      c: {
        key: 'default/c',
        outcome: 'error',
        durationMs: 40,
        retryInMs: 5,
        error: new Error('patch failed: Bearer sk-live-0123456789abcdef rejected'),
      },
      d: {
        key: 'default/d',
        outcome: 'terminal',
        durationMs: 1,
        error: new TerminalError('spec.size must be > 0'),
      },
    } as const;
    new TestScheduler((x, y) => expect(x).toEqual(y)).run(({ cold, expectObservable }) => {
      const source = cold('abcd|', values);
      expectObservable(source.pipe(logReconcile(log, 'widget'))).toBe('abcd|', values);
    });
    const records = out
      .records()
      .map(({ level, msg, controller, key, result, durationMs, requeueAfterMs, retryInMs, error }) => ({
        level,
        msg,
        controller,
        key,
        result,
        durationMs,
        requeueAfterMs,
        retryInMs,
        error,
      }));
    expect(records).toEqual([
      {
        level: 30,
        msg: 'reconcile success',
        controller: 'widget',
        key: 'default/a',
        result: 'success',
        durationMs: 12,
        requeueAfterMs: undefined,
        retryInMs: undefined,
        error: undefined,
      },
      {
        level: 30,
        msg: 'reconcile requeue',
        controller: 'widget',
        key: 'default/b',
        result: 'requeue',
        durationMs: 3,
        requeueAfterMs: 30_000,
        retryInMs: 30_000,
        error: undefined,
      },
      {
        level: 50,
        msg: 'reconcile error',
        controller: 'widget',
        key: 'default/c',
        result: 'error',
        durationMs: 40,
        requeueAfterMs: undefined,
        retryInMs: 5,
        error: `patch failed: Bearer ${REDACTED} rejected`,
      },
      {
        level: 50,
        msg: 'reconcile terminal',
        controller: 'widget',
        key: 'default/d',
        result: 'terminal',
        durationMs: 1,
        requeueAfterMs: undefined,
        retryInMs: undefined,
        error: 'spec.size must be > 0',
      },
    ]);
  });

  it('adapts to the controller logger and refuses bad arguments', () => {
    const out = capture();
    const log = createLogger({ level: 'debug', destination: out, env: {} });
    controllerLogger(log).warn?.('slow', { key: 'ns/x', token: 'abc-secret' });
    expect(out.records()[0]).toMatchObject({ level: 40, msg: 'slow', key: 'ns/x', token: REDACTED });
    expect(() => logReconcile(log, '')).toThrow(/controllerName/);
    expect(() => logReconcile({} as never, 'x')).toThrow(/logger/);
  });
});
