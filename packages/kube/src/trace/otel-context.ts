/**
 * The little of OpenTelemetry's context machinery `@rxkube/kube/trace` needs, without loading
 * `@opentelemetry/api` (its types only): an immutable `Context`, the span key every copy of the
 * API shares, and the context manager an SDK registered globally.
 *
 * @module
 */
import type { Context } from '@opentelemetry/api';

/**
 * The context key of the current span: `@opentelemetry/api`'s `createContextKey` is
 * `Symbol.for(description)`, so that every copy of the API shares it.
 */
export const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** An immutable OpenTelemetry `Context` (what `ROOT_CONTEXT.setValue` builds). */
class SpanScope implements Context {
  constructor(private readonly values: ReadonlyMap<symbol, unknown> = new Map()) {}
  getValue(key: symbol): unknown {
    return this.values.get(key);
  }
  setValue(key: symbol, value: unknown): Context {
    return new SpanScope(new Map(this.values).set(key, value));
  }
  deleteValue(key: symbol): Context {
    const values = new Map(this.values);
    values.delete(key);
    return new SpanScope(values);
  }
}
export const ROOT = new SpanScope();

/** What `@opentelemetry/api`'s `context.with` calls: the registered global context manager. */
export interface ContextManagerLike {
  active(): Context;
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F>;
}
/**
 * Where every copy of `@opentelemetry/api` 1.x keeps its globals (`registerGlobal`): the context
 * manager an SDK registered (`context.setGlobalContextManager`) is its `context`.
 */
const API_GLOBALS = Symbol.for('opentelemetry.js.api.1');

/** The context manager registered with `@opentelemetry/api`, if any (looked up per reconcile). */
export function globalContextManager(): ContextManagerLike | undefined {
  const globals = (globalThis as Record<symbol, { context?: Partial<ContextManagerLike> } | undefined>)[
    API_GLOBALS
  ];
  const manager = globals?.context;
  return typeof manager?.with === 'function' && typeof manager.active === 'function'
    ? (manager as ContextManagerLike)
    : undefined;
}
