import { describe, expect, it } from 'vitest';
import { TemplateMessage } from '../../src/mail/template-message.js';
import { TemplateSyntaxError } from '../../src/templating/index.js';

const envelope = { from: 'Shop <shop@example.com>', to: { name: 'Ann', address: 'ann@example.org' } };

describe('TemplateMessage', () => {
  it('renders an HTML body escaped and a subject unescaped', () => {
    const t = new TemplateMessage({ subject: 'Order {{ .Tx.Data.id }} & more', body: '<p>{{ .Tx.Data.note }}</p>', contentType: 'html' });
    const m = t.render({ Tx: { Data: { id: 'A<1>', note: '<b>hi</b>' } } }, {}, envelope);
    expect(m.subject).toBe('Order A<1> & more');
    expect(m.html).toBe('<p>&lt;b&gt;hi&lt;/b&gt;</p>');
    expect(m.text).toBeUndefined();
    expect(m.messageId).toMatch(/^[0-9a-f-]{36}@example\.com$/);
    expect(m.headers).toEqual([]);
  });

  it('converts markdown to HTML and sends plain as text', () => {
    const md = new TemplateMessage({ subject: 's', body: '# Hi {{ .Name }}', contentType: 'markdown' });
    expect(md.render({ Name: 'Ann' }, {}, envelope).html).toBe('<h1>Hi Ann</h1>\n');
    const plain = new TemplateMessage({ subject: 's', body: 'Hi <{{ .Name }}>', contentType: 'plain' });
    const m = plain.render({ Name: 'A&B' }, {}, envelope);
    expect(m.text).toBe('Hi <A&B>');
    expect(m.html).toBeUndefined();
  });

  it('refuses a template that does not parse', () => {
    expect(() => new TemplateMessage({ subject: '{{ .x | }}', body: '', contentType: 'html' })).toThrow(TemplateSyntaxError);
    expect(() => new TemplateMessage({ subject: 's', body: '{{ .x', contentType: 'html' })).toThrow(TemplateSyntaxError);
  });

  it('sends a subject or altbody without both {{ and }} as written, as listmonk (issue 15 item 10)', () => {
    const m = new TemplateMessage({ subject: 'Save {{ big', altbody: 'a }} b {{', body: '<p>x</p>', contentType: 'html' });
    const out = m.render({}, {}, { from: 'a@example.com', to: { name: '', address: 'b@example.com' } });
    expect(out.subject).toBe('Save {{ big');
    expect(out.text).toBe('a }} b {{');
  });
});
