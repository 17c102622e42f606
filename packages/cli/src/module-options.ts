/**
 * Options an operator module declares for `rxkube run`/`rxkube rbac`: the module exports
 * `options` (a table of flags, each with an optional environment variable and default), the CLI
 * parses them from the command line and the environment — a flag wins over its variable, which
 * wins over the default — and passes the values to `setup(mgr, options)`, so a module is
 * configurable without parsing `process.argv` or `process.env` itself.
 *
 * @module
 */
import { CliError } from './errors.js';

/**
 * One option of an operator module: a flag `--<name>` (kebab-case), its type, and where else its
 * value may come from.
 *
 * ## Example
 * ```ts
 * const greeting: ModuleOption = {
 *   type: 'string',
 *   env: 'GREETER_GREETING',
 *   default: 'hello',
 *   description: 'the annotation value written on each ConfigMap',
 * };
 * ```
 */
export type ModuleOption =
  | {
      readonly type: 'string';
      /** `--x a --x b` (and `X=a,b` in the environment) give `['a', 'b']`. */
      readonly multiple?: boolean;
      readonly default?: string | readonly string[];
      readonly env?: string;
      readonly description: string;
    }
  | {
      readonly type: 'number';
      readonly default?: number;
      readonly env?: string;
      readonly description: string;
    }
  | {
      /** `--x` sets it; in the environment `true`/`1`/`yes` or `false`/`0`/`no`. */
      readonly type: 'boolean';
      readonly default?: boolean;
      readonly env?: string;
      readonly description: string;
    };

/**
 * The `options` export of an operator module: flag name (kebab-case) → option. `setup` receives
 * the values under the camelCase of each name (`--install-crd` → `installCrd`); an option with no
 * value and no default is absent.
 *
 * ## Example
 * ```ts
 * export const options = {
 *   'install-crd': { type: 'boolean', default: true, env: 'COPYRATOR_INSTALL_CRD', description: 'install the CRD' },
 * } satisfies ModuleOptions;
 * export async function setup(mgr: Manager, opts: { installCrd?: boolean } = {}) { … }
 * ```
 */
export type ModuleOptions = Readonly<Record<string, ModuleOption>>;

/**
 * The values `setup` receives, by camelCase option name.
 *
 * @example
 * ```ts
 * export function setup(mgr: Manager, values: ModuleOptionValues) {
 *   const greeting = typeof values['greeting'] === 'string' ? values['greeting'] : 'hello';
 * }
 * ```
 */
export type ModuleOptionValues = Readonly<Record<string, string | readonly string[] | number | boolean>>;

const NAME = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const ENV = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `install-crd` → `installCrd`. */
export function camelCase(name: string): string {
  return name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Checks a module's `options` export: an object of well-formed options whose names are kebab-case
 * and differ from the CLI's own flags.
 *
 * @throws {CliError} `NotRunnable` naming the option and what is wrong.
 */
export function checkModuleOptions(value: unknown, file: string, reserved: readonly string[]): ModuleOptions {
  const fail = (what: string): never => {
    throw new CliError('NotRunnable', `operator module ${file}: its \`options\` export ${what}`);
  };
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    fail('must be an object of options, e.g. { greeting: { type: "string", description: "…" } }');
  }
  for (const [name, option] of Object.entries(value as Record<string, unknown>)) {
    if (!NAME.test(name)) fail(`names "${name}": option names are kebab-case (e.g. "install-crd")`);
    if (reserved.includes(name)) fail(`names "${name}", a flag of rxkube itself: choose another name`);
    const o = option as Partial<Record<string, unknown>> | null;
    if (o === null || typeof o !== 'object') fail(`"${name}" must be an object { type, description }`);
    const type = o?.['type'];
    if (type !== 'string' && type !== 'number' && type !== 'boolean') {
      fail(`"${name}" has type ${JSON.stringify(type)}: expected "string", "number" or "boolean"`);
    }
    if (typeof o?.['description'] !== 'string') fail(`"${name}" needs a description (shown by --help)`);
    const env = o?.['env'];
    if (env !== undefined && (typeof env !== 'string' || !ENV.test(env))) {
      fail(`"${name}" has env ${JSON.stringify(env)}: expected a variable name like GREETER_GREETING`);
    }
    const dflt = o?.['default'];
    const multiple = o?.['multiple'] === true;
    const fits =
      dflt === undefined ||
      (type === 'string' &&
        (multiple
          ? Array.isArray(dflt) && dflt.every((d) => typeof d === 'string')
          : typeof dflt === 'string')) ||
      (type === 'number' && typeof dflt === 'number' && Number.isFinite(dflt)) ||
      (type === 'boolean' && typeof dflt === 'boolean');
    if (!fits) fail(`"${name}" has a default that is not a ${String(type)}${multiple ? ' list' : ''}`);
  }
  return value as ModuleOptions;
}

