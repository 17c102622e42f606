/**
 * The deploy manifests of the example operators, as objects: the operator Namespace, the
 * Deployment, the kustomization tying them. Pure functions of {@link ShippedExample};
 * `generate.ts` writes them to `<example>/deploy/` next to the `rbac.yaml` that `rxkube rbac`
 * prints (all of the operator's RBAC, the get/patch on its own CRD included).
 *
 * What it does not do: compute the operator's RBAC (that is `managerRbac` through `rxkube rbac`),
 * or talk to a cluster.
 *
 * @module
 */
import { parseAllDocuments } from 'yaml';

/** Namespace the operators run in (their ServiceAccount, Deployment and Lease). */
export const OPERATOR_NAMESPACE = 'rxkube-system';

/** Port of `/healthz` and `/readyz`. */
export const HEALTH_PORT = 8081;
/** Port of `/metrics`. */
export const METRICS_PORT = 8080;
/** The Manager's shutdown deadline (docs/defaults.md), seconds. */
export const SHUTDOWN_DEADLINE_SECONDS = 30;
/** Kubernetes' grace period: the 30 s drain, the lease release and the servers' close fit in it. */
export const TERMINATION_GRACE_SECONDS = 45;
/** Image tag of the examples (the workspace version). */
export const IMAGE_TAG = '0.1.0';

/** One example operator as it is shipped. */
export interface ShippedExample {
  /** Folder under `packages/examples/` and the module's `name` export (manager, lease, RBAC names). */
  readonly name: string;
  /** The CRD its `setup` installs with `mgr.ensureCrd` (`metadata.name`), if any. */
  readonly crd?: string;
}

/** The five example operators of issue 7, copyrator first (it also has the Helm chart). */
export const SHIPPED_EXAMPLES: readonly ShippedExample[] = [
  { name: 'copyrator', crd: 'copyratorrules.copyrator.rxkube.io' },
  { name: 'namespace-watcher' },
  { name: 'widget', crd: 'widgets.example.com' },
  { name: 'echo-server', crd: 'echoservers.example.com' },
  { name: 'deployment-notifier', crd: 'deploymentnotifiers.notify.rxkube.io' },
];

/** A Kubernetes object as the manifests hold it. */
export interface Manifest {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly namespace?: string; readonly [k: string]: unknown };
  readonly [k: string]: unknown;
}

/** An error in a manifest file: which file, which document, what is wrong. */
export class ManifestError extends Error {
  readonly _tag = 'ManifestError' as const;
  override readonly name = 'ManifestError';
  constructor(
    readonly file: string,
    readonly problem: string,
  ) {
    super(`${file}: ${problem}`);
  }
}

/**
 * Parses a multi-document YAML file into objects, refusing YAML errors and documents without
 * `apiVersion`, `kind` or `metadata.name` (empty documents are skipped).
 *
 * ## Example
 * ```ts
 * const objects = parseManifests(readFileSync('deploy/rbac.yaml', 'utf8'), 'deploy/rbac.yaml');
 * ```
 * @throws {ManifestError} naming the file and the document.
 */
export function parseManifests(text: string, file = '<manifest>'): Manifest[] {
  const out: Manifest[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    if (doc.errors.length > 0) {
      throw new ManifestError(file, `document ${i + 1}: ${doc.errors.map((e) => e.message).join('; ')}`);
    }
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) return;
    if (typeof value !== 'object' || Array.isArray(value)) {
      throw new ManifestError(file, `document ${i + 1} is not a mapping`);
    }
    const o = value as Partial<Manifest>;
    const name = o.metadata?.name;
    if (typeof o.apiVersion !== 'string' || typeof o.kind !== 'string' || typeof name !== 'string') {
      throw new ManifestError(
        file,
        `document ${i + 1} lacks apiVersion, kind or metadata.name (got ${JSON.stringify({ apiVersion: o.apiVersion, kind: o.kind, name })})`,
      );
    }
    out.push(o as Manifest);
  });
  return out;
}

const labelsOf = (example: ShippedExample): Record<string, string> => ({
  'app.kubernetes.io/name': example.name,
  'app.kubernetes.io/component': 'operator',
  'app.kubernetes.io/part-of': 'rxkube-examples',
});

/**
 * The operator Namespace.
 *
 * ## Example
 * ```ts
 * namespaceManifest(); // { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'rxkube-system' } }
 * ```
 */
