/**
 * The CLI's typed errors: each says what failed and what to do. `main` prints the message and
 * exits 2 (usage and configuration) instead of a stack trace.
 *
 * @module
 */

/**
 * Why the CLI could not run.
 *
 * ## Example
 * ```ts
 * const hint = (reason: CliErrorReason) =>
 *   reason === 'NoKubeconfig' ? 'set KUBECONFIG or pass --embedded' : 'see the message';
 * ```
 */
export type CliErrorReason =
  | 'Usage'
  | 'NoKubeconfig'
  | 'Unreachable'
  | 'Unauthenticated'
  | 'ModuleNotFound'
  | 'NotRunnable'
  | 'InvalidManifest'
  | 'KindNotServed'
  | 'UnsafeWebhook'
  | 'BadRecording';

/**
 * A failure the user can fix (a missing kubeconfig, an unreachable server, a module exporting
 * nothing runnable, a bad manifest, bad arguments).
 *
 * ## Example
 * ```ts
 * try { await runCommand(args); } catch (e) { if (e instanceof CliError) console.error(e.message); }
 * ```
 */
export class CliError extends Error {
  readonly _tag = 'CliError' as const;
  override readonly name = 'CliError';

  constructor(
    readonly reason: CliErrorReason,
    message: string,
    options?: { readonly cause?: unknown },
  ) {
    super(message, options);
  }
}
