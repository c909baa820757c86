/**
 * Contextual escaping in html mode. Expected values follow Go's html/template, except where the
 * README lists a deliberate difference (HTML comments kept, raster data: images allowed).
 */
import { SafeHTML } from '../../../../src/templating/index.js';
import type { Case } from './types.js';

const h = (c: Omit<Case, 'mode'>): Case => ({ ...c, mode: 'html' });

export const textAndAttributes: Case[] = [
  h({ tpl: '<p>{{ .x }}</p>', data: { x: `<script>alert("x&y")</script>'+` }, want: '<p>&lt;script&gt;alert(&#34;x&amp;y&#34;)&lt;/script&gt;&#39;&#43;</p>' }),
  h({ tpl: '<div title="{{ .x }}">', data: { x: `a"b'c<>&` }, want: '<div title="a&#34;b&#39;c&lt;&gt;&amp;">' }),
  h({ tpl: "<div title='{{ .x }}'>", data: { x: `a"b'c` }, want: "<div title='a&#34;b&#39;c'>" }),
  h({ tpl: '<div title={{ .x }}>', data: { x: 'a b=c`' }, want: '<div title=a&#32;b&#61;c&#96;>' }),
  h({ tpl: '<input value={{ .v }}>', data: { v: '' }, want: '<input value=>' }),
  h({ tpl: '<p class="{{ .c }}">', data: { c: 'a b' }, want: '<p class="a b">' }),
  { name: 'text mode does not escape', tpl: '{{ "<b>" }}<a href="{{ "javascript:x" }}">', want: '<b><a href="javascript:x">' },
  h({ name: 'nil and missing print empty', tpl: '[{{ .x }}{{ .m.y }}]', data: { x: null, m: {} }, want: '[]' }),
  h({ tpl: '<p>{{ 5 }} {{ 1.5 }} {{ true }}</p>', want: '<p>5 1.5 true</p>' }),
  h({ tpl: '<p>{{ .l }}</p>', data: { l: ['<a>', 'b'] }, want: '<p>[&lt;a&gt; b]</p>' }),
  h({ name: 'safe HTML in text is raw', tpl: '<div>{{ .s }}</div>', data: { s: new SafeHTML('<b>hi</b>') }, want: '<div><b>hi</b></div>' }),
  h({ name: 'safe HTML in an attribute loses its tags', tpl: '<div title="{{ Safe "<b>hi</b> &amp; more" }}">', want: '<div title="hi &amp; more">' }),
  h({ tpl: '<input {{ .a }}>', data: { a: 'checked' }, want: '<input checked>' }),
  h({ tpl: '<a href="x" {{ .a }}>', data: { a: 'DISABLED' }, want: '<a href="x" disabled>' }),
  h({ tpl: '<input {{ .a }}>', data: { a: 'onclick' }, want: '<input ZgotmplZ>' }),
  h({ tpl: '<input {{ .a }}>', data: { a: 'href' }, want: '<input ZgotmplZ>' }),
  h({ tpl: '<input {{ .a }}>', data: { a: 'x y' }, want: '<input ZgotmplZ>' }),
  h({ tpl: '<input {{ .a }}="{{ .v }}">', data: { a: 'title', v: '"' }, want: '<input title="&#34;">' }),
  h({ tpl: '<TITLE>{{ .t }}</TITLE>', data: { t: '<b>&' }, want: '<TITLE>&lt;b&gt;&amp;</TITLE>' }),
  h({ tpl: '<title>{{ Safe "<b>a &amp; b</b>" }}</title>', want: '<title>&lt;b&gt;a &amp; b&lt;/b&gt;</title>' }),
  h({ tpl: '<textarea>{{ .t }}</textarea>', data: { t: '</textarea><script>' }, want: '<textarea>&lt;/textarea&gt;&lt;script&gt;</textarea>' }),
  h({ name: 'HTML comments are kept and values inside escaped', tpl: '<!-- {{ .x }} -->', data: { x: '--> <script>' }, want: '<!-- --&gt; &lt;script&gt; -->' }),
  h({ name: 'MSO conditional comments survive', tpl: '<!--[if mso]><table width="{{ .w }}"><![endif]-->', data: { w: 600 }, want: '<!--[if mso]><table width="600"><![endif]-->' }),
  h({ tpl: '<!DOCTYPE html><html><body>{{ .x }}</body></html>', data: { x: '<' }, want: '<!DOCTYPE html><html><body>&lt;</body></html>' }),
  h({ name: 'entity in attribute value does not confuse the tracker', tpl: '<a title="&quot;{{ .x }}&quot;">', data: { x: '<' }, want: '<a title="&quot;&lt;&quot;">' }),
];

