/**
 * The Widget operator's admission webhooks: a validating one (red widgets come in at most 50; a
 * warning above 80) and a mutating one (the `example.com/size-class` label, `small` below 10,
 * `large` from 10). Registered on the Manager's webhook server by {@link setupWebhooks}; the
 * configurations the API server needs are made by {@link webhookConfigurations}.
 *
 * @module
 */
import type { Manager } from '@rxkube/kube';
import type { WebhookServer, WebhookServerOptions } from '@rxkube/kube/webhook';
import { allowed, denied } from '@rxkube/kube/webhook';
import { type Widget, widgetType } from './widget.js';

/** The size-class label the mutating webhook sets. */
export const SIZE_CLASS = 'example.com/size-class';
/** The webhooks' names in their configurations. */
export const VALIDATING_WEBHOOK = 'validate.widgets.example.com';
export const MUTATING_WEBHOOK = 'mutate.widgets.example.com';

/** Registers the Widget webhooks on the Manager's webhook server. */
export function setupWebhooks(
  mgr: Manager,
  options: Omit<WebhookServerOptions, 'log' | 'registry'>,
): WebhookServer {
  return mgr
    .webhooks(options)
    .validate<Widget>(widgetType, (req) => {
      const spec = req.object?.spec;
      if (spec === undefined) return allowed();
      if (spec.color === 'red' && spec.size > 50)
        return denied(`red widgets come in at most 50, not ${String(spec.size)} (spec.size)`);
      return spec.size > 80
        ? allowed(`spec.size ${String(spec.size)}: more than 80 widgets is deprecated`)
        : allowed();
    })
    .mutate<Widget>(widgetType, (draft) => {
      draft.metadata.labels = {
        ...draft.metadata.labels,
        [SIZE_CLASS]: (draft.spec?.size ?? 0) < 10 ? 'small' : 'large',
      };
    });
}

/** Where the API server reaches the webhook server. */
export type WebhookClientConfig =
  | { readonly url: string; readonly caBundle: string }
  | {
      readonly service: { readonly namespace: string; readonly name: string; readonly port: number };
      readonly caBundle: string;
    };

/**
 * The ValidatingWebhookConfiguration and MutatingWebhookConfiguration of the Widget webhooks,
 * limited to namespaces labelled `namespaceLabels`.
 */
export function webhookConfigurations(
  name: string,
  clientConfig: (path: string) => WebhookClientConfig,
  namespaceLabels: Readonly<Record<string, string>>,
): [Record<string, unknown>, Record<string, unknown>] {
  const rules = [
    {
      operations: ['CREATE', 'UPDATE'],
      apiGroups: ['example.com'],
      apiVersions: ['v1'],
      resources: ['widgets'],
    },
  ];
  const common = {
    rules,
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    failurePolicy: 'Fail',
    timeoutSeconds: 10,
    namespaceSelector: { matchLabels: namespaceLabels },
  };
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name },
      webhooks: [
        {
          name: VALIDATING_WEBHOOK,
          clientConfig: clientConfig('/validate-example-com-v1-widget'),
          ...common,
        },
      ],
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name },
      webhooks: [
        { name: MUTATING_WEBHOOK, clientConfig: clientConfig('/mutate-example-com-v1-widget'), ...common },
      ],
    },
  ];
}
