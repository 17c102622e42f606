/**
 * The syntax errors of Go's `encoding/json` (the decoder kube-apiserver reads request bodies with),
 * so a malformed body gets the same message as from a real server:
 * `invalid character 'b' looking for beginning of object key string`, `unexpected end of JSON input`.
 * A byte-level state machine after the states of Go's `scanner.go`; it only finds the first error,
 * parsing is left to `JSON.parse`.
 *
 * @module
 */
import { goQuote } from '../validation/names.js';

type State = (c: number) => void;

const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);

/** Go's `quoteChar`: a byte as a single-quoted Go literal (`'b'`, `'\t'`, `'\x01'`). */
function quoteChar(c: number): string {
  if (c === 0x27) return "'\\''";
  if (c === 0x22) return `'"'`;
  const q = goQuote(String.fromCharCode(c));
  return `'${q.slice(1, -1)}'`;
}

class SyntaxError extends Error {}

/**
 * The first syntax error Go's `json.Unmarshal` reports for `data`, or undefined when it is valid JSON.
 *
 * ## Example
 * ```ts
 * goJsonSyntaxError(Buffer.from('{bad')); // "invalid character 'b' looking for beginning of object key string"
 * goJsonSyntaxError(Buffer.from('[1,2')); // 'unexpected end of JSON input'
 * ```
 */
export function goJsonSyntaxError(data: Uint8Array): string | undefined {
  const stack: ('object-key' | 'object-value' | 'array')[] = [];
  let endTop = false;
  let step: State;

  const fail = (c: number, context: string): never => {
    throw new SyntaxError(`invalid character ${quoteChar(c)} ${context}`);
  };
  const literal = (rest: string, name: string): State => {
    let i = 0;
    const next: State = (c) => {
      const want = rest.charCodeAt(i);
      if (c !== want) fail(c, `in literal ${name} (expecting ${quoteChar(want)})`);
      i++;
      step = i === rest.length ? endValue : next;
    };
    return next;
  };
  const endTopState: State = (c) => {
    if (!SPACE.has(c)) fail(c, 'after top-level value');
  };
  const endValue: State = (c) => {
    const top = stack[stack.length - 1];
    if (top === undefined) {
      endTop = true;
      step = endTopState;
      endTopState(c);
      return;
    }
    if (SPACE.has(c)) return;
    if (top === 'object-key') {
      if (c === 0x3a) {
        stack[stack.length - 1] = 'object-value';
        step = beginValue;
        return;
      }
      fail(c, 'after object key');
    }
    if (top === 'object-value') {
      if (c === 0x2c) {
        stack[stack.length - 1] = 'object-key';
        step = beginString;
        return;
      }
      if (c === 0x7d) {
        stack.pop();
        step = endValue;
        return;
      }
      fail(c, 'after object key:value pair');
    }
    if (c === 0x2c) {
      step = beginValue;
      return;
    }
    if (c === 0x5d) {
      stack.pop();
      step = endValue;
      return;
    }
    fail(c, 'after array element');
  };
  const inString: State = (c) => {
    if (c === 0x22) step = endValue;
    else if (c === 0x5c) step = inStringEsc;
    else if (c < 0x20) fail(c, 'in string literal');
  };
  const inStringEsc: State = (c) => {
    if ([0x62, 0x66, 0x6e, 0x72, 0x74, 0x5c, 0x2f, 0x22].includes(c)) step = inString;
    else if (c === 0x75) step = hexDigits(4);
    else fail(c, 'in string escape code');
  };
  const hexDigits =
    (n: number): State =>
    (c) => {
      if (!isHex(c)) fail(c, 'in \\u hexadecimal character escape');
      step = n === 1 ? inString : hexDigits(n - 1);
    };
  const afterNumber = (c: number): void => {
    step = endValue;
    endValue(c);
  };
  const neg: State = (c) => {
    if (c === 0x30) step = zero;
    else if (c >= 0x31 && c <= 0x39) step = digits;
    else fail(c, 'in numeric literal');
  };
  const digits: State = (c) => {
    if (isDigit(c)) return;
    zero(c);
  };
  const zero: State = (c) => {
    if (c === 0x2e) step = dot;
    else if (c === 0x65 || c === 0x45) step = exponent;
    else afterNumber(c);
  };
  const dot: State = (c) => {
    if (isDigit(c)) step = fraction;
    else fail(c, 'after decimal point in numeric literal');
  };
  const fraction: State = (c) => {
    if (isDigit(c)) return;
    if (c === 0x65 || c === 0x45) step = exponent;
    else afterNumber(c);
  };
  const exponent: State = (c) => {
    if (c === 0x2b || c === 0x2d) step = exponentSign;
    else exponentSign(c);
  };
  const exponentSign: State = (c) => {
    if (isDigit(c)) step = exponentDigits;
    else fail(c, 'in exponent of numeric literal');
  };
  const exponentDigits: State = (c) => {
    if (!isDigit(c)) afterNumber(c);
  };
  const beginString: State = (c) => {
    if (SPACE.has(c)) return;
    if (c === 0x22) step = inString;
    else fail(c, 'looking for beginning of object key string');
  };
  const beginValue: State = (c) => {
    if (SPACE.has(c)) return;
    switch (c) {
      case 0x7b:
        stack.push('object-key');
        step = (d) => {
          if (SPACE.has(d)) return;
          if (d === 0x7d) {
            stack.pop();
            step = endValue;
            return;
          }
          beginString(d);
        };
        return;
      case 0x5b:
        stack.push('array');
        step = (d) => {
          if (SPACE.has(d)) return;
          if (d === 0x5d) {
            stack.pop();
            step = endValue;
            return;
          }
          step = beginValue;
          beginValue(d);
        };
        return;
      case 0x22:
        step = inString;
        return;
      case 0x2d:
        step = neg;
        return;
      case 0x30:
        step = zero;
        return;
      case 0x74:
        step = literal('rue', 'true');
        return;
      case 0x66:
        step = literal('alse', 'false');
        return;
      case 0x6e:
        step = literal('ull', 'null');
        return;
    }
    if (c >= 0x31 && c <= 0x39) {
      step = digits;
      return;
    }
    fail(c, 'looking for beginning of value');
  };

  step = beginValue;
  try {
    for (const c of data) step(c);
    // eof: a space ends a number or reveals an unfinished literal (Go's scanner.eof)
    if (endTop) return undefined;
    step(0x20);
    if (endTop) return undefined;
    return 'unexpected end of JSON input';
  } catch (e) {
    if (e instanceof SyntaxError) return e.message;
    throw e;
  }
}

