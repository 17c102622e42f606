/**
 * Ages and durations as kubectl's printers show them (`k8s.io/apimachinery/pkg/util/duration`).
 *
 * @module
 */

/**
 * `duration.HumanDuration` of the time since `timestamp` (`0s`, `90s`, `5m3s`, `3h`, `2d4h`, `3y`),
 * `<unknown>` without a timestamp.
 */
export function age(timestamp: string | null | undefined, now: number): string {
  if (typeof timestamp !== 'string') return '<unknown>';
  const then = Date.parse(timestamp);
  if (Number.isNaN(then)) return '<unknown>';
  return humanDuration((now - then) / 1000);
}

/** `k8s.io/apimachinery/pkg/util/duration.HumanDuration`. */
export function humanDuration(secondsFloat: number): string {
  const seconds = Math.floor(secondsFloat);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${String(seconds)}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${String(minutes)}m` : `${String(minutes)}m${String(s)}s`;
  }
  if (minutes < 60 * 3) return `${String(minutes)}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${String(hours)}h` : `${String(hours)}h${String(m)}m`;
  }
  if (hours < 48) return `${String(hours)}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const d = Math.floor(hours / 24);
    return h === 0 ? `${String(d)}d` : `${String(d)}d${String(h)}h`;
  }
  if (hours < 24 * 365 * 2) return `${String(Math.floor(hours / 24))}d`;
  if (hours < 24 * 365 * 8) {
    const y = Math.floor(hours / 24 / 365);
    const dy = Math.floor(hours / 24) % 365;
    return dy === 0 ? `${String(y)}y` : `${String(y)}y${String(dy)}d`;
  }
  return `${String(Math.floor(hours / 24 / 365))}y`;
}
