/**
 * The flags of `rxkube` itself: the Manager's (`MANAGER_FLAGS` of `@rxkube/kube`) and the CLI's.
 * An operator module's own options (`module-options.ts`) may not reuse these names.
 *
 * @module
 */
import { MANAGER_FLAGS } from '@rxkube/kube/manager';

/** `parseArgs` options of every flag `rxkube` reads itself. */
export const CLI_FLAGS = {
  ...MANAGER_FLAGS,
  embedded: { type: 'boolean' },
  port: { type: 'string' },
  filename: { type: 'string', short: 'f', multiple: true },
  kubeconfig: { type: 'string' },
  watch: { type: 'boolean' },
  name: { type: 'string' },
  'operator-namespace': { type: 'string' },
  'webhook-match-conditions': { type: 'boolean' },
  record: { type: 'string' },
  'record-max-bytes': { type: 'string' },
  'dry-run': { type: 'boolean' },
  step: { type: 'boolean' },
  after: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** The names a module's options may not take. */
export const RESERVED_FLAGS: readonly string[] = Object.keys(CLI_FLAGS);
