/**
 * The ring's metrics and its log line per hand-off. Metric names follow the operations
 * list (`rxkube_shard_members`, `rxkube_shard_buckets_owned`, `rxkube_shard_handoffs_total`,
 * `rxkube_shard_handoff_duration_seconds`), labelled with the ring.
 *
 * @module
 */
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Subscription } from 'rxjs';

import { promClient } from '../internal/lazy-modules.js';

import type { ShardHandOff, ShardRing } from './shard-ring.js';

/** Hand-off durations: a drain is bounded by 10 s by default; acquisitions take one request. */
const HANDOFF_BUCKETS = [0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30];

/** Registers the ring's metrics on `registry` and keeps them (and the hand-off log) current. */
export function observeRing(ring: ShardRing, registry: Registry, log: Logger): Subscription[] {
  const { Counter, Gauge, Histogram } = promClient();
  const labels = ['ring'] as const;
  const members = new Gauge({
    name: 'rxkube_shard_members',
    help: 'Live members of the shard ring, as this replica sees them',
    labelNames: labels,
    registers: [registry],
  });
  const owned = new Gauge({
    name: 'rxkube_shard_buckets_owned',
    help: 'Buckets whose keys this replica takes (it holds their fence)',
    labelNames: labels,
    registers: [registry],
  });
  const handoffs = new Counter({
    name: 'rxkube_shard_handoffs_total',
    help: 'Bucket hand-offs seen by this replica, by direction (acquired, released, lost)',
    labelNames: ['ring', 'direction'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'rxkube_shard_handoff_duration_seconds',
    help: 'Time of a hand-off step: drain and release (released), or acquisition (acquired)',
    labelNames: ['ring', 'direction'] as const,
    buckets: HANDOFF_BUCKETS,
    registers: [registry],
  });
  const ringName = ring.options.ring;
  owned.set({ ring: ringName }, 0);
  return [
    ring.members$.subscribe((m) => members.set({ ring: ringName }, m.length)),
    ring.owned$.subscribe((o) => owned.set({ ring: ringName }, o.length)),
    ring.handoffs$.subscribe((h) => {
      handoffs.inc({ ring: ringName, direction: h.direction });
      duration.observe({ ring: ringName, direction: h.direction }, h.durationMs / 1000);
      logHandOff(log, ringName, h);
    }),
  ];
}

/** One line per hand-off: info when orderly, warn when a bucket was lost or its drain cancelled. */
export function logHandOff(log: Logger, ring: string, h: ShardHandOff): void {
  const fields = { ring, bucket: h.bucket, direction: h.direction, durationMs: h.durationMs };
  if (h.direction === 'acquired') {
    log.info({ ...fields, from: h.from ?? '' }, `shard ${ring}: acquired bucket ${h.bucket}`);
  } else if (h.direction === 'released') {
    const cancelled = h.cancelled === true;
    (cancelled ? log.warn.bind(log) : log.info.bind(log))(
      { ...fields, cancelled },
      cancelled
        ? `shard ${ring}: released bucket ${h.bucket} after cancelling reconciles still running at the drain deadline`
        : `shard ${ring}: released bucket ${h.bucket} after draining it`,
    );
  } else {
    log.warn(
      fields,
      `shard ${ring}: lost bucket ${h.bucket} (membership not renewed in time, or fence taken); its reconciles were cancelled`,
    );
  }
}
