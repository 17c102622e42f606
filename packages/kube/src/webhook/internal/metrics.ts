/**
 * controller-runtime's webhook metrics (`pkg/webhook/internal/metrics`): requests by path and
 * HTTP code, requests in flight, latency.
 *
 * @module
 */
import type { Counter, Gauge, Histogram, Registry } from 'prom-client';

import { promClient } from '../../internal/lazy-modules.js';

/** The webhook metrics of one server, on a registry. */
export class WebhookMetrics {
  readonly requests: Counter<'webhook' | 'code'>;
  readonly inFlight: Gauge<'webhook'>;
  readonly latency: Histogram<'webhook'>;

  constructor(registry: Registry) {
    const { Counter, Gauge, Histogram } = promClient();
    const registers = [registry];
    // a registry shared by two servers (tests) keeps the first set
    const existing = registry.getSingleMetric('controller_runtime_webhook_requests_total');
    if (existing !== undefined) {
      this.requests = existing as Counter<'webhook' | 'code'>;
      this.inFlight = registry.getSingleMetric(
        'controller_runtime_webhook_requests_in_flight',
      ) as Gauge<'webhook'>;
      this.latency = registry.getSingleMetric(
        'controller_runtime_webhook_latency_seconds',
      ) as Histogram<'webhook'>;
      return;
    }
    this.requests = new Counter({
      name: 'controller_runtime_webhook_requests_total',
      help: 'Total number of admission requests by HTTP status code.',
      labelNames: ['webhook', 'code'],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'controller_runtime_webhook_requests_in_flight',
      help: 'Current number of admission requests being served.',
      labelNames: ['webhook'],
      registers,
    });
    this.latency = new Histogram({
      name: 'controller_runtime_webhook_latency_seconds',
      help: 'Histogram of the latency of processing admission requests',
      labelNames: ['webhook'],
      registers,
    });
  }
}
