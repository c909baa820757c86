/**
 * Error reporting (Go-style messages with 1-based line and column) and execution bounds.
 */
import type { Case } from './types.js';

export const syntaxErrors: Case[] = [
  { name: 'stray brace', tpl: 'Hello\n{{ .Subscriber.Name }\n}}', err: { type: 'syntax', msg: 'template: content:2:21: unexpected "}" in operand', line: 2, column: 21 } },
  { tpl: 'a\n{{ .x ', err: { type: 'syntax', msg: 'unclosed action', line: 2, column: 1 } },
  { tpl: '{{ if .a }}\n{{ else }}\n{{ end }}\n{{ end }}', err: { type: 'syntax', msg: 'unexpected {{end}}', line: 4, column: 4 } },
  { tpl: '{{ foo }}', err: { type: 'syntax', msg: 'template: content:1:4: function "foo" not defined', line: 1, column: 4 } },
  { tpl: '{{ .x | bar }}', err: { type: 'syntax', msg: 'function "bar" not defined', line: 1, column: 9 } },
  { tpl: 'x {{/* abc', err: { type: 'syntax', msg: 'unclosed comment', line: 1, column: 3 } },
  { tpl: '{{/* a */ x }}', err: { type: 'syntax', msg: 'comment ends before closing delimiter' } },
  { tpl: '{{ # }}', err: { type: 'syntax', msg: 'unexpected "#" in command', column: 4 } },
  { tpl: '{{ .x ## }}', err: { type: 'syntax', msg: 'unexpected "#" in operand', column: 7 } },
  { tpl: '{{ .x → }}', err: { type: 'syntax', msg: "unrecognized character in action: U+2192 '→'" } },
  { tpl: '{{ .x$y }}', err: { type: 'syntax', msg: "bad character U+0024 '$'" } },
  { tpl: '{{ define "a" }}x', err: { type: 'syntax', msg: 'unexpected EOF' } },
  { tpl: '{{ $x := }}', err: { type: 'syntax', msg: 'missing value for command' } },
  { tpl: '{{ range $i, $v = .l }}{{ end }}', err: { type: 'syntax', msg: 'undefined variable "$i"' } },
  { tpl: '{{ 1 : 2 }}', err: { type: 'syntax', msg: 'expected :=' } },
  { tpl: '{{ template "x" . . }}{{ define "x" }}{{ end }}', err: { type: 'exec', msg: "can't give argument to non-function ." } },
  { tpl: '{{ printf "%d" (1 2) }}', err: { type: 'exec', msg: "can't give argument to non-function 1" } },
  { tpl: '{{ ( ) }}', err: { type: 'syntax', msg: 'missing value for parenthesized pipeline' } },
  { name: 'positions refer to the text before the TrackLink rewrite', tpl: '<a href="https://x.com@TrackLink">{{ foo }}', mode: 'html', err: { type: 'syntax', msg: 'template: content:1:38: function "foo" not defined', line: 1, column: 38 } },
  { name: 'errors name the source they are in', tpl: [{ name: 'base', source: '{{ template "content" . }}' }, { name: 'content', source: 'ok\n\n{{ if }}' }], err: { type: 'syntax', msg: 'template: content:3:7: missing value for if', line: 3, column: 7 } },
  { name: 'columns count characters', tpl: 'héllo {{ nope }}', err: { type: 'syntax', msg: 'function "nope" not defined', line: 1, column: 10 } },
];

export const execErrors: Case[] = [
  { tpl: 'line1\n  {{ index .l 5 }}', data: { l: [1] }, err: { type: 'exec', msg: 'template: content:2:6: executing "content" at <index .l 5>: error calling index: index out of range: 5', line: 2, column: 6 } },
  { tpl: '{{ define "x" }}\n{{ div 1 0 }}{{ end }}{{ template "x" }}', err: { type: 'exec', msg: 'template: content:2:4: executing "x" at <div 1 0>: error calling div: runtime error: integer divide by zero', line: 2, column: 4 } },
  { tpl: [{ name: 'base', source: '<b>{{ template "content" . }}</b>' }, { name: 'content', source: '\n\n   {{ fromJson "nope" }}' }], err: { type: 'exec', msg: 'template: content:3:7: executing "content" at <fromJson "nope">: error calling fromJson', line: 3, column: 7 } },
  { tpl: '{{ upper }}', err: { type: 'exec', msg: 'wrong number of args for upper: want 1 got 0' } },
  { tpl: '{{ "a" | replace "x" }}', err: { type: 'exec', msg: 'wrong number of args for replace: want 3 got 2' } },
  { tpl: '{{ .f }}', data: { f: () => { throw new Error('kaboom'); } }, err: { type: 'exec', msg: 'error calling f: kaboom' } },
  { name: 'long contexts are shortened like Go', tpl: '{{ index .list_with_a_long_name 99 }}', data: { list_with_a_long_name: [] }, err: { type: 'exec', msg: 'at <index .list_with_a_l...>' } },
];

