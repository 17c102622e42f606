/**
 * Structured JSON logs with pino: a logger whose level comes from options or the environment and
 * which never writes Secret data, tokens, passwords, client keys or bearer credentials, and
 * {@link logReconcile}, one line per reconcile outcome. It does not ship logs anywhere: pino
 * writes JSON lines to stdout (or the given stream) for the platform to collect.
 *
 * @module
 */
import type { DestinationStream, Level, Logger } from 'pino';
import type { MonoTypeOperatorFunction } from 'rxjs';
import { tap } from 'rxjs';
import { InvalidArgumentError } from '@rxkube/core';

import type { ControllerLogger } from '../controller/controller.js';
import { pinoModule } from '../internal/lazy-modules.js';

/**
 * What replaces a secret value.
 *
 * ## Example
 * ```ts
 * redactSecrets({ headers: { authorization: 'Bearer abc' } }); // { headers: { authorization: REDACTED } }
 * ```
 */
export const REDACTED = '[REDACTED]';

const LEVELS: readonly string[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * Options of {@link createLogger}.
 *
 * ## Example
 * ```ts
 * const options: CreateLoggerOptions = { name: 'widget-operator', level: 'debug' };
 * const log = createLogger(options);
 * ```
 */
export interface CreateLoggerOptions {
  /** Minimum level; default `RXKUBE_LOG_LEVEL`, then `LOG_LEVEL`, then `info`. */
  readonly level?: Level | 'silent';
  /** The `name` field of every line, e.g. the operator's name. */
  readonly name?: string;
  /** Where lines go; default stdout. */
  readonly destination?: DestinationStream;
  /** Environment read for the level; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** Keys (compared lower-case without `-`/`_`) whose values are never logged. */
const SENSITIVE_KEYS = new Set([
  'authorization',
  'proxyauthorization',
  'cookie',
  'setcookie',
  'password',
  'passwd',
  'clientsecret',
  'clientkey',
  'clientkeydata',
  'privatekey',
  'apikey',
  'xapikey',
  'secretaccesskey',
]);

function sensitiveKey(key: string): boolean {
  const k = key.toLowerCase().replace(/[-_]/g, '');
  return SENSITIVE_KEYS.has(k) || k.endsWith('token') || k.endsWith('password');
}

const STRING_SCRUBBERS: readonly (readonly [RegExp, string])[] = [
  [/\b(Bearer|Basic)(\s+)[A-Za-z0-9\-._~+/]+=*/gi, `$1$2${REDACTED}`],
  [/\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  [
    /-----BEGIN ([A-Z ]*)PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g,
    `-----BEGIN $1PRIVATE KEY-----${REDACTED}-----END $1PRIVATE KEY-----`,
  ],
  [
    /(["']?(?:access[-_]?token|id[-_]?token|refresh[-_]?token|token|password|client[-_]?secret)["']?\s*[:=]\s*["']?)[^"'\s,&}]+/gi,
    `$1${REDACTED}`,
  ],
];

/**
 * Replaces bearer/basic credentials, JWTs, PEM private keys and `token=…`-style pairs in a string.
 *
 * ## Example
 * ```ts
 * scrubString('GET /x with Authorization: Bearer abc.def'); // 'GET /x with Authorization: Bearer [REDACTED]'
 * ```
 */
export function scrubString(text: string): string {
  let out = text;
  for (const [pattern, replacement] of STRING_SCRUBBERS) out = out.replace(pattern, replacement);
  return out;
}

const MAX_DEPTH = 12;
/**
 * Items of an array a log line shows; the rest are counted in one last item. A sync of 10,000
 * objects once logged a 290 KB line, and log collectors split or drop lines over 16 KB (issue 19 §5).
 */
export const MAX_LOGGED_ARRAY_ITEMS = 50;

function redactValues(data: unknown): unknown {
  if (data === null || typeof data !== 'object') return REDACTED;
  return Object.fromEntries(Object.keys(data).map((k) => [k, REDACTED]));
}

/** How much of a value {@link sanitize} keeps: a log line's limits, or a recording's (whole). */
interface Limits {
  readonly depth: number;
  readonly items: number;
}
const LOG_LIMITS: Limits = { depth: MAX_DEPTH, items: MAX_LOGGED_ARRAY_ITEMS };
const WHOLE: Limits = { depth: 256, items: Number.POSITIVE_INFINITY };

function sanitize(
  value: unknown,
  depth: number,
  seen: WeakSet<object>,
  limits: Limits = LOG_LIMITS,
): unknown {
  if (typeof value === 'string') return scrubString(value);
  if (value === null || typeof value !== 'object') return value;
  if (seen.has(value)) return '[Circular]';
  if (depth > limits.depth) return '[Truncated]';
  if (ArrayBuffer.isView(value)) return `[binary ${value.byteLength} bytes]`;
  seen.add(value);
  try {
    if (Array.isArray(value)) {
      const shown = value.slice(0, limits.items).map((v) => sanitize(v, depth + 1, seen, limits));
      if (value.length > limits.items) {
        shown.push(`[… ${value.length - limits.items} more, ${value.length} in all]`);
      }
      return shown;
    }
    const source = value as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    if (value instanceof Error) {
      out['type'] = value.name;
      out['message'] = scrubString(value.message);
      if (value.stack !== undefined) out['stack'] = scrubString(value.stack);
      if (value.cause !== undefined) out['cause'] = sanitize(value.cause, depth + 1, seen, limits);
    }
    const secret =
      source['kind'] === 'Secret' && (source['apiVersion'] === undefined || source['apiVersion'] === 'v1');
    for (const key of Object.keys(source)) {
      const v = source[key];
      if (typeof v === 'function') continue;
      if (sensitiveKey(key)) out[key] = REDACTED;
      else if (secret && (key === 'data' || key === 'stringData')) out[key] = redactValues(v);
      else if (secret && key === 'metadata') out[key] = secretMetadata(v, depth, seen, limits);
      else out[key] = sanitize(v, depth + 1, seen, limits);
    }
    return out;
  } finally {
    seen.delete(value);
  }
}

/** A Secret's metadata: `last-applied-configuration` carries the data too. */
function secretMetadata(metadata: unknown, depth: number, seen: WeakSet<object>, limits: Limits): unknown {
  const clean = sanitize(metadata, depth + 1, seen, limits) as Record<string, unknown> | null;
  const annotations = clean?.['annotations'];
  if (annotations !== null && typeof annotations === 'object') {
    clean!['annotations'] = Object.fromEntries(
      Object.entries(annotations).map(([k, v]) =>
        k === 'kubectl.kubernetes.io/last-applied-configuration' ? [k, REDACTED] : [k, v as unknown],
      ),
    );
  }
  return clean;
}

/**
 * A copy of `value` safe to log: Secret (`kind: Secret`) `data`/`stringData` values and its
 * last-applied annotation replaced, values of keys like `token`, `*Token`, `authorization`,
 * `password`, `client-key-data`, `client-secret`, `cookie` replaced, bearer/basic credentials,
 * JWTs and PEM private keys cut out of strings; Errors become `{ type, message, stack, cause, … }`.
 *
 * ## Example
 * ```ts
 * redactSecrets({ kind: 'Secret', data: { pw: 'aGk=' } }) // { kind: 'Secret', data: { pw: '[REDACTED]' } }
 * ```
 */
export function redactSecrets<T>(value: T): unknown {
  return sanitize(value, 0, new WeakSet());
}

/**
 * {@link redactSecrets} without a log line's limits (arrays whole, nesting to 256): what the
 * flight recorder (`@rxkube/kube/record`) writes, so a replay sees whole objects. Not an entry's
 * export.
 */
export function redactWhole<T>(value: T): unknown {
  return sanitize(value, 0, new WeakSet(), WHOLE);
}

function levelFrom(options: CreateLoggerOptions): Level | 'silent' {
  const env = options.env ?? process.env;
  const candidates: [string, unknown][] = [
    ['options.level', options.level],
    ['RXKUBE_LOG_LEVEL', env['RXKUBE_LOG_LEVEL']],
    ['LOG_LEVEL', env['LOG_LEVEL']],
  ];
  for (const [source, raw] of candidates) {
    if (raw === undefined || raw === '') continue;
    const level = typeof raw === 'string' ? raw.trim().toLowerCase() : raw;
    if (typeof level !== 'string' || !LEVELS.includes(level)) {
      throw new InvalidArgumentError('createLogger', source, raw, `must be one of ${LEVELS.join(', ')}`);
    }
    return level as Level | 'silent';
  }
  return 'info';
}

/**
 * A pino logger for operators: JSON lines, level from `options.level`, `RXKUBE_LOG_LEVEL` or
 * `LOG_LEVEL` (default `info`), and secrets never written — every logged object goes through
 * {@link redactSecrets}, pino `redact` paths cover the usual header and credential fields, and
 * each finished line is scrubbed once more for bearer tokens, JWTs and private keys (messages
 * included). Arrays show their first {@link MAX_LOGGED_ARRAY_ITEMS} items and how many were left out.
 *
 * ## Example
 * ```ts
 * declare const secret: KubeObject & { data: Record<string, string> };
 * const log = createLogger({ name: 'widget-operator' });
 * log.info({ secret }, 'applied'); // secret.data values are "[REDACTED]"
 * ```
 *
 * @throws {InvalidArgumentError} for an unknown level, naming where it came from.
 */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  if (options === null || typeof options !== 'object') {
    throw new InvalidArgumentError('createLogger', 'options', options, 'must be an object or omitted');
  }
  const level = levelFrom(options);
  const { pino } = pinoModule();
  return pino(
    {
      level,
      ...(options.name === undefined ? {} : { name: options.name }),
      redact: {
        paths: [
          'authorization',
          'password',
          'token',
          'headers.authorization',
          'headers.cookie',
          'req.headers.authorization',
          'req.headers.cookie',
          '*.authorization',
          '*.password',
          '*.token',
          '*.headers.authorization',
          '*.headers.cookie',
        ],
        censor: REDACTED,
      },
      // Errors are already plain objects here (sanitize ran in formatters.log): keep their shape
      serializers: { err: (e: unknown) => e, error: (e: unknown) => e },
      formatters: {
        log: (object: Record<string, unknown>) =>
          sanitize(object, 0, new WeakSet()) as Record<string, unknown>,
      },
      hooks: { streamWrite: scrubString },
    },
    options.destination,
  );
}

/**
 * What {@link logReconcile} reads from a result (`ControllerResult` and core's `ReconcileResult` fit).
 *
 * ## Example
 * ```ts
 * const result: LoggedReconcile = { key: 'shop/w', outcome: 'requeue', durationMs: 8, action: { type: 'requeue', afterMs: 5_000 } };
 * of(result).pipe(logReconcile(log, 'widgets')).subscribe(); // {"controller":"widgets","key":"shop/w","result":"requeue",…}
 * ```
 */
export interface LoggedReconcile {
  readonly key: unknown;
  readonly outcome: 'success' | 'requeue' | 'error' | 'terminal' | 'skipped';
  readonly durationMs: number;
  readonly action?: { readonly type: string; readonly afterMs?: number };
  readonly error?: unknown;
  readonly retryInMs?: number;
  /** The user function that failed (`ControllerResult.hook`). */
  readonly hook?: string;
}

/**
 * Logs one line per reconcile outcome: `{ controller, key, result, durationMs, requeueAfterMs?,
 * retryInMs?, hook?, error?, errorType? }` (`errorType`: the name of what failed, the cause of a
 * `ReconcileError`) with message `reconcile <result>` — `info` for success, requeue and
 * skipped, `error` for error and terminal (the error's message, secrets scrubbed).
 *
 * ## Example
 * ```ts
 * controller({ for: widgetType, client }).run(reconcile).pipe(logReconcile(log, 'widget')).subscribe();
 * ```
 * ## Semantics
 * Values, completion, errors and unsubscription pass through untouched; one log call per value.
 */
export function logReconcile<R extends LoggedReconcile>(
  logger: Pick<Logger, 'info' | 'error'>,
  controllerName: string,
): MonoTypeOperatorFunction<R> {
  if (logger === null || typeof logger !== 'object' || typeof logger.info !== 'function') {
    throw new InvalidArgumentError(
      'logReconcile',
      'logger',
      logger,
      'must be a pino Logger (createLogger())',
    );
  }
  if (typeof controllerName !== 'string' || controllerName === '') {
    throw new InvalidArgumentError(
      'logReconcile',
      'controllerName',
      controllerName,
      'must be a non-empty string',
    );
  }
  return tap(reconcileLine(logger, controllerName));
}

/**
 * The line {@link logReconcile} writes for one result, as a function (the Manager calls it from
 * its one stage per result). Nothing is built when the result's level is off (`silent`, or
 * `warn` for successes).
 */
export function reconcileLine<R extends LoggedReconcile>(
  logger: Pick<Logger, 'info' | 'error'> & Partial<Pick<Logger, 'isLevelEnabled'>>,
  controllerName: string,
): (r: R) => void {
  return (r: R) => {
    const failed = r.outcome === 'error' || r.outcome === 'terminal';
    if (logger.isLevelEnabled !== undefined && !logger.isLevelEnabled(failed ? 'error' : 'info')) return;
    const fields: Record<string, unknown> = {
      controller: controllerName,
      key: r.key,
      result: r.outcome,
      durationMs: r.durationMs,
    };
    if (r.action?.type === 'requeue' && r.action.afterMs !== undefined)
      fields['requeueAfterMs'] = r.action.afterMs;
    if (r.retryInMs !== undefined) fields['retryInMs'] = r.retryInMs;
    if (r.hook !== undefined) fields['hook'] = r.hook;
    if (r.error !== undefined) {
      fields['error'] =
        r.error instanceof Error
          ? r.error.message
          : typeof r.error === 'string'
            ? r.error
            : (JSON.stringify(r.error) ?? 'unknown error');
      // A ReconcileError only wraps what failed: name that (UserCodeError, KubeApiError, …).
      if (r.error instanceof Error) {
        const cause: unknown = r.error.cause;
        fields['errorType'] = cause instanceof Error ? cause.name : r.error.name;
      }
    }
    if (failed) logger.error(fields, `reconcile ${r.outcome}`);
    else logger.info(fields, `reconcile ${r.outcome}`);
  };
}

/**
 * Adapts a pino logger to the controller's `ControllerLogger` (`log.info(message, fields)`).
 *
 * ## Example
 * ```ts
 * controller({ for: widgetType, client, log: controllerLogger(createLogger()) })
 * ```
 */
export function controllerLogger(logger: Logger): ControllerLogger {
  return {
    debug: (message, fields) => logger.debug(fields, message),
    info: (message, fields) => logger.info(fields, message),
    warn: (message, fields) => logger.warn(fields, message),
    error: (message, fields) => logger.error(fields, message),
  };
}
