import { describe, expect, it } from 'vitest';

import {
  findTerminalError,
  isTerminalError,
  ReconcileError,
  TerminalError,
  toReconcileError,
} from './errors.js';

describe('TerminalError', () => {
  it('is a tagged Error keeping message and cause', () => {
    const cause = new RangeError('replicas out of range');
    const error = new TerminalError('default/web: spec.replicas is -1; set it >= 0', cause);
    expect(error).toBeInstanceOf(Error);
    expect(error._tag).toBe('TerminalError');
    expect(error.name).toBe('TerminalError');
    expect(error.message).toBe('default/web: spec.replicas is -1; set it >= 0');
    expect(error.cause).toBe(cause);
    expect(new TerminalError('no cause').cause).toBeUndefined();
  });

  it('is recognised by tag, also from another copy of the class', () => {
    expect(isTerminalError(new TerminalError('x'))).toBe(true);
    expect(isTerminalError({ _tag: 'TerminalError', message: 'foreign copy' })).toBe(true);
    expect(isTerminalError(new Error('x'))).toBe(false);
    expect(isTerminalError('TerminalError')).toBe(false);
    expect(isTerminalError(null)).toBe(false);
  });

  it('is found in a cause chain, and cyclic chains terminate', () => {
    const terminal = new TerminalError('bad spec');
    expect(findTerminalError(terminal)).toBe(terminal);
    expect(findTerminalError(new Error('outer', { cause: new Error('mid', { cause: terminal }) }))).toBe(
      terminal,
    );
    expect(findTerminalError(new Error('plain'))).toBeUndefined();
    expect(findTerminalError('string')).toBeUndefined();
    const cyclic = new Error('a') as Error & { cause: unknown };
    cyclic.cause = cyclic;
    expect(findTerminalError(cyclic)).toBeUndefined();
  });
});

describe('toReconcileError', () => {
  it('wraps an Error, keeping it as cause and naming the key', () => {
    const thrown = new Error('connection refused');
    const error = toReconcileError('default/web', thrown);
    expect(error).toBeInstanceOf(ReconcileError);
    expect(error._tag).toBe('ReconcileError');
    expect(error.key).toBe('default/web');
    expect(error.cause).toBe(thrown);
    expect(error.message).toBe('reconcile of "default/web" failed: connection refused');
  });

  it('names Error subclasses in the message', () => {
    class ConflictError extends Error {
      override name = 'ConflictError';
    }
    expect(toReconcileError('a', new TypeError('x is undefined')).message).toBe(
      'reconcile of "a" failed: TypeError: x is undefined',
    );
    const conflict = new ConflictError('resourceVersion changed');
    const error = toReconcileError('a', conflict);
    expect(error.message).toBe('reconcile of "a" failed: ConflictError: resourceVersion changed');
    expect(error.cause).toBe(conflict);
    expect(toReconcileError('a', new Error('')).message).toBe('reconcile of "a" failed: (no message)');
  });

  it('normalises strings, plain objects and nullish values', () => {
    expect(toReconcileError('a', 'boom')).toMatchObject({
      cause: 'boom',
      message: 'reconcile of "a" failed: boom',
    });
    const withMessage = { message: 'from a foreign realm', code: 7 };
    expect(toReconcileError('a', withMessage)).toMatchObject({
      cause: withMessage,
      message: 'reconcile of "a" failed: from a foreign realm',
    });
    expect(toReconcileError('a', { code: 409 }).message).toBe(
      'reconcile of "a" failed: non-Error value thrown: {"code":409}',
    );
    const cyclic: Record<string, unknown> = {};
    cyclic['self'] = cyclic;
    expect(toReconcileError('a', cyclic).message).toBe(
      'reconcile of "a" failed: non-Error value thrown: [object Object]',
    );
    expect(toReconcileError('a', undefined).message).toMatch(
      /^reconcile of "a" failed: undefined was thrown/,
    );
    expect(toReconcileError('a', null).message).toMatch(/^reconcile of "a" failed: null was thrown/);
    expect(toReconcileError('a', 42).message).toBe('reconcile of "a" failed: non-Error value thrown: 42');
    expect(toReconcileError('a', '').message).toBe('reconcile of "a" failed: an empty string was thrown');
  });

  it('formats non-string keys', () => {
    expect(toReconcileError({ ns: 'd', name: 'w' }, 'x').message).toBe(
      'reconcile of {"ns":"d","name":"w"} failed: x',
    );
    expect(toReconcileError(7, 'x').message).toBe('reconcile of 7 failed: x');
  });

  it('normalises once: a ReconcileError for the same key is returned as is', () => {
    const first = toReconcileError('a', new Error('x'));
    expect(toReconcileError('a', first)).toBe(first);
    const other = toReconcileError('b', first);
    expect(other).not.toBe(first);
    expect(other.cause).toBe(first);
    expect(other.key).toBe('b');
  });
});