export function namespaceManifest(): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: {
      name: OPERATOR_NAMESPACE,
      labels: {
        'app.kubernetes.io/part-of': 'rxkube-examples',
        // the operators run as non-root with no capabilities: the restricted Pod Security level
        'pod-security.kubernetes.io/enforce': 'restricted',
      },
    },
  };
}

/**
 * The operator's Deployment: two replicas electing a leader on a Lease, probes on 8081, metrics
 * on 8080, the restricted security context, and a grace period longer than the drain deadline.
 *
 * ## Example
 * ```ts
 * deploymentManifest({ name: 'copyrator', crd: 'copyratorrules.copyrator.rxkube.io' }).spec;
 * ```
 */
export function deploymentManifest(example: ShippedExample): Manifest {
  const labels = labelsOf(example);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: example.name, namespace: OPERATOR_NAMESPACE, labels },
    spec: {
      // One leads (reconciles), the other keeps warm caches and takes over within the lease (15 s).
      replicas: 2,
      selector: { matchLabels: { 'app.kubernetes.io/name': example.name } },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: example.name,
          // > the Manager's 30 s shutdown deadline: SIGTERM drains, releases the lease, then exits.
          terminationGracePeriodSeconds: TERMINATION_GRACE_SECONDS,
          securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
          containers: [
            {
              name: 'operator',
              image: `rxkube/${example.name}:${IMAGE_TAG}`,
              imagePullPolicy: 'IfNotPresent',
              // The image's entrypoint is `node …/rxkube.js`; this is `rxkube run <module>`.
              args: ['run', `dist/${example.name}/src/operator.js`],
              env: [
                { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
                { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'RXKUBE_LEADER_ELECT', value: 'true' },
                { name: 'RXKUBE_HEALTH_PORT', value: String(HEALTH_PORT) },
                { name: 'RXKUBE_METRICS_PORT', value: String(METRICS_PORT) },
                { name: 'RXKUBE_LOG_LEVEL', value: 'info' },
              ],
              ports: [
                { name: 'metrics', containerPort: METRICS_PORT, protocol: 'TCP' },
                { name: 'health', containerPort: HEALTH_PORT, protocol: 'TCP' },
              ],
              livenessProbe: {
                httpGet: { path: '/healthz', port: 'health' },
                initialDelaySeconds: 5,
                periodSeconds: 10,
                failureThreshold: 3,
              },
              readinessProbe: {
                httpGet: { path: '/readyz', port: 'health' },
                periodSeconds: 5,
                failureThreshold: 3,
              },
              resources: {
                requests: { cpu: '50m', memory: '96Mi' },
                limits: { cpu: '500m', memory: '256Mi' },
              },
              securityContext: {
                runAsNonRoot: true,
                readOnlyRootFilesystem: true,
                allowPrivilegeEscalation: false,
                capabilities: { drop: ['ALL'] },
                seccompProfile: { type: 'RuntimeDefault' },
              },
              volumeMounts: [{ name: 'tmp', mountPath: '/tmp' }],
            },
          ],
          // The root filesystem is read-only; anything that wants a scratch file gets /tmp.
          volumes: [{ name: 'tmp', emptyDir: { sizeLimit: '16Mi' } }],
        },
      },
    },
  };
}

/**
 * The files of `<example>/deploy/`, in the order the kustomization lists them: the CRD before the
 * Deployment, because the operator may update its CRD but not create it (`rbac.yaml` grants `get`
 * and `patch` on it by name; `create` cannot be limited to a name).
 *
 * ## Example
 * ```ts
 * deployFiles({ name: 'widget', crd: 'widgets.example.com' });
 * // ['namespace.yaml', 'crd.yaml', 'rbac.yaml', 'deployment.yaml']
 * ```
 */
export function deployFiles(example: ShippedExample): string[] {
  return [
    'namespace.yaml',
    ...(example.crd !== undefined ? ['crd.yaml'] : []),
    'rbac.yaml',
    'deployment.yaml',
  ];
}

/**
 * The kustomization of `<example>/deploy/`: `kubectl apply -k packages/examples/<example>/deploy`.
 * The image name is a placeholder to retarget with `kustomize edit set image`.
 *
 * ## Example
 * ```ts
 * kustomizationManifest({ name: 'widget', crd: 'widgets.example.com' }).resources;
 * ```
 */
export function kustomizationManifest(example: ShippedExample): Record<string, unknown> {
  return {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: deployFiles(example).filter((f) => f !== 'kustomization.yaml'),
    images: [{ name: `rxkube/${example.name}`, newTag: IMAGE_TAG }],
  };
}
