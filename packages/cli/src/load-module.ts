/**
 * Loads an operator module and finds what it can run: `setup(mgr, options)` (named or default
 * export) to register controllers on a Manager the CLI builds, or `createManager(options)` building
 * its own; and the `options` it declares, which the CLI reads from flags and the environment and
 * passes to `setup` (see `module-options.ts`).
 *
 * @module
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ManagerOptions } from '@rxkube/kube';
import { Manager } from '@rxkube/kube';

import { CliError } from './errors.js';
import { RESERVED_FLAGS } from './flags.js';
import type { ModuleOptions, ModuleOptionValues } from './module-options.js';
import { checkModuleOptions } from './module-options.js';

/**
 * What an operator module may export.
 *
 * ## Example
 * ```ts
 * // operator.ts — run with `rxkube run dist/operator.js`
 * export const name = 'widget-operator';
 * export const options = {
 *   concurrency: { type: 'number', default: 2, env: 'WIDGET_CONCURRENCY', description: 'widgets at once' },
 * } satisfies ModuleOptions;
 * export function setup(mgr: Manager, opts: { concurrency?: number } = {}): void {
 *   mgr.add('widget', { for: { apiVersion: 'example.com/v1', kind: 'Widget' }, concurrency: opts.concurrency }, reconcile);
 * }
 * ```
 */
export interface OperatorModule {
  /** The operator's name (manager name, lease name); default: the file's base name. */
  readonly name?: string;
  /** The options `setup` takes from flags and the environment (`rxkube run <module> --help` lists them). */
  readonly options?: ModuleOptions;
  /** Registers controllers (and installs CRDs) on the manager; gets the values of `options`. */
  readonly setup?: (mgr: Manager, options: ModuleOptionValues) => void | Promise<void>;
  /** Builds a manager itself, from the options the CLI resolved (and the values of `options`). */
  readonly createManager?: (
    options: ManagerOptions,
    moduleOptions: ModuleOptionValues,
  ) => Manager | Promise<Manager>;
  readonly default?: unknown;
}

/**
 * How to get a Manager out of a loaded module.
 *
 * ## Example
 * ```ts
 * const runnable: Runnable = await loadOperatorModule('dist/operator.js');
 * const mgr = await runnable.manager({ client: KubeClient.default(), name: runnable.name ?? 'operator' });
 * process.exitCode = await mgr.run();
 * ```
 */
export interface Runnable {
  readonly name: string | undefined;
  /** The options the module declares (checked; `{}` when it declares none). */
  readonly options: ModuleOptions;
  /**
   * Builds the manager from `options` and registers the module's controllers on it, passing
   * `moduleOptions` (the values of {@link Runnable.options}) to `setup`.
   */
  manager(options: ManagerOptions, moduleOptions?: ModuleOptionValues): Promise<Manager>;
}

/**
 * Imports `path` (relative to `cwd`) and returns how to run it.
 *
 * ## Example
 * ```ts
 * const runnable = await loadOperatorModule('dist/operator.js');
 * const mgr = await runnable.manager({ client, name: runnable.name ?? 'op' });
 * ```
 * @throws {CliError} `ModuleNotFound` when the file does not exist or fails to import;
 *   `NotRunnable` when it exports neither `setup` nor `createManager`, declares malformed
 *   `options`, or registers no controller.
 */
export async function loadOperatorModule(path: string, cwd = process.cwd()): Promise<Runnable> {
  const file = resolve(cwd, path);
  if (!existsSync(file)) {
    throw new CliError(
      'ModuleNotFound',
      `operator module ${file} does not exist (a built .js file is expected)`,
    );
  }
  let mod: OperatorModule;
  try {
    mod = (await import(pathToFileURL(file).href)) as OperatorModule;
  } catch (error) {
    throw new CliError(
      'ModuleNotFound',
      `operator module ${file} failed to import: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const setup =
    typeof mod.setup === 'function'
      ? mod.setup
      : typeof mod.default === 'function'
        ? (mod.default as NonNullable<OperatorModule['setup']>)
        : undefined;
  const createManager = typeof mod.createManager === 'function' ? mod.createManager : undefined;
  if (setup === undefined && createManager === undefined) {
    const exported = Object.keys(mod).filter((k) => k !== '__esModule');
    throw new CliError(
      'NotRunnable',
      `operator module ${file} exports nothing runnable (it exports: ${exported.join(', ') || 'nothing'}). ` +
        'Export `setup(mgr: Manager)` that registers controllers with mgr.add(…), or `createManager(options)` returning a Manager.',
    );
  }
  const name = typeof mod.name === 'string' && mod.name !== '' ? mod.name : undefined;
  const options = checkModuleOptions(mod.options, file, RESERVED_FLAGS);
  return {
    name,
    options,
    async manager(managerOptions, moduleOptions = {}) {
      const manager =
        createManager !== undefined
          ? await createManager(managerOptions, moduleOptions)
          : new Manager(managerOptions);
      if (setup !== undefined) await setup(manager, moduleOptions);
      if (manager.registered.length === 0) {
        throw new CliError(
          'NotRunnable',
          `operator module ${file} registered no controller: its setup() must call mgr.add(name, options, reconcile)`,
        );
      }
      return manager;
    },
  };
}
