import { describe, expect, it } from 'vitest';
import { markdownTemplateToHtml } from '../../src/mail/markdown.js';
import { compile } from '../../src/templating/index.js';

const render = (md: string, data: unknown) => compile([{ name: 'm', source: markdownTemplateToHtml(md) }], { mode: 'html' }).execute(data);

describe('markdownTemplateToHtml', () => {
  it('converts markdown and leaves template actions as written', () => {
    expect(markdownTemplateToHtml('# Hi {{ .Name }}\n\n**{{ join ", " .Items }}** and {{ .A | default "*x*" }}')).toBe(
      '<h1>Hi {{ .Name }}</h1>\n<p><strong>{{ join ", " .Items }}</strong> and {{ .A | default "*x*" }}</p>\n',
    );
  });

  it('renders with HTML escaping of the values and actions in links', () => {
    const html = render('[Track order]({{ .Url }}) for _{{ .Who }}_\n\n- {{ range .L }}{{ . }} {{ end }}', { Url: 'https://shop.test/o?id=1&x=2', Who: '<Ann>', L: ['a', 'b'] });
    expect(html).toBe('<p><a href="https://shop.test/o?id=1&amp;x=2">Track order</a> for <em>&lt;Ann&gt;</em></p>\n<ul>\n<li>a b </li>\n</ul>\n');
  });

  it('leaves text that only looks like a token alone', () => {
    expect(markdownTemplateToHtml('mrtpl0x0x {{ .A }}')).toBe('<p>mrtpl0x0x {{ .A }}</p>\n');
  });
});
