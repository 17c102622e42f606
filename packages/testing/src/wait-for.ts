/**
 * `waitFor()`: waits for an outcome, never for a duration — polls `probe` until it returns a
 * value (anything but `undefined`, `null` or `false`) and resolves with it; rejects after a bound
 * naming what it waited for. For integration tests against a server whose controllers act in
 * their own time (a real one's namespace deletion takes seconds, the embedded one's a tick).
 *
 * @module
 */

/**
 * Options of {@link waitFor}.
 *
 * ## Example
 * ```ts
 * const options: WaitForOptions = { timeoutMs: 60_000, intervalMs: 100 }; // a real namespace deletion
 * const gone = async () => (await cluster.get('namespaces', undefined, 'tmp')) === undefined;
 * await waitFor('namespace tmp gone', gone, options);
 * ```
 */
export interface WaitForOptions {
  /** Give up after this long (default 10 s). */
  readonly timeoutMs?: number;
  /** Poll period (default 25 ms). */
  readonly intervalMs?: number;
}

/**
 * The value `probe` returned, without the "not yet" values.
 *
 * ## Example
 * ```ts
 * const probe = () => cluster.get('configmaps', 'default', 'a'); // Promise<KObj | undefined>
 * const cm: Settled<ReturnType<typeof probe>> = await waitFor('cm a', probe);
 * cm.metadata.name; // KObj: never undefined here
 * ```
 */
export type Settled<T> = Exclude<Awaited<T>, undefined | null | false>;

/**
 * Polls `probe` until it returns a value, and resolves with it.
 *
 * ## Example
 * ```ts
 * const cm = await waitFor('the copy in ns b', () => cluster.get('configmaps', 'b', 'settings'));
 * const statusOf = (w: KObj | undefined) => w?.['status'] as { ready?: boolean } | undefined;
 * await waitFor('w ready', async () => statusOf(await cluster.get('widgets.example.com', 'shop', 'w'))?.ready === true);
 * ```
 *
 * @throws {Error} `timed out after N ms waiting for <what>` (with the last error `probe` threw,
 *   if any, as `cause`).
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  options: WaitForOptions = {},
): Promise<Settled<T>> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const intervalMs = options.intervalMs ?? 25;
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== null && value !== false) return value as Settled<T>;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`, {
        ...(lastError !== undefined ? { cause: lastError } : {}),
      });
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
