/**
 * Syntax and control structures: trimming, comments, literals, variables, pipelines, fields,
 * if/with/range, define/template/block. Expected values follow Go's text/template.
 */
import { subscriberView } from '../../../../src/templating/index.js';
import type { Case } from './types.js';

class Greeter {
  constructor(readonly Name: string) {}
  Greet(who: string): string {
    return `Hi ${who}, I am ${this.Name}`;
  }
}

const sub = subscriberView({ id: 7, uuid: 'sub-uuid', email: 'jo@example.com', name: 'Jo Ann Smith', status: 'enabled', attribs: { city: 'Bengaluru' } });

export const trimAndComments: Case[] = [
  { tpl: 'hello', want: 'hello' },
  { tpl: '', want: '' },
  { tpl: 'a {{- "b" -}} c', want: 'abc' },
  { tpl: 'a  \n\t{{- 3 }}', want: 'a3' },
  { tpl: '{{ 3 -}} \n\t b', want: '3b' },
  { tpl: '{{-3}}', want: '-3' },
  { tpl: '{{ 3 }}-{{ 4 }}', want: '3-4' },
  { tpl: 'a {{/* comment */}} b', want: 'a  b' },
  { tpl: 'a {{- /* comment */ -}} b', want: 'ab' },
  { tpl: '{{/* multi\nline */}}ok', want: 'ok' },
  { tpl: 'x\n{{- "y" }}\n', want: 'xy\n' },
  { tpl: '<ul>\n  {{- range .l }}\n  <li>{{ . }}</li>\n  {{- end }}\n</ul>', data: { l: [1, 2] }, want: '<ul>\n  <li>1</li>\n  <li>2</li>\n</ul>' },
  { tpl: '{{ "}}" }}', want: '}}' },
  { tpl: 'a {{"{{"}} b', want: 'a {{ b' },
];

export const literals: Case[] = [
  { tpl: '{{ "a\\tb" }}', want: 'a\tb' },
  { tpl: '{{ "\\u00e9\\x41\\101" }}', want: 'éAA' },
  { tpl: '{{ "\\xc3\\xa9" }}', want: 'é' },
  { tpl: '{{ "say \\"hi\\"" }}', want: 'say "hi"' },
  { tpl: '{{ `raw\\n` }}', want: 'raw\\n' },
  { tpl: '{{ `multi\nline` }}', want: 'multi\nline' },
  { tpl: "{{ 'a' }}", want: '97' },
  { tpl: "{{ '\\n' }}", want: '10' },
  { tpl: "{{ '\\'' }}", want: '39' },
  { tpl: '{{ 42 }}', want: '42' },
  { tpl: '{{ -7 }}', want: '-7' },
  { tpl: '{{ +7 }}', want: '7' },
  { tpl: '{{ 0x1F }}', want: '31' },
  { tpl: '{{ 0o17 }} {{ 017 }} {{ 0b101 }}', want: '15 15 5' },
  { tpl: '{{ 1_000_000 }}', want: '1000000' },
  { tpl: '{{ 1.5 }} {{ .5 }} {{ 2.50 }}', want: '1.5 0.5 2.5' },
  { tpl: '{{ 1e3 }}', want: '1000' },
  { tpl: '{{ 1e-7 }}', want: '1e-07' },
  { tpl: '{{ 0.000123 }}', want: '0.000123' },
  { tpl: '{{ 0x1p-2 }}', want: '0.25' },
  { tpl: '{{ true }} {{ false }}', want: 'true false' },
  { tpl: '{{ print nil }}', want: '<nil>' },
  { name: 'nil alone is not a command', tpl: '{{ nil }}', err: { type: 'exec', msg: 'nil is not a command' } },
  { tpl: '{{ 1x }}', err: { type: 'syntax', msg: 'bad number syntax: "1x"' } },
  { tpl: '{{ 3i }}', err: { type: 'syntax', msg: 'complex numbers are not supported' } },
  { tpl: '{{ "abc }}', err: { type: 'syntax', msg: 'unterminated quoted string' } },
  { tpl: '{{ `abc }}', err: { type: 'syntax', msg: 'unterminated raw quoted string' } },
  { tpl: "{{ 'ab' }}", err: { type: 'syntax', msg: 'malformed character constant' } },
  { tpl: '{{ "\\q" }}', err: { type: 'syntax', msg: 'invalid syntax' } },
];

