/** The module's API beyond single renders: helpers for callers, funcs, reuse, error objects. */
import { describe, expect, it } from 'vitest';
import {
  compile, firstNameOf, lastNameOf, SafeHTML, subscriberView, TemplateExecError, TemplateSyntaxError,
} from '../../../src/templating/index.js';

describe('trackedUrls', () => {
  it('lists TrackLink literals from every source, shorthands included, unescaped and unique', () => {
    const t = compile([
      { name: 'base', source: '{{ template "content" . }}<a href="{{ TrackLink "https://a.com/x" }}">' },
      { name: 'content', source: '<a href="https://b.com/?p=1&amp;q=2@TrackLink">b</a>{{ if .x }}{{ TrackLink "https://a.com/x" . }}{{ end }}{{ "https://c.com" | TrackLink }}{{ define "f" }}{{ (TrackLink "https://d.com") }}{{ end }}' },
    ], { mode: 'html' });
    expect(t.trackedUrls()).toEqual(['https://a.com/x', 'https://b.com/?p=1&q=2', 'https://c.com', 'https://d.com']);
  });

  it('ignores TrackLink calls whose URL is not a literal', () => {
    expect(compile([{ name: 'c', source: '{{ TrackLink .url }}' }], { mode: 'text' }).trackedUrls()).toEqual([]);
  });
});

describe('countTemplateCalls', () => {
  it('counts {{ template "name" . }} anywhere, nested too', () => {
    const src = '{{ template "content" . }}{{ if .x }}{{ template "content" . }}{{ end }}{{ template "content" .Other }}';
    const t = compile([{ name: 'base', source: src }, { name: 'content', source: 'c' }], { mode: 'html' });
    expect(t.countTemplateCalls('content')).toBe(2);
    expect(t.countTemplateCalls('footer')).toBe(0);
  });

  it('a template body can be validated alone, without its content', () => {
    const t = compile([{ name: 'base', source: '<p>{{ template "content" . }}</p>' }], { mode: 'html' });
    expect(t.countTemplateCalls('content')).toBe(1);
    expect(() => t.execute({})).toThrow(TemplateExecError);
  });
});

describe('compile options', () => {
  it('merges extra functions over the built-ins', () => {
    const t = compile([{ name: 'c', source: '{{ shout "hi" }} {{ upper "x" }} {{ "a" | wrapIt "[" "]" }}' }], {
      mode: 'text',
      funcs: {
        shout: (_ctx, s) => `${String(s)}!`,
        upper: () => 'overridden',
        wrapIt: (_ctx, l, r, s) => `${String(l)}${String(s)}${String(r)}`,
      },
    });
    expect(t.execute({})).toBe('hi! overridden [a]');
  });

  it('extra functions receive the root and env', () => {
    const t = compile([{ name: 'c', source: '{{ with .a }}{{ who }}{{ end }}' }], {
      mode: 'text',
      funcs: { who: (ctx) => `${(ctx.root as { name: string }).name}@${ctx.env.rootUrl ?? ''}` },
    });
    expect(t.execute({ a: 1, name: 'root' }, { rootUrl: 'https://r' })).toBe('root@https://r');
  });

  it('a user function that overrides html is not treated as an escaper', () => {
    const t = compile([{ name: 'c', source: '<p>{{ .x | html }}</p>' }], { mode: 'html', funcs: { html: (_c, s) => String(s) } });
    expect(t.execute({ x: '<b>' })).toBe('<p>&lt;b&gt;</p>');
  });

  it('requires at least one source', () => {
    expect(() => compile([], { mode: 'html' })).toThrow(TypeError);
  });
});

describe('execute', () => {
  const t = compile([{ name: 'c', source: 'Hi {{ .name }}{{ range .l }},{{ . }}{{ end }}' }], { mode: 'html' });

  it('is reusable with different data', () => {
    expect(t.execute({ name: 'A', l: [1] })).toBe('Hi A,1');
    expect(t.execute({ name: 'B', l: [] })).toBe('Hi B');
  });

  it('uses the real clock when the env has none', () => {
    const year = String(new Date().getUTCFullYear());
    expect(compile([{ name: 'c', source: '{{ Date "2006" }}' }], { mode: 'text' }).execute({})).toBe(year);
  });

  it('prints cyclic data without hanging', () => {
    const o: Record<string, unknown> = { a: 1 };
    o.self = o;
    const out = compile([{ name: 'c', source: '{{ . }}' }], { mode: 'text' }).execute(o);
    expect(out.startsWith('map[a:1 self:map[a:1 self:')).toBe(true);
    expect(out).toContain('...');
  });

  it('does not mutate caller data except through set', () => {
    const data = { m: { k: 1 } };
    compile([{ name: 'c', source: '{{ .m.k }}{{ index .m "k" }}' }], { mode: 'text' }).execute(data);
    expect(data).toEqual({ m: { k: 1 } });
  });
});

describe('errors', () => {
  it('syntax errors carry template, line and column', () => {
    let e: unknown;
    try {
      compile([{ name: 'base', source: 'ok' }, { name: 'content', source: 'a\n  {{ nope }}' }], { mode: 'html' });
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(TemplateSyntaxError);
    expect(e).toMatchObject({ template: 'content', line: 2, column: 6, name: 'TemplateSyntaxError' });
    expect((e as Error).message).toBe('template: content:2:6: function "nope" not defined');
  });

  it('exec errors carry template, line and column', () => {
    const t = compile([{ name: 'content', source: 'x\n{{ index .l 3 }}' }], { mode: 'text' });
    let e: unknown;
    try {
      t.execute({ l: [] });
    } catch (err) {
      e = err;
    }
    expect(e).toBeInstanceOf(TemplateExecError);
    expect(e).toMatchObject({ template: 'content', line: 2, column: 4, name: 'TemplateExecError' });
  });
});

describe('subscriberView', () => {
  const row = {
    id: 3, uuid: 'u', email: 'e@x.io', name: 'Jo Ann van Dyke', status: 'enabled', attribs: { city: 'Pune' },
    created_at: '2024-01-02T03:04:05Z', updated_at: new Date(Date.UTC(2024, 1, 1)),
  };

  it("applies listmonk's first/last name rule", () => {
    expect(firstNameOf('Jo Ann van Dyke')).toBe('Ann');
    expect(lastNameOf('Jo Ann van Dyke')).toBe('Dyke');
    expect(firstNameOf('Al Bo')).toBe('Al Bo');
    expect(lastNameOf('Al Bo')).toBe('Al Bo');
    expect(firstNameOf('')).toBe('');
  });

  it('exposes listmonk field names to templates', () => {
    const t = compile([{ name: 'c', source: '{{ .Subscriber.FirstName }}|{{ .Subscriber.LastName }}|{{ .Subscriber.Attribs.city }}|{{ .Subscriber.CreatedAt.Format "2006-01-02" }}|{{ .Subscriber.UpdatedAt }}' }], { mode: 'text' });
    expect(t.execute({ Subscriber: subscriberView(row) })).toBe('Ann|Dyke|Pune|2024-01-02|2024-02-01 00:00:00 +0000 UTC');
  });

  it('defaults missing attribs to an empty map', () => {
    const v = subscriberView({ ...row, attribs: null });
    expect(v.Attribs).toEqual({});
  });
});

describe('SafeHTML', () => {
  it('prints its value in text mode too', () => {
    expect(compile([{ name: 'c', source: '{{ . }}' }], { mode: 'text' }).execute(new SafeHTML('<b>'))).toBe('<b>');
    expect(String(new SafeHTML('x'))).toBe('x');
  });
});
