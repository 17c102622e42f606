/**
 * The errors library functions raise: an evaluation error the engine reports as a rule's runtime
 * error (`<message> evaluating rule: <rule>` in a CRD), with cel-go's wording.
 *
 * @module
 */
import { EvaluationError } from '@marcbachmann/cel-js';

/** An evaluation error with cel-go's text. */
export function evaluationError(message: string): EvaluationError {
  return new EvaluationError(message);
}