export const variables: Case[] = [
  { tpl: '{{ $x := 1 }}{{ $x }}', want: '1' },
  { tpl: '{{ $x := 1 }}{{ $x = 2 }}{{ $x }}', want: '2' },
  { tpl: '{{ $x := "a" }}{{ if true }}{{ $x = "b" }}{{ end }}{{ $x }}', want: 'b' },
  { tpl: '{{ $x := "a" }}{{ if true }}{{ $x := "b" }}{{ $x }}{{ end }}{{ $x }}', want: 'ba' },
  { tpl: '{{ $x := "a" }}{{ range .l }}{{ $x = . }}{{ end }}{{ $x }}', data: { l: ['p', 'q'] }, want: 'q' },
  { tpl: '{{ $ }}', data: 'root', want: 'root' },
  { tpl: '{{ with .a }}{{ $.b }}{{ end }}', data: { a: 1, b: 2 }, want: '2' },
  { tpl: '{{ if $x := .a }}{{ $x }}{{ end }}', data: { a: 5 }, want: '5' },
  { tpl: '{{ $m := dict "k" "v" }}{{ $m.k }}', want: 'v' },
  { tpl: '{{ $x := 1 }}{{ $y := $x }}{{ $y }}', want: '1' },
  { name: 'declaration prints nothing', tpl: 'a{{ $x := "hidden" }}b', want: 'ab' },
  { tpl: '{{ $x }}', err: { type: 'syntax', msg: 'undefined variable "$x"', line: 1, column: 4 } },
  { tpl: '{{ $x = 1 }}', err: { type: 'syntax', msg: 'undefined variable "$x"' } },
  { name: 'variables end with their control structure', tpl: '{{ if true }}{{ $y := 1 }}{{ end }}{{ $y }}', err: { type: 'syntax', msg: 'undefined variable "$y"' } },
  { tpl: '{{ $x := 1 }}{{ $x.foo }}', err: { type: 'exec', msg: "can't evaluate field foo in type int" } },
  { tpl: '{{ $a, $b := 1 }}', err: { type: 'syntax', msg: 'too many declarations in command' } },
];

export const pipelines: Case[] = [
  { tpl: '{{ "abc" | upper }}', want: 'ABC' },
  { tpl: '{{ "abc" | printf "%s-%s" "x" }}', want: 'x-abc' },
  { tpl: '{{ .a | printf "%d" }}', data: { a: 3 }, want: '3' },
  { tpl: '{{ "x" | len }}', want: '1' },
  { tpl: '{{ (printf "%s" "a") }}', want: 'a' },
  { tpl: '{{ (len "abc") | printf "%d!" }}', want: '3!' },
  { tpl: '{{ printf "%d" (len (list 1 2)) }}', want: '2' },
  { tpl: '{{ "a" | upper | printf "<%s>" | lower }}', want: '<a>' },
  { tpl: '{{ 1 | 2 }}', err: { type: 'syntax', msg: 'non executable command in pipeline stage 2' } },
  { tpl: '{{ .x | }}', err: { type: 'syntax', msg: 'missing command after "|"' } },
  { tpl: '{{ "a" "b" }}', err: { type: 'exec', msg: `can't give argument to non-function "a"` } },
  { tpl: '{{ . | . }}', err: { type: 'syntax', msg: 'non executable command in pipeline stage 2' } },
  { tpl: '{{ (1 }}', err: { type: 'syntax', msg: 'unclosed left paren' } },
  { tpl: '{{ 1) }}', err: { type: 'syntax', msg: 'unexpected right paren' } },
];