export const urls: Case[] = [
  ...['javascript:alert(1)', 'JAVASCRIPT:alert(1)', ' javascript:x', 'vbscript:x', 'data:text/html,<script>', 'data:image/svg+xml;base64,PHN2Zz4='].map((u): Case =>
    h({ name: `unsafe URL ${u}`, tpl: '<a href="{{ .u }}">', data: { u }, want: '<a href="#ZgotmplZ">' })),
  h({ tpl: '<a href="{{ .u }}">', data: { u: 'https://x.com/a b?q=1&r=<2>' }, want: '<a href="https://x.com/a%20b?q=1&amp;r=%3c2%3e">' }),
  h({ tpl: '<a href="{{ .u }}">', data: { u: '/relative/path' }, want: '<a href="/relative/path">' }),
  h({ tpl: '<a href="{{ .u }}">', data: { u: 'mailto:a@b.c?subject=Hi there' }, want: '<a href="mailto:a@b.c?subject=Hi%20there">' }),
  h({ tpl: '<a href="{{ .u }}">', data: { u: "https://x.com/it's" }, want: '<a href="https://x.com/it%27s">' }),
  h({ tpl: '<a href="{{ .u }}">', data: { u: 'https://x.com/é%20ok%zz' }, want: '<a href="https://x.com/%c3%a9%20ok%25zz">' }),
  h({ name: 'raster data image allowed', tpl: '<img src="{{ .u }}">', data: { u: 'data:image/png;base64,iVBORw0KGgo=' }, want: '<img src="data:image/png;base64,iVBORw0KGgo=">' }),
  h({ tpl: '<img src="{{ .u }}">', data: { u: 'javascript:x' }, want: '<img src="#ZgotmplZ">' }),
  h({ tpl: '<a href="https://x.com/?q={{ .q }}">', data: { q: 'a b&c/d' }, want: '<a href="https://x.com/?q=a%20b%26c%2fd">' }),
  h({ tpl: '<a href="#{{ .f }}">', data: { f: 'sec 1' }, want: '<a href="#sec%201">' }),
  h({ tpl: '<a href="/path/{{ .p }}">', data: { p: 'a b/c?d' }, want: '<a href="/path/a%20b/c?d">' }),
  h({ tpl: '<a href="{{ .base }}/{{ .path }}">', data: { base: 'https://x.com', path: 'a b' }, want: '<a href="https://x.com/a%20b">' }),
  h({ tpl: '<a href={{ .u }}>', data: { u: 'https://x.com/a b' }, want: '<a href=https://x.com/a%20b>' }),
  h({ tpl: '<form action="{{ .u }}"><button formaction="{{ .u }}">', data: { u: 'javascript:x' }, want: '<form action="#ZgotmplZ"><button formaction="#ZgotmplZ">' }),
  h({ tpl: '<td background="{{ .u }}"><video poster="{{ .u }}"><q cite="{{ .u }}">', data: { u: 'javascript:x' }, want: '<td background="#ZgotmplZ"><video poster="#ZgotmplZ"><q cite="#ZgotmplZ">' }),
  h({ tpl: '<div data-url="{{ .u }}" data-src="{{ .u }}">', data: { u: 'javascript:x' }, want: '<div data-url="#ZgotmplZ" data-src="#ZgotmplZ">' }),
  h({ tpl: '<img srcset="{{ .s }}">', data: { s: 'a.png 1x, javascript:x 2x' }, want: '<img srcset="a.png 1x,#ZgotmplZ">' }),
  h({ tpl: '<a href="{{ Safe "javascript:x" }}">', want: '<a href="#ZgotmplZ">' }),
  h({ tpl: '<a href="/q?x={{ .x | urlquery }}">', data: { x: 'a b' }, want: '<a href="/q?x=a&#43;b">' }),
  h({ tpl: '<a href="/q?x={{ urlquery .x }}">', data: { x: 'a&b' }, want: '<a href="/q?x=a%26b">' }),
];

