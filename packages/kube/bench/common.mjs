// Pieces both benchmarks share: environment knobs, the sides to run, medians, number formats.

/** A positive integer from the environment variable `name`, else `fallback`. */
export function envInt(name, fallback) {
  const raw = process.env[name];
  const value = raw === undefined || raw === '' ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got ${raw}`);
  return value;
}

/** The sides `BENCH_SIDES` names (comma-separated), all of `all` by default; unknown ones throw. */
export function sidesFromEnv(all) {
  const sides = (process.env.BENCH_SIDES || all.join(',')).split(',').map((s) => s.trim());
  for (const s of sides) {
    if (!all.includes(s)) throw new Error(`BENCH_SIDES: unknown side "${s}" (use ${all.join(', ')})`);
  }
  return sides;
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export const MB = 1024 * 1024;
export const f0 = (x) => Math.round(x).toLocaleString('en-US');
