/**
 * Markdown bodies become HTML before templating (reference §16.1), with template actions kept intact:
 * quotes inside actions are not escaped, `*`/`_` inside them are not emphasis, and an action can be a
 * link target.
 */
import { describe, expect, it } from 'vitest';
import { markdownToHtml } from '../../../src/mail/markdown.js';
import { compile } from '../../../src/templating/index.js';

const cases: Array<[string, string, string]> = [
  ['heading and emphasis', '# Hello\n\nSome *text*.', '<h1>Hello</h1>\n<p>Some <em>text</em>.</p>\n'],
  ['action in text', 'Hi {{ .Subscriber.FirstName }}!', '<p>Hi {{ .Subscriber.FirstName }}!</p>\n'],
  ['quotes in an action are not escaped', 'Go {{ TrackLink "https://x.org" }}', '<p>Go {{ TrackLink "https://x.org" }}</p>\n'],
  ['action as a link target', '[Read]({{ TrackLink "https://x.org/?a=1&b=2" }})', '<p><a href="{{ TrackLink "https://x.org/?a=1&b=2" }}">Read</a></p>\n'],
  ['underscores and stars in an action', '{{ .Subscriber.Attribs.first_name }} and {{ mul 2 3 }} *x*', '<p>{{ .Subscriber.Attribs.first_name }} and {{ mul 2 3 }} <em>x</em></p>\n'],
  ['raw HTML passes through', '<div class="box">{{ .X }}</div>\n\ntext', '<div class="box">{{ .X }}</div>\n<p>text</p>\n'],
  ['tables (GitHub style)', '| a | b |\n|---|---|\n| 1 | {{ .N }} |', '<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>{{ .N }}</td>\n</tr>\n</tbody>\n</table>\n'],
  ['strikethrough', '~~old~~', '<p><s>old</s></p>\n'],
  ['text quotes are escaped as HTML', 'say "hi"', '<p>say &quot;hi&quot;</p>\n'],
  ['no linkify', 'see https://x.org', '<p>see https://x.org</p>\n'],
  ['a source containing the token prefix', 'Mrtplx0Z {{ .A }}', '<p>Mrtplx0Z {{ .A }}</p>\n'],
];

describe('markdownToHtml', () => {
  for (const [what, md, html] of cases) {
    it(what, () => expect(markdownToHtml(md)).toBe(html));
  }

  it('gives HTML the template language compiles and renders', () => {
    const html = markdownToHtml('# Hi {{ .Name }}\n\n[Unsubscribe]({{ UnsubscribeURL }}) · {{ "a*b" }}');
    const out = compile([{ name: 'content', source: html }], { mode: 'html' }).execute({ Name: 'Ann <3' }, { unsubscribeUrl: () => 'https://x.org/u/1' });
    expect(out).toBe('<h1>Hi Ann &lt;3</h1>\n<p><a href="https://x.org/u/1">Unsubscribe</a> · a*b</p>\n');
  });
});