/** The `parseArgs` options of a module's flags (numbers are parsed as strings, then checked). */
export function moduleFlags(
  options: ModuleOptions,
): Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> {
  const flags: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {};
  for (const [name, o] of Object.entries(options)) {
    flags[name] =
      o.type === 'boolean'
        ? { type: 'boolean' }
        : { type: 'string', ...(o.type === 'string' && o.multiple === true ? { multiple: true } : {}) };
  }
  return flags;
}

/**
 * The values for `setup`: from the parsed flags, else the environment, else the default.
 *
 * @throws {CliError} `Usage` naming the flag or variable whose value is not of its type.
 */
export function resolveModuleOptions(
  options: ModuleOptions,
  flags: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): ModuleOptionValues {
  const out: Record<string, string | readonly string[] | number | boolean> = {};
  for (const [name, o] of Object.entries(options)) {
    // parseArgs gives a string, a boolean or (multiple) a string list.
    const flag = flags[name] as string | boolean | string[] | undefined;
    const fromEnv = o.env === undefined ? undefined : env[o.env];
    const source = flag !== undefined ? `--${name}` : `${o.env ?? ''}`;
    const raw = flag ?? (fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
    const key = camelCase(name);
    if (raw === undefined) {
      if (o.default !== undefined) out[key] = o.default;
      continue;
    }
    const bad = (expected: string): never => {
      throw new CliError('Usage', `invalid ${source}=${JSON.stringify(raw)}: expected ${expected}`);
    };
    switch (o.type) {
      case 'boolean':
        if (typeof raw === 'boolean') out[key] = raw;
        else if (/^(true|1|yes)$/i.test(String(raw))) out[key] = true;
        else if (/^(false|0|no)$/i.test(String(raw))) out[key] = false;
        else bad('true or false');
        break;
      case 'number': {
        const n = Number(raw);
        if (typeof raw !== 'string' || raw.trim() === '' || !Number.isFinite(n)) bad('a number');
        out[key] = n;
        break;
      }
      case 'string':
        out[key] =
          o.multiple === true
            ? Array.isArray(raw)
              ? raw
              : String(raw as string)
                  .split(',')
                  .map((s) => s.trim())
                  .filter((s) => s !== '')
            : String(raw);
        break;
    }
  }
  return out;
}

/** The usage lines of a module's options, for `rxkube run <module> --help`. */
export function moduleOptionsUsage(options: ModuleOptions): string {
  const lines = Object.entries(options).map(([name, o]) => {
    const value = o.type === 'boolean' ? '' : o.type === 'number' ? ' N' : ' VALUE';
    const extra = [
      o.env !== undefined ? `env ${o.env}` : undefined,
      o.default !== undefined ? `default ${JSON.stringify(o.default)}` : undefined,
    ].filter((x) => x !== undefined);
    return (
      `  --${name}${value}`.padEnd(26) + `${o.description}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`
    );
  });
  return lines.length === 0 ? '' : `options of this module (passed to its setup):\n${lines.join('\n')}\n`;
}