export const scriptsAndStyles: Case[] = [
  h({ tpl: '<script>var x = {{ .x }};</script>', data: { x: '</script><b>' }, want: '<script>var x = "\\u003c/script\\u003e\\u003cb\\u003e";</script>' }),
  h({ tpl: '<script>var n = {{ .n }};</script>', data: { n: 42 }, want: '<script>var n =  42 ;</script>' }),
  h({ tpl: '<script>var o = {{ .o }};</script>', data: { o: { b: [1, true], a: null } }, want: '<script>var o = {"a":null,"b":[1,true]};</script>' }),
  h({ tpl: '<script>var s = "{{ .x }}";</script>', data: { x: 'a"b</script>' }, want: '<script>var s = "a\\u0022b\\u003c\\/script\\u003e";</script>' }),
  h({ tpl: "<script>var s = '{{ .x }}';</script>", data: { x: "it's\n" }, want: "<script>var s = 'it\\u0027s\\n';</script>" }),
  h({ tpl: '<script>var t = `{{ .x }}`;</script>', data: { x: '${a}`' }, want: '<script>var t = `\\u0024\\u007ba\\u007d\\u0060`;</script>' }),
  h({ tpl: '<script>var r = /{{ .x }}/;</script>', data: { x: 'a.b*' }, want: '<script>var r = /a\\.b\\*/;</script>' }),
  h({ tpl: '<script>var r = /{{ .x }}/;</script>', data: { x: '' }, want: '<script>var r = /(?:)/;</script>' }),
  h({ tpl: '<script>var a = b / {{ .x }};</script>', data: { x: 2 }, want: '<script>var a = b /  2 ;</script>' }),
  h({ tpl: '<script>// {{ .x }}\nvar y = 1;</script>', data: { x: 'dropped' }, want: '<script>\nvar y = 1;</script>' }),
  h({ tpl: '<script>/* {{ .x }} */ {{ .y }}</script>', data: { x: 'gone', y: 1 }, want: '<script>    1 </script>' }),
  h({ tpl: '<SCRIPT>var x = {{ .x }};</SCRIPT>', data: { x: 'a' }, want: '<SCRIPT>var x = "a";</SCRIPT>' }),
  h({ tpl: '<script type="text/template">{{ .x }}</script>', data: { x: '<b>' }, want: '<script type="text/template">&lt;b&gt;</script>' }),
  h({ tpl: '<script type="application/ld+json">{{ .x }}</script>', data: { x: { a: '<' } }, want: '<script type="application/ld+json">{"a":"\\u003c"}</script>' }),
  h({ tpl: '<button onclick="f({{ .x }})">', data: { x: 'a"b' }, want: '<button onclick="f(&#34;a\\&#34;b&#34;)">' }),
  h({ tpl: '<button onclick="f({{ .x }})">', data: { x: 42 }, want: '<button onclick="f( 42 )">' }),
  h({ tpl: '<button onclick="alert(&quot;{{ .x }}&quot;)">', data: { x: "a'b" }, want: '<button onclick="alert(&quot;a\\u0027b&quot;)">' }),
  h({ name: '</script> inside a JS string does not end the script (Go 1.21+)', tpl: '<script>var s = "x</script><p>{{ .x }}</p>', data: { x: '<' }, want: '<script>var s = "x\\x3C/script><p>\\u003c</p>' }),
  h({ tpl: '<script>var s = "x";</script><p>{{ .x }}</p>', data: { x: '<' }, want: '<script>var s = "x";</script><p>&lt;</p>' }),
  h({ name: 'a < that starts no tag becomes &lt;', tpl: '<p>a < b {{ .x }}</p><{{ .x }}', data: { x: 'c' }, want: '<p>a &lt; b c</p>&lt;c' }),
  h({ name: 'CSS comments are removed', tpl: '<style>/* {{ .x }} */ p {} // x\n</style>', data: { x: 'c' }, want: '<style>   p {} \n</style>' }),
  h({ tpl: '<style>p { color: {{ .c }}; }</style>', data: { c: 'red' }, want: '<style>p { color: red; }</style>' }),
  h({ tpl: '<style>p { color: {{ .c }}; }</style>', data: { c: 'expression(alert(1))' }, want: '<style>p { color: ZgotmplZ; }</style>' }),
  h({ tpl: '<style>p { color: {{ .c }}; }</style>', data: { c: 'red;background:url(x)' }, want: '<style>p { color: ZgotmplZ; }</style>' }),
  h({ tpl: '<p style="color: {{ .c }}">', data: { c: '#fff' }, want: '<p style="color: #fff">' }),
  h({ tpl: '<p style="width: {{ .w }}px">', data: { w: 600 }, want: '<p style="width: 600px">' }),
  h({ tpl: '<style>p { font-family: "{{ .f }}"; }</style>', data: { f: 'a"b' }, want: '<style>p { font-family: "a\\22 b"; }</style>' }),
  h({ tpl: '<div style="background: url({{ .u }})">', data: { u: 'javascript:x' }, want: '<div style="background: url(#ZgotmplZ)">' }),
  h({ tpl: "<div style=\"background: url('{{ .u }}')\">", data: { u: 'a b.png' }, want: "<div style=\"background: url('a%20b.png')\">" }),
];

