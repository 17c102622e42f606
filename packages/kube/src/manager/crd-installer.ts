/**
 * The CRDs an operator installs at start (`mgr.ensureCrd`), kept installed against a refusal: an
 * operator whose identity may not yet write its CRD (RBAC applied after the Deployment, a
 * ClusterRole still being reconciled by GitOps) keeps running unready, says in its log and on
 * `/readyz` what to grant, retries with backoff, and becomes ready once the permission arrives —
 * instead of exiting from `setup` into a crash loop whose log blames nothing it can fix.
 *
 * @module
 */
import type { Logger } from 'pino';
import type { SchedulerLike, Subscription } from 'rxjs';

import type { KubeClient } from '../client/kube-client.js';
import type { EnsureCrdOptions, EnsureCrdResult } from '../crd/ensure-crd.js';
import { ensureCrd } from '../crd/ensure-crd.js';
import type { CrdInput } from '../crd/load-crd.js';
import { loadCrd } from '../crd/load-crd.js';
import { isForbidden, isUnauthorized } from '../errors.js';
import type { ProbeCheck } from '../ops/probes.js';

/** First retry after a refusal; doubles up to {@link MAX_RETRY_MS}. */
const FIRST_RETRY_MS = 1_000;
const MAX_RETRY_MS = 30_000;

interface Pending {
  error: unknown;
  timer: Subscription | undefined;
}

/**
 * Installs CRDs with `ensureCrd` and remembers their names (for the generated RBAC); a refused
 * installation (401/403) is retried in the background until it succeeds or {@link stop}.
 *
 * ## Example
 * ```ts
 * const crds = new CrdInstaller(client, 'widget-operator', log, asyncScheduler);
 * await crds.ensure(new URL('../crd.yaml', import.meta.url)); // undefined when refused
 * startProbeServer({ port: 8081, checks: [crds.check] });
 * ```
 *
 * ## Memory
 * One entry per CRD; a pending one holds its manifest and one timer.
 */
export class CrdInstaller {
  private readonly names = new Set<string>();
  private readonly pending = new Map<string, Pending>();
  private stopped = false;

  constructor(
    private readonly client: KubeClient,
    private readonly fieldManager: string,
    private readonly log: Pick<Logger, 'warn' | 'info' | 'error'>,
    private readonly scheduler: SchedulerLike,
  ) {}

  /** Names of the CRDs installed or being installed. */
  get installed(): readonly string[] {
    return [...this.names];
  }

  /**
   * `ensureCrd` as the field manager; resolves `undefined` instead of rejecting when the server
   * refuses it (401/403), and keeps trying in the background.
   *
   * @throws what `ensureCrd` throws for anything else (`InvalidCrdError`, `CrdNotEstablishedError`,
   *   other API errors): a CRD that cannot be valid is not waited for.
   */
  async ensure(crd: CrdInput, options: EnsureCrdOptions = {}): Promise<EnsureCrdResult | undefined> {
    const object = await loadCrd(crd, 'mgr.ensureCrd');
    const name = nameOf(object);
    const settings = { fieldManager: this.fieldManager, ...options };
    try {
      const result = await ensureCrd(this.client, object, settings);
      this.names.add(result.crd.metadata.name ?? name);
      return result;
    } catch (error) {
      if (!refused(error) || name === '') throw error;
      this.names.add(name);
      this.log.warn(
        { crd: name, error: text(error) },
        `CRD ${name} could not be installed: ${advice(name)}; the operator keeps running, unready, and retries`,
      );
      this.retry(name, object, settings, error, FIRST_RETRY_MS);
      return undefined;
    }
  }

  /** The readiness check named `crds`: unready while a CRD could not be installed, saying why. */
  readonly check: ProbeCheck = {
    name: 'crds',
    check: () => {
      if (this.pending.size === 0) return { ok: true };
      const reasons = [...this.pending].map(
        ([name, p]) => `CRD ${name} not installed (${text(p.error)}) — ${advice(name)}`,
      );
      return { ok: false, reason: reasons.join('; ') };
    },
  };

  /** Stops retrying (the manager stops). */
  stop(): void {
    this.stopped = true;
    for (const p of this.pending.values()) p.timer?.unsubscribe();
  }

  private retry(
    name: string,
    object: Record<string, unknown>,
    settings: EnsureCrdOptions,
    error: unknown,
    delayMs: number,
  ): void {
    const entry: Pending = this.pending.get(name) ?? { error, timer: undefined };
    entry.error = error;
    this.pending.set(name, entry);
    if (this.stopped) return;
    entry.timer = this.scheduler.schedule(() => {
      ensureCrd(this.client, object, settings).then(
        () => {
          this.pending.delete(name);
          this.log.info({ crd: name }, `CRD ${name} installed: the permission arrived`);
        },
        (e: unknown) => this.retry(name, object, settings, e, Math.min(delayMs * 2, MAX_RETRY_MS)),
      );
    }, delayMs);
  }
}

function refused(error: unknown): boolean {
  return isForbidden(error) || isUnauthorized(error);
}

function advice(name: string): string {
  return (
    `grant get and patch on apiextensions.k8s.io customresourcedefinitions named ${name} ` +
    `(a ClusterRole rule { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"], ` +
    `resourceNames: ["${name}"], verbs: ["get", "patch"] }, which \`rxkube rbac\` generates) and apply the ` +
    `CRD ahead, since creating it needs "create" on every CRD (resourceNames cannot limit create)`
  );
}

function nameOf(object: Record<string, unknown>): string {
  const metadata = object['metadata'];
  if (metadata !== null && typeof metadata === 'object') {
    const name = (metadata as { name?: unknown }).name;
    if (typeof name === 'string') return name;
  }
  return '';
}

function text(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
