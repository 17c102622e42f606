/**
 * `InvalidCrdError`: a CustomResourceDefinition that cannot be installed, with one cause per field
 * (found locally before any request, or listed by the API server's 422).
 *
 * @module
 */

/**
 * One reason a CRD is invalid: the field path (`spec.versions[0].name`) and why.
 *
 * ## Example
 * ```ts
 * const cause: CrdCause = { field: 'spec.names.plural', message: 'must be lower case', reason: 'FieldValueInvalid' };
 * if (e instanceof InvalidCrdError) for (const c of e.causes) console.error(`${c.field}: ${c.message}`);
 * ```
 */
export interface CrdCause {
  /** Field path as the API server writes it, e.g. `spec.names.plural`. */
  readonly field: string;
  /** Why the field is wrong and, where it helps, what a valid value looks like. */
  readonly message: string;
  /** The server's cause reason (`FieldValueRequired`, `FieldValueInvalid`, …), when known. */
  readonly reason?: string;
}

/**
 * A CRD was refused: by the local checks of {@link ensureCrd} (`source: 'local'`, nothing was sent)
 * or by the API server with 422 Invalid (`source: 'server'`, the `KubeApiError` is the `cause`).
 *
 * ## Example
 * ```ts
 * try {
 *   await ensureCrd(client, './crd.yaml');
 * } catch (e) {
 *   if (e instanceof InvalidCrdError) for (const c of e.causes) console.error(`${c.field}: ${c.message}`);
 * }
 * ```
 */
export class InvalidCrdError extends Error {
  /** Discriminant for tagged-error matching. */
  readonly _tag = 'InvalidCrdError' as const;
  override readonly name = 'InvalidCrdError';
  /** `metadata.name` of the CRD (empty when it has none). */
  readonly crdName: string;
  /** Every problem found, in field order. Never empty. */
  readonly causes: readonly CrdCause[];
  /** Who found the problems. */
  readonly source: 'local' | 'server';

  /**
   * @param crdName the CRD's name.  @param causes what is wrong (at least one).
   * @param source `local` or `server`.  @param cause the server's error, if any.
   */
  constructor(crdName: string, causes: readonly CrdCause[], source: 'local' | 'server', cause?: unknown) {
    const list = causes.map((c) => `  - ${c.field}: ${c.message}`).join('\n');
    const who = source === 'local' ? 'checked before sending' : 'refused by the API server (422 Invalid)';
    super(
      `CustomResourceDefinition ${crdName ? `"${crdName}"` : '(no metadata.name)'} is invalid (${who}); ` +
        `fix ${causes.length === 1 ? 'this field' : `these ${String(causes.length)} fields`}:\n${list}`,
      cause === undefined ? undefined : { cause },
    );
    this.crdName = crdName;
    this.causes = causes;
    this.source = source;
  }
}
