// The world the `## Example` blocks of the TSDoc comments are written in, like rustdoc's hidden
// `# let client = …;` lines: a block may use these names without declaring them, and every name
// the packages' entries export without importing it (scripts/docs/tsdoc-examples.test.mjs adds
// the imports). Types only: this file is compiled, never run.
import type {
  Client,
  ControllerReconcile,
  KubeClient,
  KubeObject,
  Manager,
  ObjectRef,
  ReconcileContext,
  Resource,
  ResourceType,
  Store,
  EventRecorder,
} from '@rxkube/kube';
import type { KubeConfig } from '@kubernetes/client-node';
import type { ApiResource } from '@rxkube/kube/client';
import type { CustomResourceDefinition } from '@rxkube/kube/crd';
import type { Condition, DraftedStatus, StatusWrite } from '@rxkube/kube/sink';
import type { HttpTransport } from '@rxkube/kube/transport';
import type { ListWatchSource } from '@rxkube/kube/watcher';
import type { WatchEvent, WatchRegistry } from '@rxkube/kube';
import type { Observable } from 'rxjs';
import type { ControllerMetrics } from '@rxkube/kube/ops';
import type { TestScheduler, RunHelpers } from 'rxjs/testing';
import type { Logger } from 'pino';
import type { ApiServer, TestCluster } from '@rxkube/testing';

/** The custom resource of the examples: `Widget` (example.com/v1), with a size and a status. */
export interface WidgetStatus {
  observedGeneration?: number;
  phase?: string;
  ready?: boolean;
  conditions?: Condition[];
}
export type Widget = Resource<{ size: number }, WidgetStatus>;
export type Pod = Resource<
  { nodeName?: string; containers: { name: string; image: string }[] },
  { phase?: string }
>;
export type ConfigMap = KubeObject & { data?: Record<string, string> };

/** The child a Widget's reconcile applies: its ConfigMap (`<name>-config`, data from the spec). */
export declare const configMapFor: (widget: Widget) => ConfigMap;
/** The external resource a Widget's finalizer guards: a storage bucket, created and deleted. */
export declare const ensureBucket: (widget: Widget) => Observable<void>;
export declare const deleteBucket: (widget: Widget, client?: Client) => Observable<void>;

export declare const widgetType: ResourceType<Widget>;
export declare const configMapType: ResourceType<ConfigMap>;
export declare const podType: ResourceType<Pod>;
export declare const widget: Widget;
export declare const client: KubeClient;
export declare const mgr: Manager;
export declare const store: Store<Widget>;
export declare const ref: ObjectRef;
export declare const ctx: ReconcileContext<Widget>;
export declare const reconcile: ControllerReconcile<Widget>;
export declare const recorder: EventRecorder;
export declare const source: ListWatchSource;
export declare const metrics: ControllerMetrics;
export declare const log: Logger;
export declare const testScheduler: TestScheduler;
export declare const cold: RunHelpers['cold'];
export declare const hot: RunHelpers['hot'];
export declare const expectObservable: RunHelpers['expectObservable'];
export declare const obj: Widget;
export declare const cm: ConfigMap;
export declare const crd: CustomResourceDefinition;
export declare const kubeConfig: KubeConfig;
export declare const transport: HttpTransport;
export declare const registry: WatchRegistry;
export declare const configMaps: ApiResource;
export declare const events$: Observable<WatchEvent<Widget>>;
export declare const widgets$: Observable<Widget>;
export declare const requests$: Observable<ObjectRef>;
export declare const desired$: Observable<StatusWrite<Widget> | DraftedStatus<Widget>>;
/** A caught error. */
export declare const e: Error;
export declare const error: Error;
/** A running embedded API server (`await startApiServer()`), in @rxkube/testing's examples. */
export declare const server: ApiServer;
/** The cluster a test runs against: the embedded server or a real control plane. */
export declare const cluster: TestCluster;