export const predefinedEscapers: Case[] = [
  h({ name: 'html at the end is not applied twice', tpl: '<p>{{ .x | html }}</p>', data: { x: '<a>&' }, want: '<p>&lt;a&gt;&amp;</p>' }),
  h({ tpl: '<p>{{ html .x }}</p>', data: { x: '<a>' }, want: '<p>&lt;a&gt;</p>' }),
  h({ tpl: '<p title="{{ .x | html }}">', data: { x: '"' }, want: '<p title="&#34;">' }),
  h({ tpl: '{{ .x | html | upper }}', data: { x: 'a' }, err: { type: 'syntax', msg: 'predefined escaper "html" disallowed in template' } }),
  h({ tpl: '<a title={{ .x | html }}>', data: { x: 'a' }, err: { type: 'syntax', msg: 'predefined escaper "html" disallowed in template' } }),
  h({ name: 'html inside a JS string still gets JS escaping', tpl: '<script>var s = "{{ .x | html }}";</script>', data: { x: '<' }, want: '<script>var s = "\\u0026lt;";</script>' }),
];

export const contextErrors: Case[] = [
  h({ tpl: '<a {{ if .x }}href="{{ else }}title="{{ end }}x">', err: { type: 'syntax', msg: '{{if}} branches end in different contexts', line: 1, column: 7 } }),
  h({ tpl: '<a href="{{ if .x }}/a?{{ end }}{{ .y }}">', err: { type: 'syntax', msg: 'appears in an ambiguous context within a URL' } }),
  h({ tpl: '<p>ok</p>\n<a "x">{{ .y }}', err: { type: 'syntax', msg: '"\\"" in attribute name', line: 2, column: 4 } }),
  h({ tpl: '<a title=x"y>', err: { type: 'syntax', msg: 'in unquoted attr' } }),
  h({ tpl: '{{ range .l }}<a href="{{ . }}{{ end }}', err: { type: 'syntax', msg: '{{range}} branches end in different contexts' } }),
  h({ tpl: '{{ range .l }}{{ . }}<a title="{{ else }}<a title="{{ end }}', err: { type: 'syntax', msg: 'on range loop re-entry: {{range}} branches end in different contexts' } }),
  h({ tpl: '<script>var r = a {{ if .x }}/{{ end }}/ b;</script>', err: { type: 'syntax', msg: "'/' could start a division or regexp" } }),
  h({ name: 'branches that end alike are fine', tpl: '<a href="{{ if .x }}/a{{ else }}/b{{ end }}">', data: { x: true }, want: '<a href="/a">' }),
  h({ name: 'break context joins the loop end', tpl: '{{ range .l }}<b>{{ . }}</b>{{ if eq . 2 }}{{ break }}{{ end }}{{ end }}', data: { l: [1, 2, 3] }, want: '<b>1</b><b>2</b>' }),
];

export const templateContexts: Case[] = [
  h({ name: 'one template escaped per calling context', tpl: '{{ define "v" }}{{ . }}{{ end }}<p>{{ template "v" .x }}</p><a title="{{ template "v" .x }}" href="{{ template "v" .u }}">', data: { x: '"<q>"', u: 'javascript:x' }, want: '<p>&#34;&lt;q&gt;&#34;</p><a title="&#34;&lt;q&gt;&#34;" href="#ZgotmplZ">' }),
  h({ name: 'a template can change the context', tpl: '{{ define "open" }}<a href="{{ end }}{{ template "open" }}{{ .u }}">x</a>', data: { u: 'javascript:x' }, want: '<a href="#ZgotmplZ">x</a>' }),
  h({ name: 'recursive template in text context', tpl: '{{ define "r" }}{{ if . }}<i>{{ index . 0 }}</i>{{ template "r" (rest .) }}{{ end }}{{ end }}{{ template "r" .l }}', data: { l: ['<', '>'] }, want: '<i>&lt;</i><i>&gt;</i>' }),
  h({ name: 'base and content compose with escaping', tpl: [{ name: 'base', source: '<html><title>{{ .Campaign.Subject }}</title><body>{{ template "content" . }}</body></html>' }, { name: 'content', source: '<p>Hi {{ .Subscriber.Name }}</p>' }], data: { Campaign: { Subject: 'A & B' }, Subscriber: { Name: '<Ann>' } }, want: '<html><title>A &amp; B</title><body><p>Hi &lt;Ann&gt;</p></body></html>' }),
];