export const fields: Case[] = [
  { tpl: '{{ .a.b.c }}', data: { a: { b: { c: 'deep' } } }, want: 'deep' },
  { name: 'missing map key prints empty', tpl: '[{{ .a.missing }}]', data: { a: {} }, want: '[]' },
  { name: 'field of missing value prints empty', tpl: '[{{ .a.missing.deeper }}]', data: { a: {} }, want: '[]' },
  { name: 'nil data', tpl: '[{{ .a }}]', data: null, want: '[]' },
  { tpl: '{{ . }}', data: 'x', want: 'x' },
  { tpl: '{{ .Method }}', data: { Method: () => 'm' }, want: 'm' },
  { tpl: '{{ .g.Greet "Bob" }}', data: { g: new Greeter('Ann') }, want: 'Hi Bob, I am Ann' },
  { tpl: '{{ "Bob" | .g.Greet }}', data: { g: new Greeter('Ann') }, want: 'Hi Bob, I am Ann' },
  { tpl: '{{ .g.Name }}', data: { g: new Greeter('Ann') }, want: 'Ann' },
  { name: 'unknown field of a struct errors', tpl: '{{ .g.Nmae }}', data: { g: new Greeter('Ann') }, err: { type: 'exec', msg: "can't evaluate field Nmae in type Greeter" } },
  { tpl: '{{ .s.x }}', data: { s: 'str' }, err: { type: 'exec', msg: "can't evaluate field x in type string" } },
  { tpl: '{{ .l.x }}', data: { l: [1] }, err: { type: 'exec', msg: "can't evaluate field x in type []interface {}" } },
  { tpl: '{{ .m.k }}', data: { m: new Map([['k', 'v']]) }, want: 'v' },
  { name: 'prototype members are not fields', tpl: '[{{ .constructor }}{{ .a.toString }}{{ .__proto__ }}]', data: { a: {} }, want: '[]' },
  { name: 'no constructor on structs either', tpl: '{{ .g.constructor }}', data: { g: new Greeter('A') }, err: { type: 'exec', msg: "can't evaluate field constructor" } },
  { tpl: '{{ .a.b 1 }}', data: { a: { b: 2 } }, err: { type: 'exec', msg: 'b is not a method but has arguments' } },
  { tpl: '{{ (dict "a" (dict "b" 1)).a.b }}', want: '1' },
  { tpl: '{{ "x".y }}', err: { type: 'syntax', msg: 'unexpected . after term "\\"x\\""' } },
  { tpl: '{{ .Subscriber.FirstName }} {{ .Subscriber.LastName }} {{ .Subscriber.Attribs.city }}', data: { Subscriber: sub }, want: 'Ann Smith Bengaluru' },
  { tpl: '{{ .Subscriber.Firstname }}', data: { Subscriber: sub }, err: { type: 'exec', msg: "can't evaluate field Firstname in type SubscriberView" } },
  { tpl: '{{ .Subscriber.ID }} {{ .Subscriber.UUID }} {{ .Subscriber.Email }} {{ .Subscriber.Status }}', data: { Subscriber: sub }, want: '7 sub-uuid jo@example.com enabled' },
  { tpl: '{{ .d.Year }} {{ .d.Month }} {{ .d.Day }} {{ .d.Weekday }} {{ .d.Hour }}', data: { d: new Date(Date.UTC(2024, 2, 5, 14, 7)) }, want: '2024 March 5 Tuesday 14' },
  { tpl: '{{ .d.Format "Jan 2, 2006 at 3:04pm" }}', data: { d: new Date(Date.UTC(2024, 2, 5, 14, 7)) }, want: 'Mar 5, 2024 at 2:07pm' },
  { tpl: '{{ .d.Unix }}', data: { d: new Date(Date.UTC(2024, 0, 1)) }, want: '1704067200' },
  { tpl: '{{ .d.Foo }}', data: { d: new Date(0) }, err: { type: 'exec', msg: "can't evaluate field Foo in type time.Time" } },
  { name: 'a function-valued map entry is called', tpl: '{{ .f 2 3 }}', data: { f: (a: number, b: number) => a * b }, want: '6' },
];

