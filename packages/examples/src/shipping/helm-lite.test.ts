/**
 * helm-lite against Go template semantics the chart relies on: whitespace trimming, truthiness,
 * `with`/`range` rebinding the dot, `include` + `nindent`, `toYaml` as Helm prints it, `fail`, and
 * a clear error for anything outside the subset.
 */
import { describe, expect, it } from 'vitest';
import type { RenderContext } from './helm-lite.js';
import { HelmLite, TemplateError, TemplateFailure, toYaml, truthy } from './helm-lite.js';

const context = (Values: Record<string, unknown>): RenderContext => ({
  Values,
  Release: { Name: 'rel', Namespace: 'ns', Service: 'Helm' },
  Chart: { Name: 'chart', Version: '1.2.3', AppVersion: '4.5.6' },
});
const render = (source: string, values: Record<string, unknown> = {}) =>
  new HelmLite({ t: source }).render('t', context(values));

describe('HelmLite', () => {
  it('trims whitespace on the marked side only', () => {
    expect(render('a:\n  {{- " x" }}\nb')).toBe('a: x\nb');
    expect(render('a {{ "x" -}}\n\n  b')).toBe('a xb');
    expect(render('a {{ "x" }} b')).toBe('a x b');
  });

  it('follows Go truthiness in if/else if/else', () => {
    const t = '{{ if .Values.a }}A{{ else if .Values.b }}B{{ else }}C{{ end }}';
    expect(render(t, { a: 1 })).toBe('A');
    expect(render(t, { a: 0, b: 'x' })).toBe('B');
    expect(render(t, { a: {}, b: [] })).toBe('C');
    expect([false, 0, '', null, undefined, [], {}].map(truthy)).toEqual(Array(7).fill(false));
  });

  it('rebinds the dot in with and range, keeps $ as the root', () => {
    expect(render('{{ with .Values.m }}{{ .k }}/{{ $.Release.Name }}{{ end }}', { m: { k: 'v' } })).toBe(
      'v/rel',
    );
    expect(render('{{ range .Values.l }}[{{ . }}]{{ end }}', { l: ['a', 'b'] })).toBe('[a][b]');
    expect(render('{{ with .Values.none }}x{{ else }}empty{{ end }}')).toBe('empty');
  });

  it('pipes into functions as the last argument, with parentheses and defaults', () => {
    expect(render('{{ .Values.tag | default .Chart.AppVersion }}', { tag: '' })).toBe('4.5.6');
    expect(render('{{ .Values.port | quote }}', { port: 8081 })).toBe('"8081"');
    expect(
      render('{{ if and (gt (int .Values.n) 1) (not .Values.e) }}bad{{ end }}', { n: 2, e: false }),
    ).toBe('bad');
  });

  it('includes a define and indents it; toYaml sorts keys and drops the final newline', () => {
    const r = new HelmLite({
      '_h.tpl': '{{- define "labels" -}}\na: {{ .Chart.Name }}\nb: x\n{{- end }}',
      t: 'labels:\n  {{- include "labels" . | nindent 2 }}\nres:\n  {{- toYaml .Values.r | nindent 2 }}\n',
    });
    expect(r.render('t', context({ r: { z: 1, a: { y: 2 } } }))).toBe(
      'labels:\n  a: chart\n  b: x\nres:\n  a:\n    y: 2\n  z: 1\n',
    );
    expect(toYaml({})).toBe('{}');
  });

  it('fails the render on fail and required', () => {
    expect(() => render('{{ fail "no" }}')).toThrow(new TemplateFailure('no'));
    expect(() => render('{{ required "need x" .Values.x }}')).toThrow(TemplateFailure);
  });

  it('refuses syntax outside the subset instead of guessing', () => {
    expect(() => render('{{ tpl .Values.x . }}')).toThrow(TemplateError);
    expect(() => render('{{ $x := 1 }}')).toThrow(TemplateError);
    expect(() => render('{{ if .Values.a }}open')).toThrow(/missing \{\{end\}\}/);
  });
});