/** A JSON document parsed, or Go's syntax error for it. */
export type GoJsonResult =
  { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: string };

/**
 * Parses JSON with `JSON.parse` (fast) and only when that fails finds Go's message with
 * {@link goJsonSyntaxError}, so valid bodies never pay for the scanner.
 *
 * ## Example
 * ```ts
 * parseJsonLikeGo(Buffer.from('{"a":1}')); // { ok: true, value: { a: 1 } }
 * parseJsonLikeGo(Buffer.from('[1 2]')); // { ok: false, error: "invalid character '2' after array element" }
 * ```
 */
export function parseJsonLikeGo(data: Uint8Array): GoJsonResult {
  try {
    const text = Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, error: goJsonSyntaxError(data) ?? 'unexpected end of JSON input' };
  }
}

/**
 * Go's `summarizeData` of a request body in decode errors: the text when it starts with `{`, hex
 * otherwise, cut at 30 bytes (`…" ..."`), `<empty>` for nothing.
 */
export function summarizeBody(data: Uint8Array, max = 30): string {
  if (data.length === 0) return '<empty>';
  const cut = data.length > max;
  const head = Buffer.from(data.subarray(0, max));
  const shown = data[0] === 0x7b ? head.toString('utf8') : head.toString('hex');
  return cut ? `${shown} ...` : shown;
}