export const conditionals: Case[] = [
  ...[
    [true, 'y'], [false, 'n'], [0, 'n'], [1, 'y'], [-1, 'y'], ['', 'n'], ['0', 'y'], [[], 'n'], [[0], 'y'],
    [{}, 'n'], [{ k: 0 }, 'y'], [null, 'n'], [new Date(0), 'y'],
  ].map(([a, want]): Case => ({ name: `truth of ${JSON.stringify(a)}`, tpl: '{{ if .a }}y{{ else }}n{{ end }}', data: { a }, want: want as string })),
  { name: 'truth of missing key', tpl: '{{ if .nope }}y{{ else }}n{{ end }}', data: {}, want: 'n' },
  { tpl: '{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}', data: { a: 1 }, want: 'A' },
  { tpl: '{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}', data: { b: 1 }, want: 'B' },
  { tpl: '{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}', data: {}, want: 'C' },
  { tpl: '{{ if .a }}A{{ else if .b }}B{{ else if .c }}C{{ end }}', data: { c: 1 }, want: 'C' },
  { tpl: '{{ if }}x{{ end }}', err: { type: 'syntax', msg: 'missing value for if' } },
  { tpl: '{{ if .a }}x', err: { type: 'syntax', msg: 'unexpected EOF' } },
  { tpl: 'a{{ end }}', err: { type: 'syntax', msg: 'unexpected {{end}}', line: 1, column: 5 } },
  { tpl: '{{ else }}', err: { type: 'syntax', msg: 'unexpected {{else}}' } },
  { tpl: '{{ if 1 }}a{{ else }}b{{ else }}c{{ end }}', err: { type: 'syntax', msg: 'expected end; found {{else}}' } },
  { tpl: '{{ end 1 }}', err: { type: 'syntax', msg: 'unexpected "1" in end' } },
];

export const withs: Case[] = [
  { tpl: '{{ with .a }}{{ . }}{{ end }}', data: { a: 'x' }, want: 'x' },
  { tpl: '{{ with .a }}x{{ else }}none{{ end }}', data: { a: '' }, want: 'none' },
  { tpl: '{{ with .a }}A{{ else with .b }}{{ . }}{{ else }}C{{ end }}', data: { b: 'bee' }, want: 'bee' },
  { tpl: '{{ with .a }}A{{ else with .b }}{{ . }}{{ else }}C{{ end }}', data: {}, want: 'C' },
  { tpl: '{{ with $x := .a }}{{ $x }}{{ . }}{{ end }}', data: { a: 'v' }, want: 'vv' },
  { tpl: '{{ with .a }}{{ .b }}{{ end }}', data: { a: { b: 'nested' } }, want: 'nested' },
];

export const ranges: Case[] = [
  { tpl: '{{ range .l }}[{{ . }}]{{ end }}', data: { l: ['a', 'b'] }, want: '[a][b]' },
  { tpl: '{{ range $i, $v := .l }}{{ $i }}={{ $v }} {{ end }}', data: { l: ['a', 'b'] }, want: '0=a 1=b ' },
  { name: 'maps range in sorted key order', tpl: '{{ range .m }}{{ . }}{{ end }}', data: { m: { b: 2, a: 1, c: 3 } }, want: '123' },
  { tpl: '{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}', data: { m: { b: 2, a: 1 } }, want: 'a=1;b=2;' },
  { name: 'string keys sort as strings', tpl: '{{ range $k, $v := .m }}{{ $k }},{{ end }}', data: { m: { 10: 'x', 9: 'y', 1: 'z' } }, want: '1,10,9,' },
  { tpl: '{{ range $k, $v := .m }}{{ $k }}{{ end }}', data: { m: new Map([[3, 'c'], [1, 'a'], [2, 'b']]) }, want: '123' },
  { tpl: '{{ range 3 }}{{ . }}{{ end }}', want: '012' },
  { tpl: '{{ range $i := 3 }}{{ $i }}{{ end }}', want: '012' },
  { tpl: '{{ range .l }}{{ . }}{{ else }}empty{{ end }}', data: { l: [] }, want: 'empty' },
  { tpl: '{{ range .l }}{{ . }}{{ else }}empty{{ end }}', data: {}, want: 'empty' },
  { tpl: '{{ range .l }}{{ if eq . 3 }}{{ break }}{{ end }}{{ . }}{{ end }}', data: { l: [1, 2, 3, 4] }, want: '12' },
  { tpl: '{{ range .l }}{{ if eq . 2 }}{{ continue }}{{ end }}{{ . }}{{ end }}', data: { l: [1, 2, 3] }, want: '13' },
  { tpl: '{{ range .l }}{{ with . }}{{ if eq . 2 }}{{ break }}{{ end }}{{ end }}{{ . }}{{ end }}', data: { l: [1, 2, 3] }, want: '1' },
  { tpl: '{{ range .l }}{{ $.name }}{{ end }}', data: { l: [1, 2], name: 'n' }, want: 'nn' },
  { tpl: '{{ range .rows }}{{ range . }}{{ . }}{{ end }};{{ end }}', data: { rows: [[1, 2], [3]] }, want: '12;3;' },
  { tpl: '{{ range $i, $e := .l }}{{ range $j, $f := $e }}{{ $i }}{{ $j }}{{ end }}{{ end }}', data: { l: [[0, 0], [0]] }, want: '000110' },
  { tpl: '{{ range .s }}{{ . }}{{ end }}', data: { s: 'abc' }, err: { type: 'exec', msg: "range can't iterate over abc" } },
  { tpl: '{{ range $i, $v := 3 }}{{ end }}', err: { type: 'exec', msg: "can't use 3 to iterate over more than one variable" } },
  { tpl: '{{ break }}', err: { type: 'syntax', msg: '{{break}} outside {{range}}' } },
  { tpl: '{{ if true }}{{ continue }}{{ end }}', err: { type: 'syntax', msg: '{{continue}} outside {{range}}' } },
  { tpl: '{{ range $x := .l }}{{ $x }}{{ end }}', data: { l: [4, 5] }, want: '45' },
  { tpl: '{{ range $i, $v := . }}{{ $i }}{{ end }}', data: ['a', 'b', 'c'], want: '012' },
  { tpl: '{{ range $a, $b, $c := . }}{{ end }}', err: { type: 'syntax', msg: 'too many declarations in range' } },
];

