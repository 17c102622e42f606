/**
 * Differential testing: the same requests sent to the embedded server and to a real kube-apiserver
 * (`startControlPlane()`), the answers compared after {@link normalise}. A case is a list of
 * requests in a fresh namespace; each answer is compared in full, by status only (a known,
 * documented difference), or not at all (set-up). Watch cases compare the events two watches get.
 * Test support only.
 *
 * @module
 */
import { selectedBackends } from '../backends/backends.js';
import type { ControlPlane } from '../control-plane/control-plane.js';
import { startControlPlane } from '../control-plane/control-plane.js';
import type { Reply } from '../internal/test-client.js';
import { call, WatchReader } from '../internal/test-client.js';
import type { ApiServer } from '../server.js';
import { startApiServer } from '../server.js';
import { differences, generateNames, normalise } from './normalise.js';

/** One request of a case. */
export interface DiffStep {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  readonly path: string;
  /** JSON (object) or raw text. */
  readonly body?: unknown;
  readonly contentType?: string;
  readonly accept?: string;
  /**
   * `full` (default): status and normalised body; `status`: a known difference in the body, named
   * in `why`; `none`: set-up, not compared.
   */
  readonly compare?: 'full' | 'status' | 'none';
  readonly why?: string;
  /** Compares only this part of each body (after the status), e.g. `(b) => b.metadata.labels`. */
  readonly pick?: (body: any) => unknown; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A differential case: requests in a fresh namespace `ns`. */
export interface DiffCase {
  readonly name: string;
  /** The Kubernetes source the behaviour comes from. */
  readonly cite: string;
  /** CustomResourceDefinitions (JSON) installed once, before the case, on both servers. */
  readonly crds?: readonly unknown[];
  readonly steps: (ns: string) => readonly DiffStep[];
}

/** A watch case: a watch is opened, steps run, the first `events` events of both are compared. */
export interface WatchDiffCase extends DiffCase {
  readonly watch: (ns: string) => string;
  readonly events: number;
}

/** Whether the real server can be started here, and why not. */
export function differentialSkipReason(): string | undefined {
  const real = selectedBackends().find((b) => b.name === 'real');
  if (real?.enabled) return undefined;
  return `differential tests need a real kube-apiserver: ${real?.reason ?? 'real backend off'}`;
}

interface Side {
  readonly name: 'real' | 'embedded';
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly ca?: string;
}

/** The two servers of a differential run. */
export class DifferentialPair {
  private constructor(
    private readonly plane: ControlPlane,
    private readonly server: ApiServer,
    private readonly real: Side,
    private readonly embedded: Side,
  ) {}

  /** Starts a control plane (no controller manager) and an embedded server without GC to match it. */
  static async start(): Promise<DifferentialPair> {
    const [plane, server] = await Promise.all([
      startControlPlane({ controllerManager: false }),
      // compared with the real 1.24 tier: serve ListOptions as 1.24 does (no WatchList)
      startApiServer({ gc: false, watchList: false, logger: { error: () => undefined } }),
    ]);
    return new DifferentialPair(
      plane,
      server,
      { name: 'real', url: plane.url, headers: { Authorization: `Bearer ${plane.token}` }, ca: plane.ca },
      { name: 'embedded', url: server.url, headers: { Authorization: `Bearer ${server.token}` } },
    );
  }

  async stop(): Promise<void> {
    await Promise.all([this.plane.stop(), this.server.stop()]);
  }

  private send(side: Side, step: DiffStep): Promise<Reply> {
    return call(side.url, step.method, step.path, {
      ...(step.body !== undefined ? { body: step.body } : {}),
      ...(step.contentType !== undefined ? { contentType: step.contentType } : {}),
      ...(step.accept !== undefined ? { accept: step.accept } : {}),
      headers: side.headers,
      ...(side.ca !== undefined ? { ca: side.ca } : {}),
    });
  }

