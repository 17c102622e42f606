// Each message was read from a real kube-apiserver v1.24.0 (POST of the body as a ConfigMap); the
// states follow Go's encoding/json scanner.go.
import { describe, expect, it } from 'vitest';

import { goJsonSyntaxError, summarizeBody } from './go-json.js';

const cases: [string, string | undefined][] = [
  ['{bad', "invalid character 'b' looking for beginning of object key string"],
  ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
  ['[1,2', 'unexpected end of JSON input'],
  ['{"a" 1}', "invalid character '1' after object key"],
  ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
  ['[1 2]', "invalid character '2' after array element"],
  ['tru', "invalid character ' ' in literal true (expecting 'e')"],
  ['nul', "invalid character ' ' in literal null (expecting 'l')"],
  ['{"a":"x\ty"}', "invalid character '\\t' in string literal"],
  ['{"a":"\u0001"}', "invalid character '\\x01' in string literal"],
  ['{"a":1}x', "invalid character 'x' after top-level value"],
  ['{"a":01}', "invalid character '1' after object key:value pair"],
  ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
  ['{"a":1e}', "invalid character '}' in exponent of numeric literal"],
  ['{"a":-}', "invalid character '}' in numeric literal"],
  ['{"a":"\\q"}', "invalid character 'q' in string escape code"],
  ['{"a":"\\u12G4"}', "invalid character 'G' in \\u hexadecimal character escape"],
  ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
  ['{"a":[1,]}', "invalid character ']' looking for beginning of value"],
  ['{"a":\n}', "invalid character '}' looking for beginning of value"],
  [' ', 'unexpected end of JSON input'],
  ['{"a":', 'unexpected end of JSON input'],
  ['"str"', undefined],
  ['{"a":[1,{"b":-1.5e+3}],"c":null,"d":true,"e":"\\u00e9\\n"}', undefined],
  ['[]', undefined],
  ['{}', undefined],
  ['  12  ', undefined],
];

describe('goJsonSyntaxError (encoding/json scanner.go)', () => {
  for (const [body, expected] of cases) {
    it(`${JSON.stringify(body)} → ${expected ?? 'valid'}`, () => {
      expect(goJsonSyntaxError(Buffer.from(body))).toBe(expected);
    });
  }
});

describe('summarizeBody (handlers/rest.go summarizeData)', () => {
  it('shows objects as text, anything else as hex, 30 bytes at most', () => {
    expect(summarizeBody(Buffer.from(''))).toBe('<empty>');
    expect(summarizeBody(Buffer.from('{bad'))).toBe('{bad');
    expect(summarizeBody(Buffer.from('[1,2'))).toBe('5b312c32');
    expect(summarizeBody(Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap"}`))).toBe(
      '{"apiVersion":"v1","kind":"Con ...',
    );
  });
});