export const templates: Case[] = [
  { tpl: '{{ define "x" }}X{{ . }}{{ end }}{{ template "x" 1 }}', want: 'X1' },
  { name: 'template without argument gets nil dot', tpl: '{{ define "x" }}[{{ . }}]{{ end }}{{ template "x" }}', data: 'ignored', want: '[]' },
  { tpl: '{{ block "b" . }}default {{ . }}{{ end }}', data: 5, want: 'default 5' },
  { name: 'a later source overrides a block', tpl: [{ name: 'base', source: '<{{ block "b" . }}default{{ end }}>' }, { name: 'content', source: '{{ define "b" }}override{{ end }}' }], want: '<override>' },
  { name: 'an empty define does not replace a block', tpl: [{ name: 'base', source: '{{ block "b" . }}default{{ end }}' }, { name: 'content', source: '{{ define "b" }}{{ end }}' }], want: 'default' },
  { tpl: '{{ template "missing" }}', err: { type: 'exec', msg: 'no template "missing" associated with template "content"' } },
  { tpl: '{{ define "r" }}{{ if gt . 0 }}{{ . }}{{ template "r" (sub . 1) }}{{ end }}{{ end }}{{ template "r" 3 }}', want: '321' },
  { tpl: '{{ $x := 1 }}{{ define "d" }}{{ $x }}{{ end }}', err: { type: 'syntax', msg: 'undefined variable "$x"' } },
  { tpl: '{{ define "d" }}{{ $ }}{{ end }}{{ template "d" "arg" }}', want: 'arg' },
  { tpl: '{{ define "d" }}a{{ end }}{{ define "d" }}b{{ end }}', err: { type: 'syntax', msg: 'multiple definition of template "d"' } },
  { tpl: '{{ if true }}{{ define "x" }}{{ end }}{{ end }}', err: { type: 'syntax', msg: 'unexpected <define> in command' } },
  { tpl: '{{ template .name }}', err: { type: 'syntax', msg: 'unexpected ".name" in template clause' } },
  { name: 'campaign composition', tpl: [{ name: 'base', source: '<body>{{ template "content" . }}</body>' }, { name: 'content', source: 'Hello {{ .name }}' }], data: { name: 'Ann' }, want: '<body>Hello Ann</body>' },
  { name: 'defines in content are visible to base', tpl: [{ name: 'base', source: '{{ template "content" . }}|{{ template "footer" . }}' }, { name: 'content', source: 'c{{ define "footer" }}f{{ .x }}{{ end }}' }], data: { x: 1 }, want: 'c|f1' },
  { tpl: '{{ define "a" }}{{ template "b" . }}{{ end }}{{ define "b" }}B{{ . }}{{ end }}{{ template "a" 2 }}', want: 'B2' },
];