  /** Sends one request to both; undefined when the answers agree, else the differences. */
  async both(step: DiffStep): Promise<string[]> {
    const [r, e] = [await this.send(this.real, step), await this.send(this.embedded, step)];
    const mode = step.compare ?? 'full';
    if (mode === 'none') return [];
    const out: string[] = [];
    if (r.status !== e.status) out.push(`status: real ${String(r.status)} | embedded ${String(e.status)}`);
    if (mode === 'full') {
      const rb: unknown = step.pick ? step.pick(r.body) : r.body;
      const eb: unknown = step.pick ? step.pick(e.body) : e.body;
      const names = generateNames(rb, eb, step.body);
      out.push(...differences(normalise(rb, names), normalise(eb, names)));
    }
    return out.map((d) => `${step.method} ${step.path}: ${d}`);
  }

  /** Installs CRDs on both and waits until their resources are served. */
  async installCrds(crds: readonly unknown[]): Promise<void> {
    for (const crd of crds) {
      const c = crd as { metadata: { name: string }; spec: { group: string; names: { plural: string } } };
      for (const side of [this.real, this.embedded]) {
        const r = await this.send(side, {
          method: 'POST',
          path: '/apis/apiextensions.k8s.io/v1/customresourcedefinitions',
          body: crd,
        });
        if (r.status !== 201 && r.status !== 409)
          throw new Error(`${side.name}: CRD ${c.metadata.name}: ${r.text}`);
      }
      for (const side of [this.real, this.embedded]) {
        const deadline = Date.now() + 30_000;
        for (;;) {
          const r = await this.send(side, { method: 'GET', path: `/apis/${c.spec.group}/v1` });
          if (r.status === 200 && r.text.includes(`"name":"${c.spec.names.plural}"`)) {
            // the real server serves a resource a moment after discovery lists it
            const l = await this.send(side, {
              method: 'GET',
              path: `/apis/${c.spec.group}/v1/${c.spec.names.plural}`,
            });
            if (l.status === 200) break;
          }
          if (Date.now() > deadline) throw new Error(`${side.name}: CRD ${c.metadata.name} not served`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    }
  }

  /** Runs a case in a fresh namespace; the differences of every compared answer. */
  async run(c: DiffCase, ns: string): Promise<string[]> {
    if (c.crds) await this.installCrds(c.crds);
    await this.both({
      method: 'POST',
      path: '/api/v1/namespaces',
      body: { metadata: { name: ns } },
      compare: 'none',
    });
    const diffs: string[] = [];
    for (const step of c.steps(ns)) diffs.push(...(await this.both(step)));
    return diffs;
  }

  /** Runs a watch case: the events both watches got, compared in order. */
  async runWatch(c: WatchDiffCase, ns: string): Promise<string[]> {
    if (c.crds) await this.installCrds(c.crds);
    await this.both({
      method: 'POST',
      path: '/api/v1/namespaces',
      body: { metadata: { name: ns } },
      compare: 'none',
    });
    const watches = [this.real, this.embedded].map(
      (side) =>
        new WatchReader(side.url, c.watch(ns), 'application/json', {
          headers: side.headers,
          ...(side.ca ? { ca: side.ca } : {}),
        }),
    );
    try {
      await Promise.all(watches.map((w) => w.ready));
      const diffs: string[] = [];
      for (const step of c.steps(ns)) diffs.push(...(await this.both(step)));
      const [r, e] = await Promise.all(watches.map((w) => w.count(c.events, 15_000)));
      const names = generateNames(r, e);
      const shape = (lines: typeof r): unknown =>
        normalise(
          (lines ?? []).map((l) => ({ type: l.type, object: l.object as unknown })),
          names,
        );
      diffs.push(...differences(shape(r), shape(e), 'watch').map((d) => `${c.watch(ns)}: ${d}`));
      return diffs;
    } finally {
      for (const w of watches) w.close();
    }
  }
}
