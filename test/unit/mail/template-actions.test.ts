/**
 * Finding template actions in a source without parsing it (used to run markdown and HTML-to-text over
 * sources while actions are set aside): where an action ends, following the Go lexer.
 */
import { describe, expect, it } from 'vitest';
import { findActions, protectActions } from '../../../src/mail/template-actions.js';

const cases: Array<[string, string, string[]]> = [
  ['no actions', 'plain <b>text</b>', []],
  ['simple', 'Hi {{ .Subscriber.Name }}!', ['{{ .Subscriber.Name }}']],
  ['several', '{{ if .X }}a{{ else }}b{{ end }}', ['{{ if .X }}', '{{ else }}', '{{ end }}']],
  ['trim markers', 'a {{- .X -}} b', ['{{- .X -}}']],
  ['braces in a string', '{{ "}}" }} tail', ['{{ "}}" }}']],
  ['escaped quote in a string', '{{ "a\\"}}" }}x', ['{{ "a\\"}}" }}']],
  ['braces in a raw string', '{{ `}}` }}', ['{{ `}}` }}']],
  ['braces in a char', "{{ '}' }}{{ .Y }}", ["{{ '}' }}", '{{ .Y }}']],
  ['braces in a comment', '{{/* }} */}} after', ['{{/* }} */}}']],
  ['trimmed comment', '{{- /* x }} y */ -}}z', ['{{- /* x }} y */ -}}']],
  ['unterminated action', 'a {{ .X', ['{{ .X']],
  ['unterminated comment', '{{/* never', ['{{/* never']],
  ['a string across a newline is not scanned past', '{{ "a\n}} b', ['{{ "a\n}}']],
  ['TrackLink with a URL', '<a href="{{ TrackLink "https://x.org/?a=1&b=2" }}">', ['{{ TrackLink "https://x.org/?a=1&b=2" }}']],
];

describe('findActions', () => {
  for (const [what, src, expected] of cases) {
    it(what, () => {
      expect(findActions(src).map((a) => a.text)).toEqual(expected);
      for (const a of findActions(src)) expect(src.slice(a.start, a.end)).toBe(a.text);
    });
  }
});

describe('protectActions', () => {
  const token = (n: number) => `<T${n}>`;
  const pattern = /<T(\d+)>/gu;

  it('replaces actions by tokens, the same action by the same token, and restores them', () => {
    const src = '{{ .A }} and {{ .B }} and {{ .A }}';
    const { text, restore } = protectActions(src, token, pattern);
    expect(text).toBe('<T0> and <T1> and <T0>');
    expect(restore(text)).toBe(src);
    expect(restore(text.toUpperCase())).toBe('{{ .A }} AND {{ .B }} AND {{ .A }}');
  });

  it('leaves a source without actions alone, and unknown tokens as they are', () => {
    const { text, restore } = protectActions('no actions', token, pattern);
    expect(text).toBe('no actions');
    expect(restore('<T7>')).toBe('<T7>');
  });
});
