/**
 * The error of a selector that does not parse: where, and the API server's own words for it.
 *
 * @module
 */
import { InvalidArgumentError } from '@rxkube/core';

/**
 * A label or field selector that Kubernetes would refuse with `400 BadRequest`, found before any
 * request: an {@link InvalidArgumentError} that also carries the selector, the 0-based `position`
 * of the offending token (in UTF-16 units of `selector`) and `reason`, the API server's message
 * (`labels.Parse` / `fields.ParseSelector` of apimachinery).
 *
 * ## Example
 * ```ts
 * try {
 *   parseLabelSelector('app in (a,b');
 * } catch (e) {
 *   if (e instanceof InvalidSelectorError) {
 *     console.log(e.position); // 11: the end of the text, where ')' was expected
 *     console.log(e.reason); // unable to parse requirement: found '', expected: ',' or ')'
 *   }
 * }
 * ```
 */
export class InvalidSelectorError extends InvalidArgumentError {
  /** `'label'` or `'field'`. */
  readonly selectorKind: 'label' | 'field';
  /** The selector text (for a `metav1.LabelSelector`, its text form). */
  readonly selector: string;
  /** 0-based offset in `selector` where parsing failed. */
  readonly position: number;
  /** What the API server says about this selector (its 400 message). */
  readonly reason: string;

  /**
   * @param operator the refusing function.  @param argument the option that held the selector.
   * @param selectorKind label or field.  @param selector the text.
   * @param position where it failed.  @param reason the API server's words.
   * @param received the value passed (defaults to `selector`).
   */
  constructor(
    operator: string,
    argument: string,
    selectorKind: 'label' | 'field',
    selector: string,
    position: number,
    reason: string,
    received: unknown = selector,
  ) {
    super(
      operator,
      argument,
      received,
      `is not a valid ${selectorKind} selector: at position ${position} (${pointAt(selector, position)}): ${reason}. ${
        selectorKind === 'label'
          ? 'Write requirements such as key=value, key!=value, key in (a,b), key notin (a,b), key, !key, joined by commas'
          : 'Write terms such as field=value or field!=value, joined by commas (escape , = and \\ in values with \\)'
      }`,
    );
    this.selectorKind = selectorKind;
    this.selector = selector;
    this.position = position;
    this.reason = reason;
  }
}

/** `"app in (a,b" ⟶ 'app in (a,b⟨here⟩'` — the text with the failing offset marked. */
function pointAt(text: string, position: number): string {
  const start = Math.max(0, position - 30);
  const end = Math.min(text.length, position + 30);
  return `${start > 0 ? '…' : ''}${text.slice(start, position)}⟨here⟩${text.slice(position, end)}${end < text.length ? '…' : ''}`;
}