export const bounds: Case[] = [
  { name: 'until beyond the step budget', tpl: '{{ range until 100000000 }}{{ end }}', err: { type: 'exec', msg: 'exceed the step limit' } },
  { name: 'range over a huge int', tpl: '{{ range 100000000 }}{{ end }}', err: { type: 'exec', msg: 'exceeded maximum of 1000000 steps' } },
  { name: 'nested loops', tpl: '{{ range 1000 }}{{ range 1000 }}{{ range 1000 }}x{{ end }}{{ end }}{{ end }}', err: { type: 'exec', msg: 'exceeded maximum of' } },
  { name: 'custom step limit', tpl: '{{ range 20 }}{{ . }}{{ end }}', limits: { maxSteps: 10 }, err: { type: 'exec', msg: 'exceeded maximum of 10 steps' } },
  { name: 'within the step limit', tpl: '{{ range 3 }}{{ . }}{{ end }}', limits: { maxSteps: 10 }, want: '012' },
  { name: 'infinite recursion', tpl: '{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}', err: { type: 'exec', msg: 'exceeded maximum template depth (100)' } },
  { name: 'custom depth limit', tpl: '{{ define "r" }}{{ if gt . 0 }}{{ template "r" (sub . 1) }}{{ end }}{{ end }}{{ template "r" 10 }}', limits: { maxDepth: 5 }, err: { type: 'exec', msg: 'exceeded maximum template depth (5)' } },
  { name: 'recursion within the depth limit', tpl: '{{ define "r" }}{{ if gt . 0 }}{{ . }}{{ template "r" (sub . 1) }}{{ end }}{{ end }}{{ template "r" 4 }}', limits: { maxDepth: 5 }, want: '4321' },
  { name: 'repeat blow-up', tpl: '{{ repeat 100000000 "xyz" }}', err: { type: 'exec', msg: 'exceeds the 10485760-byte limit' } },
  { name: 'indent blow-up', tpl: '{{ indent 100000000 "a" }}', err: { type: 'exec', msg: 'indent: result of' } },
  { name: 'output limit across iterations', tpl: '{{ range 1000 }}{{ repeat 100000 "x" }}{{ end }}', err: { type: 'exec', msg: 'output exceeds 10485760 bytes' } },
  { name: 'custom output limit in text', tpl: '{{ range 20 }}abcdefghij{{ end }}', limits: { maxOutputBytes: 100 }, err: { type: 'exec', msg: 'output exceeds 100 bytes' } },
  { name: 'output counted in UTF-8 bytes', tpl: '{{ range 30 }}é{{ end }}', limits: { maxOutputBytes: 50 }, err: { type: 'exec', msg: 'output exceeds 50 bytes' } },
  { name: 'string doubling', tpl: '{{ $s := "x" }}{{ range 40 }}{{ $s = printf "%s%s" $s $s }}{{ end }}', err: { type: 'exec', msg: 'printf: result exceeds' } },
  { name: 'replace blow-up', tpl: '{{ $s := repeat 1000000 "a" }}{{ replace "a" "aaaaaaaaaaaaaaaaaaaa" $s }}', err: { type: 'exec', msg: 'replace: result of' } },
  { name: 'quadratic list building', tpl: '{{ $l := list }}{{ range 100000 }}{{ $l = append $l . }}{{ end }}', err: { type: 'exec', msg: 'exceeded maximum of 1000000 steps' } },
  { name: 'large strings through functions in a loop', tpl: '{{ range 300000 }}{{ $n := repeat 1000000 "x" | len }}{{ end }}', err: { type: 'exec', msg: 'exceeded maximum of 1000000 steps' } },
  { name: 'quadratic uniq', tpl: '{{ uniq (until 100000) | len }}', err: { type: 'exec', msg: 'exceeded maximum of 1000000 steps' } },
  { name: 'a moderate list is fine', tpl: '{{ $l := list }}{{ range 200 }}{{ $l = append $l . }}{{ end }}{{ len $l }} {{ uniq $l | len }}', want: '200 200' },
  { name: 'deeply nested ifs', tpl: `${'{{ if 1 }}'.repeat(300)}x${'{{ end }}'.repeat(300)}`, err: { type: 'syntax', msg: 'control structures nested too deeply' } },
  { name: 'deeply nested parens', tpl: `{{ ${'('.repeat(300)}1${')'.repeat(300)} }}`, err: { type: 'syntax', msg: 'parenthesized pipelines nested too deeply' } },
  { name: 'moderate nesting is fine', tpl: `${'{{ if 1 }}'.repeat(150)}x${'{{ end }}'.repeat(150)}`, want: 'x' },
];
