/**
 * `CrdNotEstablishedError`: a CRD was written but the API server did not start serving it.
 *
 * @module
 */

/**
 * A CRD was accepted but did not become usable: its names were refused (`NamesNotAccepted`, e.g.
 * another CRD of the group already uses the plural or kind), or it was not Established and served
 * by discovery within the timeout (`Timeout`).
 *
 * ## Example
 * ```ts
 * ensureCrd(client, crd).catch((e) => {
 *   if (e instanceof CrdNotEstablishedError && e.reason === 'NamesNotAccepted') console.error(e.message);
 * });
 * ```
 */
export class CrdNotEstablishedError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'CrdNotEstablishedError' as const;
  override readonly name = 'CrdNotEstablishedError';
  /** `metadata.name` of the CRD. */
  readonly crdName: string;
  /** Why it is not usable. */
  readonly reason: 'NamesNotAccepted' | 'Timeout';
  /** The server's condition message (`NamesNotAccepted`) or what was still missing (`Timeout`). */
  readonly detail: string;

  /** @param crdName the CRD.  @param reason why.  @param detail the condition message or what was missing. */
  constructor(crdName: string, reason: 'NamesNotAccepted' | 'Timeout', detail: string, timeoutMs?: number) {
    super(
      reason === 'NamesNotAccepted'
        ? `CustomResourceDefinition "${crdName}": the API server did not accept its names (NamesAccepted=False: ${detail}). ` +
            'Pick a plural/kind/shortName no other CRD of the group uses, or delete the conflicting CRD.'
        : `CustomResourceDefinition "${crdName}" was not ready within ${String(timeoutMs ?? 0)} ms: ${detail}. ` +
            'Check its status.conditions (kubectl describe crd) and raise timeoutMs if the API server is slow.',
    );
    this.crdName = crdName;
    this.reason = reason;
    this.detail = detail;
  }
}
