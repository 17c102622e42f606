/**
 * Kubernetes' semver library (`library/semverlib.go`): `semver`, `isSemver`, `major`, `minor`,
 * `patch`, `compareTo`, `isGreaterThan`, `isLessThan` (semver 2.0.0 precedence).
 *
 * @module
 */
import type { Environment } from '@marcbachmann/cel-js';

import { evaluationError } from './errors.js';

const SEMVER =
  /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$/;

/** A semantic version. */
export class Semver {
  /** @param major major.  @param minor minor.  @param patch patch.  @param pre pre-release identifiers. */
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: readonly string[],
  ) {}

  static parse(s: string, normalize = false): Semver | undefined {
    let t = s;
    if (normalize) {
      t = t.replace(/^v/, '');
      const [core = '', ...rest] = t.split(/(?=[-+])/);
      const parts = core.split('.').map((p) => p.replace(/^0+(?=\d)/, ''));
      while (parts.length < 3) parts.push('0');
      t = parts.join('.') + rest.join('');
    }
    const m = SEMVER.exec(t);
    if (!m) return undefined;
    return new Semver(BigInt(m[1] ?? 0), BigInt(m[2] ?? 0), BigInt(m[3] ?? 0), m[4] ? m[4].split('.') : []);
  }

  compare(o: Semver): number {
    for (const k of ['major', 'minor', 'patch'] as const)
      if (this[k] !== o[k]) return this[k] < o[k] ? -1 : 1;
    if (this.pre.length === 0 || o.pre.length === 0)
      return o.pre.length - this.pre.length === 0 ? 0 : this.pre.length === 0 ? 1 : -1;
    for (let i = 0; i < Math.max(this.pre.length, o.pre.length); i++) {
      const a = this.pre[i];
      const b = o.pre[i];
      if (a === undefined) return -1;
      if (b === undefined) return 1;
      if (a === b) continue;
      const an = /^\d+$/.test(a);
      const bn = /^\d+$/.test(b);
      if (an && bn) return BigInt(a) < BigInt(b) ? -1 : 1;
      if (an !== bn) return an ? -1 : 1;
      return a < b ? -1 : 1;
    }
    return 0;
  }
}

const parse = (s: string, normalize: boolean): Semver => {
  const v = Semver.parse(s, normalize);
  if (!v) throw evaluationError('No Major.Minor.Patch elements found');
  return v;
};

/** Registers the semver library. */
export function registerSemver(env: Environment): Environment {
  return env
    .registerType('kubernetes.Semver', Semver)
    .registerFunction('semver(string): kubernetes.Semver', (s: string) => parse(s, false))
    .registerOperator('kubernetes.Semver == kubernetes.Semver', (a: Semver, b: Semver) => a.compare(b) === 0)
    .registerFunction('semver(string, bool): kubernetes.Semver', (s: string, n: boolean) => parse(s, n))
    .registerFunction('isSemver(string): bool', (s: string) => Semver.parse(s) !== undefined)
    .registerFunction(
      'isSemver(string, bool): bool',
      (s: string, n: boolean) => Semver.parse(s, n) !== undefined,
    )
    .registerFunction('kubernetes.Semver.major(): int', (v: Semver) => v.major)
    .registerFunction('kubernetes.Semver.minor(): int', (v: Semver) => v.minor)
    .registerFunction('kubernetes.Semver.patch(): int', (v: Semver) => v.patch)
    .registerFunction('kubernetes.Semver.compareTo(kubernetes.Semver): int', (a: Semver, b: Semver) =>
      BigInt(a.compare(b)),
    )
    .registerFunction(
      'kubernetes.Semver.isGreaterThan(kubernetes.Semver): bool',
      (a: Semver, b: Semver) => a.compare(b) > 0,
    )
    .registerFunction(
      'kubernetes.Semver.isLessThan(kubernetes.Semver): bool',
      (a: Semver, b: Semver) => a.compare(b) < 0,
    );
}
